/* SPDX-License-Identifier: MIT */
/* Tests for apply_node()'s rules that need no privileges: mode: verify refuses before anything is
 * read, and a backend that says "done" without doing it fails the verification from the kernel. The
 * link is lo, read (never changed) through this namespace's sysfs and rtnetlink. */
#include "apply/apply.h"
#include "basic/strv.h"
#include "check-read.h"
#include "check/checks.h"
#include "tests.h"

static unsigned backend_calls;

static bool fake_available(void) {
        return true;
}

/* Claims success and changes nothing: what a buggy or lying backend would do. */
static int fake_apply_link(const LinkPlan *lp, char **ret_error) {
        backend_calls++;
        ASSERT_STR_EQ(lp->link, "loop0");
        ASSERT_STR_EQ(lp->ifname, "lo");
        /* The plan's changes: the address is missing, so the drift says so. */
        ASSERT_TRUE(lp && lp->add_address && lp->ifindex > 0);
        ASSERT_TRUE(!link_plan_shows_settings(lp));
        return 0;
}

static const Backend fake_backend = {
        .name = "fake",
        .available = fake_available,
        .apply_link = fake_apply_link,
};

/* A backend that keeps a file (networkd's hooks): what it saved before the apply comes back when a
 * later step fails, here the read-back from the kernel (issue 31: the file outlived a failed apply). */
static unsigned saves, restores;
static const char *restored_text;

static int fake_save_link(const LinkPlan *lp, char **ret_saved, char **ret_error) {
        saves++;
        *ret_saved = strdup("[Match]\nName=lo\n");
        return *ret_saved ? 0 : -ENOMEM;
}

static void fake_restore_link(const LinkPlan *lp, const char *saved, char ***errors) {
        static char kept[64];

        restores++;
        snprintf(kept, sizeof(kept), "%s", saved);
        restored_text = kept;
}

static const Backend fake_file_backend = {
        .name = "fake-file",
        .available = fake_available,
        .apply_link = fake_apply_link,
        .save_link = fake_save_link,
        .restore_link = fake_restore_link,
};

static void test_restore(NodeContext *c) {
        _cleanup_(freep) char *error = NULL;
        PlanChanges changes = {};

        ASSERT_INT_EQ(apply_node(c, &fake_file_backend, 0, /* snapshot= */ NULL, &changes, &error), -EIO);
        ASSERT_INT_EQ(saves, 1);
        ASSERT_INT_EQ(restores, 1);
        ASSERT_STR_EQ(restored_text, "[Match]\nName=lo\n");
        ASSERT_TRUE(strstr(error, "the backend reported success, but the kernel"));
        ASSERT_TRUE(strstr(error, "; put loop0 (lo) back as it was before this apply"));
}

int main(void) {
        ProfileLink link = { .name = (char *) "loop0", .match = { .name = (char *) "lo" } };
        NodeLink nl = { .link = (char *) "loop0" };
        ProfileNode node = { .name = (char *) "head", .links = &nl, .n_links = 1 };
        Profile p = { .path = (char *) "test.yaml", .links = &link, .n_links = 1, .nodes = &node, .n_nodes = 1 };
        Host h = HOST_SYSTEM;
        NodeContext c = { .host = &h, .profile = &p, .node = &node };
        PlanChanges changes = {};
        char *error = NULL;
        int r;

        /* 192.0.2.0/24 is TEST-NET-1: on no real interface. */
        ASSERT_OK(ipv4_prefix_from_string("192.0.2.1/30", &nl.address));

        /* mode: verify: refused, with the reason, before the backend is asked anything. */
        p.mode = PROFILE_MODE_VERIFY;
        ASSERT_INT_EQ(apply_node(&c, &fake_backend, 0, /* snapshot= */ NULL, &changes, &error), -EPERM);
        ASSERT_STR_EQ(
                error,
                "test.yaml says mode: verify, so halod does not change this host; change the mode to "
                "enforce, or apply once with --force");
        ASSERT_TRUE(changes.n_changes == 0);
        ASSERT_INT_EQ(backend_calls, 0);
        error = mfree(error);

        /* Forced, or in enforce mode: the backend runs, and its false success is caught. */
        for (int i = 0; i < 2; i++) {
                p.mode = i == 0 ? PROFILE_MODE_VERIFY : PROFILE_MODE_ENFORCE;
                r = apply_node(
                        &c, &fake_backend, i == 0 ? APPLY_FORCE : 0, /* snapshot= */ NULL, &changes, &error);
                ASSERT_INT_EQ(r, -EIO);
                ASSERT_TRUE(error);
                /* (lo may also be down, in a fresh namespace: then that is listed as well) */
                if (!strstr(error,
                            "the backend reported success, but the kernel and firewalld still differ from the "
                            "profile: loop0 (lo): ") ||
                    !strstr(error, "loop0 (lo): + 192.0.2.1/30")) {
                        fprintf(stderr, "unexpected message: %s\n", error);
                        abort();
                }
                ASSERT_TRUE(changes.n_changes == 0);
                ASSERT_INT_EQ(backend_calls, (unsigned) i + 1);
                error = mfree(error);
        }

        /* One snapshot for the apply and the checks after it: the kernel's links are read before the
         * change and once after it, for the verification and the checks alike. */
        {
                _cleanup_(snapshot_done) Snapshot s = {};
                _cleanup_(check_list_done) CheckList checks = {};
                uint64_t dumps = rtnl_dump_count();

                snapshot_init(&s, &c);
                ASSERT_INT_EQ(apply_node(&c, &fake_backend, 0, &s, &changes, &error), -EIO);
                ASSERT_OK(test_checks_run(&c, &s, "link.", &checks));
                ASSERT_INT_EQ(rtnl_dump_count() - dumps, 2);
                /* The checks say what the verification found still missing. */
                ASSERT_INT_EQ(check_list_find(&checks, "link.loop0.address")->outcome, CHECK_FAIL);
                error = mfree(error);
        }

        test_restore(&c);
        return 0;
}
