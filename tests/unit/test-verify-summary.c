/* SPDX-License-Identifier: MIT */
/* What a verify publishes: the merged check list (which published checks a run replaces, where the
 * fresh ones go) and Health with its summary, as case tables. */
#include <stdlib.h>

#include "basic/macro.h"
#include "basic/strv.h"
#include "check/verify-summary.h"
#include "tests.h"

/* "id:outcome,id:outcome" (outcome p, w, f, s; s! is a pending skip, as check-peer.c adds them). */
static void list_from(const char *spec, CheckList *ret) {
        char buf[512], *save = NULL;

        *ret = (CheckList){};
        ASSERT_TRUE(strlen(spec) < sizeof(buf));
        strcpy(buf, spec);
        for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                char *colon = strchr(t, ':');
                CheckOutcome o;

                ASSERT_TRUE(colon);
                *colon = 0;
                o = colon[1] == 'p'       ? CHECK_PASS
                        : colon[1] == 'w' ? CHECK_WARN
                        : colon[1] == 'f' ? CHECK_FAIL
                                          : CHECK_SKIP;
                ASSERT_OK(check_list_add(
                        ret, t, o, "", colon[2] == '!' ? "pending" : "", "%s is %c", t, colon[1]));
                ret->checks[ret->n_checks - 1].pending = colon[2] == '!';
        }
}

/* "id:outcome,..." of l. */
static void list_to(const CheckList *l, char *buf, size_t size) {
        size_t n = 0;

        buf[0] = 0;
        for (size_t i = 0; i < l->n_checks; i++)
                n += (size_t) snprintf(
                        buf + n,
                        size - n,
                        "%s%s:%c",
                        i ? "," : "",
                        l->checks[i].id,
                        check_outcome_to_string(l->checks[i].outcome)[0]);
}

static void test_merge(void) {
        static const struct {
                const char *old, *fresh, *only;
                bool peers;
                const char *expected;
        } table[] = {
                /* A full local run replaces every local check in place, keeps the peer checks. */
                { "profile:p,link.a.mtu:p,peer.b.reachable:p",
                  "profile:p,link.a.mtu:f",
                  NULL,
                  false,
                  "profile:p,link.a.mtu:f,peer.b.reachable:p" },
                /* A re-check of one link replaces that link's checks where they were. */
                { "profile:p,link.a.mtu:p,link.b.mtu:p,qos.a.pfc:p",
                  "link.b.mtu:f",
                  "link.b.",
                  false,
                  "profile:p,link.a.mtu:p,link.b.mtu:f,qos.a.pfc:p" },
                /* A peer run replaces every peer check, whatever only says, and no local one. */
                { "profile:p,peer.b.reachable:p,peer.b.mtu:p",
                  "peer.b.reachable:f",
                  "link.",
                  true,
                  "profile:p,peer.b.reachable:f" },
                /* The first peer run: its checks go last. */
                { "profile:p,link.a.mtu:p",
                  "peer.b.reachable:p",
                  NULL,
                  true,
                  "profile:p,link.a.mtu:p,peer.b.reachable:p" },
                /* The helper check: replaced by any local run that brings it, kept by one that does not. */
                { "profile:p,helper:f,link.a.mtu:p",
                  "link.a.mtu:p,helper:p",
                  "link.a.",
                  false,
                  "profile:p,link.a.mtu:p,helper:p" },
                { "profile:p,helper:f,link.a.mtu:p",
                  "link.a.mtu:w",
                  "link.a.",
                  false,
                  "profile:p,helper:f,link.a.mtu:w" },
                /* A peer run never touches the helper check. */
                { "helper:f,peer.b.reachable:p",
                  "peer.b.reachable:p,helper:p",
                  NULL,
                  true,
                  "helper:f,peer.b.reachable:p,helper:p" },
                /* The daemon's hosts job publishes the helper check alone: a full local run without it
                 * keeps it where it was. */
                { "profile:p,helper:w,peer.b.reachable:p",
                  "profile:f",
                  NULL,
                  false,
                  "profile:f,helper:w,peer.b.reachable:p" },
                /* The hosts job replaces it in place... */
                { "profile:p,helper:w,peer.b.reachable:p",
                  "helper:p",
                  "helper",
                  false,
                  "profile:p,helper:p,peer.b.reachable:p" },
                /* ...removes it when nothing is the helper's any more... */
                { "profile:p,helper:w,peer.b.reachable:p", "", "helper", false, "profile:p,peer.b.reachable:p" },
                /* ...and brings its first one before the peer checks that a peer round published first. */
                { "profile:p,link.a.mtu:p,peer.b.reachable:p",
                  "helper:w",
                  "helper",
                  false,
                  "profile:p,link.a.mtu:p,helper:w,peer.b.reachable:p" },
        };

        for (size_t i = 0; i < ELEMENTSOF(table); i++) {
                _cleanup_(check_list_done) CheckList old = {}, fresh = {}, merged = {};
                char got[512];

                list_from(table[i].old, &old);
                list_from(table[i].fresh, &fresh);
                ASSERT_OK(check_list_merge(&old, table[i].only, table[i].peers, "helper", &fresh, &merged));
                ASSERT_INT_EQ(fresh.n_checks, 0);
                list_to(&merged, got, sizeof(got));
                ASSERT_STR_EQ(got, table[i].expected);
        }
}

