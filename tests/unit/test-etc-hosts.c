/* SPDX-License-Identifier: MIT */
/* /etc/hosts: the lookup as glibc's files module reads the file, halod's block read and replaced with
 * every other byte kept, the atomic writer keeping owner and mode and never following a symlink, and
 * the plan's /etc/hosts part (health.hosts: manage) against real files in a scratch root. */
#include <arpa/inet.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/etc-hosts.h"
#include "basic/fileio.h"
#include "basic/strv.h"
#include "plan/hosts-plan.h"
#include "profile/profile.h"
#include "tests.h"

static void assert_lookup(const char *text, const char *name, const char *want) {
        _cleanup_(freep) struct in_addr *a = NULL;
        _cleanup_(strv_freep) char **l = NULL;
        _cleanup_(freep) char *joined = NULL;
        size_t n = 0;

        ASSERT_OK(etc_hosts_lookup(text, name, &a, &n));
        for (size_t i = 0; i < n; i++) {
                char buf[INET_ADDRSTRLEN];

                ASSERT_OK(strv_extend(&l, inet_ntop(AF_INET, &a[i], buf, sizeof(buf))));
        }
        joined = l ? strv_join(l, ",") : strdup("");
        ASSERT_STR_EQ(joined, want);
}

static void test_lookup(void) {
        static const char text[] =
                "127.0.0.1\tlocalhost\n"
                "::1 localhost ip6-localhost halo-2\n"
                "10.0.0.12 halo-2.mgmt halo-2 # the management network\n"
                "# 10.0.0.99 halo-3\n"
                "192.168.100.2 HALO-2\n"
                "999.1.1.1 halo-4\n"
                "10.0.0.12 halo-2\n"
                "192.168.100.3\thalo-3";

        assert_lookup(text, "halo-2", "10.0.0.12,192.168.100.2");
        assert_lookup(text, "halo-3", "192.168.100.3");
        assert_lookup(text, "halo-4", "");
        assert_lookup(text, "halo", "");
        assert_lookup("", "halo-2", "");
}

static const char outside[] =
        "127.0.0.1 localhost\n"
        "# a comment  with  spaces \t\n"
        "\n"
        "10.0.0.12 halo-2   # keep me exactly\r\n";

