/* SPDX-License-Identifier: MIT */
/* apply_node() with health.hosts: manage on a node whose link (one end of a veth pair in a network namespace of
 * the test's own, already as the profile wants it) needs nothing: the backend is not asked, the block
 * is written into a scratch root's etc/hosts with the lines outside it and the file's mode kept, the
 * change is recorded, and a second apply finds nothing to do. The root's sys is a symlink to the
 * namespace's /sys, so that the link resolves as on the system. Root: CI fails instead of skipping. */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apply/apply.h"
#include "basic/fileio.h"
#include "tests.h"

static bool fake_available(void) {
        return true;
}

static int fake_apply_link(const LinkPlan *lp, char **ret_error) {
        abort(); /* the link needs nothing */
}

static const Backend fake_backend = {
        .name = "fake",
        .available = fake_available,
        .apply_link = fake_apply_link,
};

static const char profile_text[] =
        "cluster: lab\n"
        "links: { fab0: { match: { name: hdummy0 } } }\n"
        "nodes:\n"
        "  head: { hostname: h1, links: { fab0: 192.0.2.1/30 } }\n"
        "  worker: { hostname: h2, links: { fab0: 192.0.2.2/30 } }\n"
        "health: { hosts: manage }\n";

static const char before[] = "127.0.0.1 localhost\n# kept\n";

int main(void) {
        _cleanup_(profile_freep) Profile *p = NULL;
        _cleanup_(plan_changes_done) PlanChanges changes = {}, again = {};
        _cleanup_(freep) char *error = NULL, *sys = NULL, *etc = NULL, *hosts = NULL, *text = NULL;
        char dir[] = "/tmp/test-apply-hosts-XXXXXX";
        Host h;
        NodeContext c;
        struct stat st;

        if (geteuid() != 0) {
                ASSERT_TRUE(!getenv("CI")); /* CI runs the suite as root */
                fprintf(stderr, "skipping: a network namespace of its own needs root\n");
                return 77;
        }
        ASSERT_OK(unshare(CLONE_NEWNET | CLONE_NEWNS));
        ASSERT_OK(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL));
        ASSERT_OK(mount("sysfs", "/sys", "sysfs", 0, NULL));
        ASSERT_INT_EQ(
                system("ip link add hdummy0 type veth peer name hdummy1 && ip link set hdummy1 up && ip address add 192.0.2.1/30 dev hdummy0 && "
                       "ip link set hdummy0 up"),
                0);

        ASSERT_TRUE(mkdtemp(dir));
        ASSERT_TRUE(asprintf(&sys, "%s/sys", dir) > 0);
        ASSERT_TRUE(asprintf(&etc, "%s/etc", dir) > 0);
        ASSERT_TRUE(asprintf(&hosts, "%s/etc/hosts", dir) > 0);
        ASSERT_OK(symlink("/sys", sys));
        ASSERT_OK(mkdir(etc, 0755));
        ASSERT_OK(write_file_atomic(hosts, before, strlen(before), 0604));

        ASSERT_OK(profile_load_string("h.yaml", profile_text, strlen(profile_text), &p, NULL));
        h = (Host){ .root = dir };
        c = (NodeContext){ .host = &h, .profile = p, .node = profile_find_node(p, "head") };

        if (apply_node(&c, &fake_backend, 0, /* snapshot= */ NULL, &changes, &error) < 0) {
                fprintf(stderr, "apply_node: %s\n", strna(error));
                abort();
        }
        ASSERT_INT_EQ(changes.n_changes, 1);
        ASSERT_STR_EQ(changes.changes[0].link, "/etc/hosts");
        ASSERT_STR_EQ(link_field_to_string(changes.changes[0].field), "hosts");
        ASSERT_STR_EQ(changes.changes[0].to, "192.0.2.2 h2");

        ASSERT_OK(read_full_file(hosts, 4096, &text, NULL));
        ASSERT_STR_EQ(
                text,
                "127.0.0.1 localhost\n# kept\n"
                "# BEGIN halod (cluster lab): the fabric names of the other nodes\n"
                "192.0.2.2 h2\n"
                "# END halod\n");
        ASSERT_OK(stat(hosts, &st));
        ASSERT_INT_EQ(st.st_mode & 07777, 0604);

        ASSERT_OK(apply_node(&c, &fake_backend, 0, /* snapshot= */ NULL, &again, &error));
        ASSERT_INT_EQ(again.n_changes, 0);

        ASSERT_OK(unlink(hosts));
        ASSERT_OK(unlink(sys));
        ASSERT_OK(rmdir(etc));
        ASSERT_OK(rmdir(dir));
        return 0;
}