static void test_selection_for_drift(void) {
        static char *none[] = { NULL }, *fab0[] = { (char *) "fab0", NULL },
                    *both[] = { (char *) "fab0", (char *) "fab1", NULL }, *fab1[] = { (char *) "fab1", NULL };
        static const struct {
                char **links; /* NULL: a resync */
                char **link_events;
                const char *expected;
        } table[] = {
                /* An address or route event: only what it can change, not the owner's file reads. */
                { fab0, none, "link.fab0.address,link.fab0.routes" },
                /* A link event: the whole link. */
                { fab0, fab0, "link.fab0." },
                { both, fab1, "link.fab0.address,link.fab0.routes,link.fab1." },
                { NULL, none, "link." },
                { none, none, "" },
        };

        for (size_t i = 0; i < ELEMENTSOF(table); i++) {
                _cleanup_(freep) char *got = NULL;

                ASSERT_OK(check_selection_for_drift(table[i].links, table[i].link_events, &got));
                ASSERT_STR_EQ(got, table[i].expected);
        }
}

static void test_selection_covers_drift(void) {
        static const struct {
                const char *link;
                bool link_event;
                const char *only;
                bool expected;
        } table[] = {
                { "fab0", false, "link.fab0.address,link.fab0.routes", true },
                { "fab0", true, "link.fab0.address,link.fab0.routes", false },
                { "fab0", true, "link.fab0.", true },
                { "fab0", false, "link.fab0.", true },
                { "fab0", false, NULL, true },
                { "fab0", false, "link.fab1.address,link.fab1.routes", false },
                { "fab0", false, "link.fab0.address", false },
                { "fab0", false, "helper", false },
        };

        for (size_t i = 0; i < ELEMENTSOF(table); i++)
                ASSERT_INT_EQ(
                        check_selection_covers_drift(table[i].link, table[i].link_event, table[i].only),
                        table[i].expected);
}

static void test_summary(void) {
        static const struct {
                const char *checks;
                bool run_failed;
                Health health;
                const char *summary;
        } table[] = {
                { "profile:p,link.a.mtu:p", false, HEALTH_HEALTHY, "healthy: 2/2 checks pass" },
                { "profile:p,link.a.mtu:p,kernel.cmdline:s",
                  false,
                  HEALTH_HEALTHY,
                  "healthy: 2/2 checks pass, 1 skipped" },
                /* The worst check first: a failure before an earlier warning. */
                { "profile:p,link.a.zone:w,link.a.mtu:f",
                  false,
                  HEALTH_DEGRADED,
                  "degraded: link.a.mtu: link.a.mtu is f (and 1 more checks failing or warning)" },
                { "profile:p,link.a.zone:w", false, HEALTH_DEGRADED, "degraded: link.a.zone: link.a.zone is w" },
                /* The profile failing is Health failed. */
                { "profile:f,link.a.mtu:p", false, HEALTH_FAILED, "failed: profile: profile is f" },
                { "profile:p", true, HEALTH_FAILED, "failed: the checks could not run, see the journal" },
                /* Pending peers are counted, healthy or not. */
                { "profile:p,peer.b.reachable:s!,peer.c.reachable:s!,peer.b.mtu:s!",
                  false,
                  HEALTH_HEALTHY,
                  "healthy: 1/1 checks pass, 3 skipped; 2 peers still being probed" },
                { "profile:p,link.a.mtu:f,peer.b.reachable:s!",
                  false,
                  HEALTH_DEGRADED,
                  "degraded: link.a.mtu: link.a.mtu is f; 1 peer still being probed" },
                /* A skip that is not pending is not a pending peer. */
                { "profile:p,peer.b.reachable:s", false, HEALTH_HEALTHY, "healthy: 1/1 checks pass, 1 skipped" },
        };

        for (size_t i = 0; i < ELEMENTSOF(table); i++) {
                _cleanup_(check_list_done) CheckList l = {};
                _cleanup_(freep) char *summary = NULL;
                Health h;

                list_from(table[i].checks, &l);
                ASSERT_OK(checks_summarize(&l, table[i].run_failed, &h, &summary));
                ASSERT_INT_EQ(h, table[i].health);
                ASSERT_STR_EQ(summary, table[i].summary);
        }
}