static void test_block(void) {
        _cleanup_(freep) char *once = NULL, *twice = NULL, *removed = NULL, *joined = NULL, *glued = NULL;
        _cleanup_(strv_freep) char **lines = NULL, **got = NULL, **other = NULL;
        const char *after;

        ASSERT_OK(strv_extend(&lines, "192.168.100.2 halo-2"));
        ASSERT_OK(strv_extend(&lines, "192.168.100.3 halo-3"));
        ASSERT_OK(etc_hosts_block_lines(outside, &got));
        ASSERT_TRUE(!got);

        /* Appended after everything, which stays byte for byte. */
        ASSERT_OK(etc_hosts_replace_block(outside, "strix-halo", lines, &once));
        ASSERT_TRUE(strncmp(once, outside, strlen(outside)) == 0);
        ASSERT_STR_EQ(
                once + strlen(outside),
                "# BEGIN halod (cluster strix-halo): the fabric names of the other nodes\n"
                "192.168.100.2 halo-2\n"
                "192.168.100.3 halo-3\n"
                "# END halod\n");
        ASSERT_OK(etc_hosts_block_lines(once, &got));
        joined = strv_join(got, "|");
        ASSERT_STR_EQ(joined, "192.168.100.2 halo-2|192.168.100.3 halo-3");

        /* The same lines again change nothing. */
        ASSERT_OK(etc_hosts_replace_block(once, "strix-halo", lines, &twice));
        ASSERT_STR_EQ(twice, once);
        twice = mfree(twice);

        /* An earlier block is replaced where it is, lines after it kept. */
        ASSERT_TRUE(asprintf(&glued, "%s10.1.1.1 after\n", once) > 0);
        ASSERT_OK(strv_extend(&other, "192.168.100.4 halo-4"));
        ASSERT_OK(etc_hosts_replace_block(glued, "strix-halo", other, &twice));
        ASSERT_TRUE(strncmp(twice, outside, strlen(outside)) == 0);
        after = twice + strlen(outside);
        ASSERT_STR_EQ(
                after,
                "# BEGIN halod (cluster strix-halo): the fabric names of the other nodes\n"
                "192.168.100.4 halo-4\n"
                "# END halod\n"
                "10.1.1.1 after\n");

        /* No lines: no block at all, and the file is what it was before halod. */
        ASSERT_OK(etc_hosts_replace_block(once, "strix-halo", NULL, &removed));
        ASSERT_STR_EQ(removed, outside);
        removed = mfree(removed);
        ASSERT_OK(etc_hosts_replace_block(outside, "strix-halo", NULL, &removed));
        ASSERT_STR_EQ(removed, outside);
        removed = mfree(removed);

        /* A last line without a newline is not glued to the marker. */
        ASSERT_OK(etc_hosts_replace_block("127.0.0.1 localhost", "c", other, &removed));
        ASSERT_TRUE(startswith(removed, "127.0.0.1 localhost\n# BEGIN halod (cluster c)"));
        removed = mfree(removed);

        /* A block someone cut in half is not guessed at. */
        ASSERT_INT_EQ(
                etc_hosts_replace_block("# BEGIN halod (cluster c)\n1.2.3.4 x\n", "c", other, &removed),
                -EBADMSG);
        ASSERT_INT_EQ(etc_hosts_block_lines("# BEGIN halod (cluster c)\n1.2.3.4 x\n", &got), -EBADMSG);
}

static void write_text(const char *path, const char *text) {
        ASSERT_OK(write_file_atomic(path, text, strlen(text), 0644));
}

static void test_write_keeping(void) {
        char dir[] = "/tmp/test-etc-hosts-XXXXXX";
        _cleanup_(freep) char *path = NULL, *link = NULL, *target = NULL, *text = NULL;
        struct stat st;

        ASSERT_TRUE(mkdtemp(dir));
        ASSERT_TRUE(asprintf(&path, "%s/hosts", dir) > 0);
        ASSERT_TRUE(asprintf(&link, "%s/hosts-link", dir) > 0);
        ASSERT_TRUE(asprintf(&target, "%s/target", dir) > 0);

        write_text(path, outside);
        ASSERT_OK(chmod(path, 0640));
        /* Another owner only as root; the mode in any case. */
        if (geteuid() == 0)
                ASSERT_OK(chown(path, 4321, 4322));
        ASSERT_OK(write_file_atomic_keeping(path, "new\n", 4));
        ASSERT_OK(read_full_file(path, 1024, &text, NULL));
        ASSERT_STR_EQ(text, "new\n");
        ASSERT_OK(lstat(path, &st));
        ASSERT_TRUE(S_ISREG(st.st_mode));
        ASSERT_INT_EQ(st.st_mode & 07777, 0640);
        if (geteuid() == 0) {
                ASSERT_INT_EQ(st.st_uid, 4321);
                ASSERT_INT_EQ(st.st_gid, 4322);
        }

        /* A symlink at the path: neither followed nor replaced. */
        write_text(target, "target\n");
        ASSERT_OK(symlink(target, link));
        ASSERT_INT_EQ(write_file_atomic_keeping(link, "x\n", 2), -ELOOP);
        text = mfree(text);
        ASSERT_OK(read_full_file(target, 1024, &text, NULL));
        ASSERT_STR_EQ(text, "target\n");
        ASSERT_OK(lstat(link, &st));
        ASSERT_TRUE(S_ISLNK(st.st_mode));

        ASSERT_OK(unlink(link));
        ASSERT_OK(unlink(target));
        ASSERT_OK(unlink(path));
        ASSERT_OK(rmdir(dir));
}

static const char profile_text[] =
        "cluster: strix-halo\n"
        "links: { rdma0: { match: { driver: ice } } }\n"
        "nodes:\n"
        "  head: { hostname: halo-1, links: { rdma0: 192.168.100.1/24 } }\n"
        "  worker: { hostname: halo-2, links: { rdma0: 192.168.100.2/24 } }\n"
        "  third: { links: { rdma0: 192.168.100.3/24 } }\n"
        "health: { hosts: %s }\n";

static void test_plan(void) {
        char dir[] = "/tmp/test-etc-hosts-plan-XXXXXX";
        _cleanup_(freep) char *etc = NULL, *hosts = NULL, *yaml = NULL, *text = NULL, *yaml_check = NULL;
        _cleanup_(profile_freep) Profile *p = NULL, *check = NULL;
        _cleanup_(hosts_plan_freep) HostsPlan *hp = NULL;
        _cleanup_(plan_changes_done) PlanChanges changes = {};
        Host host;
        NodeContext c;

        ASSERT_TRUE(mkdtemp(dir));
        host = (Host){ .root = dir };
        ASSERT_TRUE(asprintf(&etc, "%s/etc", dir) > 0);
        ASSERT_TRUE(asprintf(&hosts, "%s/etc/hosts", dir) > 0);
        ASSERT_OK(mkdir(etc, 0755));
        write_text(hosts, outside);

        ASSERT_TRUE(asprintf(&yaml, profile_text, "manage") > 0);
        ASSERT_OK(profile_load_string("h.yaml", yaml, strlen(yaml), &p, NULL));
        c = (NodeContext){ .host = &host, .profile = p, .node = profile_find_node(p, "head") };

        /* The other node with a hostname, not this one, not the one without. */
        ASSERT_OK(hosts_plan_compute(&c, &hp));
        ASSERT_TRUE(hp && !hp->error && hp->text && !hp->remove);
        ASSERT_INT_EQ(strv_length(hp->add), 1);
        ASSERT_STR_EQ(hp->add[0], "192.168.100.2 halo-2");
        ASSERT_OK(hosts_plan_changes(hp, &changes));
        ASSERT_INT_EQ(changes.n_changes, 1);
        text = plan_change_describe(&changes.changes[0]);
        ASSERT_STR_EQ(text, "/etc/hosts: + 192.168.100.2 halo-2");

        /* Written, the plan is empty. */
        ASSERT_OK(write_file_atomic_keeping(hp->path, hp->text, strlen(hp->text)));
        hp = hosts_plan_free(hp);
        ASSERT_OK(hosts_plan_compute(&c, &hp));
        ASSERT_TRUE(!hp);

        /* check (the default) never plans anything. */
        ASSERT_TRUE(asprintf(&yaml_check, profile_text, "check") > 0);
        ASSERT_OK(profile_load_string("h.yaml", yaml_check, strlen(yaml_check), &check, NULL));
        c.profile = check;
        c.node = profile_find_node(check, "head");
        write_text(hosts, outside);
        ASSERT_OK(hosts_plan_compute(&c, &hp));
        ASSERT_TRUE(!hp);

        /* A symlink at /etc/hosts is the plan's error, not followed. */
        c.profile = p;
        c.node = profile_find_node(p, "head");
        ASSERT_OK(unlink(hosts));
        ASSERT_OK(symlink("/etc/hosts", hosts));
        ASSERT_OK(hosts_plan_compute(&c, &hp));
        ASSERT_TRUE(hp && hp->error && !hp->text);
        ASSERT_TRUE(strstr(hp->error, "symlink"));

        ASSERT_OK(unlink(hosts));
        ASSERT_OK(rmdir(etc));
        ASSERT_OK(rmdir(dir));
}

int main(void) {
        test_lookup();
        test_block();
        test_write_keeping();
        test_plan();
        return 0;
}