/* What checks say a reboot brings into force (Check.pending_reboot) reaches the summary (STATUS=,
 * Summary) when another check is named first; named first, its own words say it. The field decides,
 * never the text. */
static const struct {
        const char *checks;     /* list_from()'s spec */
        const char *cmdline;    /* kernel.cmdline's pending_reboot, added last as a failure; NULL: none */
        const char *memlock;    /* rdma.memlock's, the same */
        const char *tail;       /* how the summary ends */
        const char *pending[5]; /* checks_pending_reboot(): id, what, ... */
} reboot_cases[] = {
        { "profile:p,link.a.mtu:f",
          "kernel command line: iommu=pt",
          NULL,
          "(and 1 more checks failing or warning); reboot required to bring into force: kernel command line: iommu=pt",
          { "kernel.cmdline", "kernel command line: iommu=pt" } },
        { "profile:p,link.a.mtu:f",
          "kernel command line: iommu=pt pcie_aspm=off",
          "memlock: unlimited for services from systemd's DefaultLimitMEMLOCK (/etc/x.conf:2), or `systemctl "
          "daemon-reexec`",
          "(and 2 more checks failing or warning); reboot required to bring into force: kernel command line: "
          "iommu=pt pcie_aspm=off and memlock: unlimited for services from systemd's DefaultLimitMEMLOCK "
          "(/etc/x.conf:2), or `systemctl daemon-reexec`",
          { "kernel.cmdline",
            "kernel command line: iommu=pt pcie_aspm=off",
            "rdma.memlock",
            "memlock: unlimited for services from systemd's DefaultLimitMEMLOCK (/etc/x.conf:2), or `systemctl "
            "daemon-reexec`" } },
        /* Named first: its own summary says it. */
        { "profile:p,link.a.mtu:p",
          "kernel command line: iommu=pt",
          NULL,
          "kernel.cmdline is f",
          { "kernel.cmdline", "kernel command line: iommu=pt" } },
        /* The words without the field: nothing pending (an older check's text is no fact). */
        { "profile:p,link.a.mtu:f,kernel.cmdline:f", NULL, NULL, "(and 1 more checks failing or warning)", {} },
};

static void add_pending(CheckList *l, const char *id, const char *what) {
        if (!what)
                return;
        ASSERT_OK(check_list_add(l, id, CHECK_FAIL, "", "", "%s is f", id));
        ASSERT_OK(check_list_set_pending_reboot(l, "%s", what));
}

static void test_summarize_reboot(void) {
        for (size_t i = 0; i < ELEMENTSOF(reboot_cases); i++) {
                _cleanup_(check_list_done) CheckList l = {};
                _cleanup_(strv_freep) char **pending = NULL;
                _cleanup_(freep) char *summary = NULL;
                size_t n = 0;
                Health h;

                list_from(reboot_cases[i].checks, &l);
                add_pending(&l, "kernel.cmdline", reboot_cases[i].cmdline);
                add_pending(&l, "rdma.memlock", reboot_cases[i].memlock);
                ASSERT_OK(checks_summarize(&l, false, &h, &summary));
                ASSERT_INT_EQ(h, HEALTH_DEGRADED);
                ASSERT_TRUE(strlen(summary) >= strlen(reboot_cases[i].tail));
                ASSERT_STR_EQ(summary + strlen(summary) - strlen(reboot_cases[i].tail), reboot_cases[i].tail);
                ASSERT_OK(checks_pending_reboot(&l, &pending));
                while (reboot_cases[i].pending[n])
                        n++;
                ASSERT_INT_EQ(strv_length(pending), n);
                for (size_t k = 0; k < n; k++)
                        ASSERT_STR_EQ(pending[k], reboot_cases[i].pending[k]);
        }
}

static void test_equal(void) {
        _cleanup_(check_list_done) CheckList a = {}, b = {}, c = {};

        list_from("profile:p,link.a.mtu:f", &a);
        list_from("profile:p,link.a.mtu:f", &b);
        list_from("profile:p,link.a.mtu:w", &c);
        ASSERT_TRUE(check_list_equal(&a, &b));
        ASSERT_TRUE(!check_list_equal(&a, &c));
        free(b.checks[1].actual);
        b.checks[1].actual = strdup("1500");
        ASSERT_TRUE(b.checks[1].actual);
        ASSERT_TRUE(!check_list_equal(&a, &b));

        /* What a reboot brings is published too (PendingReboot): a change of it is a change. */
        ASSERT_OK(check_list_set_pending_reboot(&c, "kernel command line: iommu=pt"));
        c.checks[1].outcome = CHECK_FAIL;
        ASSERT_TRUE(!check_list_equal(&a, &c));
}

int main(void) {
        test_merge();
        test_selection_for_drift();
        test_selection_covers_drift();
        test_summary();
        test_summarize_reboot();
        test_equal();
        return 0;
}
