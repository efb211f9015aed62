/* SPDX-License-Identifier: MIT */
/* The published check list after a run, and Health with its summary: pure decisions of the daemon's
 * verify, here so that case tables test them (tests/unit/test-verify-summary.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/macro.h"
#include "basic/strv.h"
#include "check/checks.h"
#include "check/verify-summary.h"

bool check_replaced_by_run(const char *id, const char *only, bool peers) {
        if (peers)
                return startswith(id, "peer.");
        /* The two kinds run apart (the peer checks by a job of their own), so each keeps the other's. */
        return !startswith(id, "peer.") && check_id_selected(id, only);
}

/* Whether a run replaces the published check c: own_id (the check a job of its own publishes) only
 * when the run brings it, or selects it alone (that job found nothing to check). */
static bool merge_replaces(const Check *c, const char *only, bool peers, const char *own_id, bool fresh_own) {
        if (!own_id || !streq(c->id, own_id))
                return check_replaced_by_run(c->id, only, peers);
        return !peers && (fresh_own || streq_ptr(only, own_id));
}

/* Where a local run's checks go when they replace none: before the peer checks, which a peer round
 * (another job) may have published first. */
static size_t first_peer_check(const CheckList *l) {
        for (size_t i = 0; i < l->n_checks; i++)
                if (startswith(l->checks[i].id, "peer."))
                        return i;
        return l->n_checks;
}

int check_list_merge(
        const CheckList *old, const char *only, bool peers, const char *own_id, CheckList *fresh, CheckList *ret) {
        CheckList merged = {};
        bool inserted = false;
        bool fresh_own = !peers && own_id && check_list_find(fresh, own_id);
        size_t at = peers ? old->n_checks : first_peer_check(old);
        int r;

        for (size_t i = 0; i < old->n_checks; i++)
                if (merge_replaces(&old->checks[i], only, peers, own_id, fresh_own)) {
                        at = i;
                        break;
                }
        for (size_t i = 0; i < old->n_checks; i++) {
                const Check *c = &old->checks[i];

                if (i == at && !inserted) {
                        r = check_list_take(&merged, fresh);
                        if (r < 0)
                                goto fail;
                        inserted = true;
                }
                if (merge_replaces(c, only, peers, own_id, fresh_own))
                        continue;
                r = check_list_add_copy(&merged, c);
                if (r < 0)
                        goto fail;
        }
        r = check_list_take(&merged, fresh);
        if (r < 0)
                goto fail;
        *ret = merged;
        return 0;
fail:
        check_list_done(&merged);
        return r;
}

/* Whether a verify that selected only (NULL: all) checked the logical link itself (its link.<link>.
 * checks): then it read what an event on that link changed. */
static bool check_selection_covers_link(const char *link, const char *only) {
        char id[CHECK_ID_MAX];
        int n = snprintf(id, sizeof(id), "link.%s.present", link);

        return n > 0 && (size_t) n < sizeof(id) && checks_group_selected("link.", only) &&
                check_id_selected(id, only);
}

/* The selection that re-checks the logical links (every link when links is NULL: a resync), for
 * checks_run()'s only. Returns 0 or -ENOMEM; *ret is "" when links is empty. */
static int check_selection_for_links(char *const *links, char **ret) {
        _cleanup_(strv_freep) char **prefixes = NULL;

        if (!links) {
                *ret = strdup("link.");
                return *ret ? 0 : -ENOMEM;
        }
        for (char *const *l = links; *l; l++)
                if (strv_extendf(&prefixes, "link.%s.", *l) < 0)
                        return -ENOMEM;
        *ret = prefixes ? strv_join(prefixes, ",") : strdup("");
        return *ret ? 0 : -ENOMEM;
}

/* The checks of a link that an address or route event can change: its addresses, and its routes (the
 * kernel drops the routes of an address it deletes). The others read what only a link event (flags,
 * MTU, name), firewalld, sysctl or files change: link.<link>.owner alone reads every networkd and
 * netplan file, which is most of a re-check's reads. */
static const char *const address_event_checks[] = { "address", "routes" };

int check_selection_for_drift(char *const *links, char *const *link_events, char **ret) {
        _cleanup_(strv_freep) char **prefixes = NULL;

        if (!links)
                return check_selection_for_links(NULL, ret);
        for (char *const *l = links; *l; l++) {
                if (strv_contains(link_events, *l)) {
                        if (strv_extendf(&prefixes, "link.%s.", *l) < 0)
                                return -ENOMEM;
                        continue;
                }
                for (size_t i = 0; i < ELEMENTSOF(address_event_checks); i++)
                        if (strv_extendf(&prefixes, "link.%s.%s", *l, address_event_checks[i]) < 0)
                                return -ENOMEM;
        }
        *ret = prefixes ? strv_join(prefixes, ",") : strdup("");
        return *ret ? 0 : -ENOMEM;
}

bool check_selection_covers_drift(const char *link, bool link_event, const char *only) {
        if (check_selection_covers_link(link, only))
                return true;
        if (link_event || !checks_group_selected("link.", only))
                return false;
        for (size_t i = 0; i < ELEMENTSOF(address_event_checks); i++) {
                char id[CHECK_ID_MAX];
                int n = snprintf(id, sizeof(id), "link.%s.%s", link, address_event_checks[i]);

                if (n <= 0 || (size_t) n >= sizeof(id) || !check_id_selected(id, only))
                        return false;
        }
        return true;
}

bool check_list_equal(const CheckList *a, const CheckList *b) {
        if (a->n_checks != b->n_checks)
                return false;
        for (size_t i = 0; i < a->n_checks; i++) {
                const Check *x = &a->checks[i], *y = &b->checks[i];

                if (x->outcome != y->outcome || !streq(x->id, y->id) || !streq(x->summary, y->summary) ||
                    !streq(x->expected, y->expected) || !streq(x->actual, y->actual) ||
                    !streq_ptr(x->pending_reboot, y->pending_reboot))
                        return false;
        }
        return true;
}

/* The peers whose probes had not ended when their round did (see check-peer.h): their
 * peer.<node>.reachable check is pending. */
static size_t count_pending_peers(const CheckList *l) {
        size_t n = 0;

        for (size_t i = 0; i < l->n_checks; i++) {
                const Check *c = &l->checks[i];
                size_t len = strlen(c->id), suffix = strlen(".reachable");

                if (c->pending && startswith(c->id, "peer.") && len > suffix &&
                    streq(c->id + len - suffix, ".reachable"))
                        n++;
        }
        return n;
}

/* Names the worst check first: that is what the person reading STATUS= has to fix. */
static const Check *worst_check(const CheckList *l) {
        for (int o = CHECK_FAIL; o >= CHECK_WARN; o--)
                for (size_t i = 0; i < l->n_checks; i++)
                        if ((int) l->checks[i].outcome == o)
                                return &l->checks[i];
        return NULL;
}

int checks_pending_reboot(const CheckList *l, char ***ret) {
        _cleanup_(strv_freep) char **pairs = NULL;

        for (size_t i = 0; i < l->n_checks; i++)
                if (l->checks[i].pending_reboot &&
                    (strv_extend(&pairs, l->checks[i].id) < 0 ||
                     strv_extend(&pairs, l->checks[i].pending_reboot) < 0))
                        return -ENOMEM;
        *ret = TAKE_PTR(pairs);
        return 0;
}

/* "; reboot required to bring into force: ..." for what the checks other than first say a reboot
 * brings; first's own summary says it for itself. "" when nothing. */
static int reboot_tail(const CheckList *l, const Check *first, char **ret) {
        _cleanup_(strv_freep) char **what = NULL;
        _cleanup_(freep) char *list = NULL;

        for (size_t i = 0; i < l->n_checks; i++)
                if (l->checks[i].pending_reboot && &l->checks[i] != first &&
                    strv_extend(&what, l->checks[i].pending_reboot) < 0)
                        return -ENOMEM;
        if (!what) {
                *ret = strdup("");
                return *ret ? 0 : -ENOMEM;
        }
        list = strv_join(what, " and ");
        if (!list || asprintf(ret, "; reboot required to bring into force: %s", list) < 0)
                return -ENOMEM;
        return 0;
}

int checks_summarize(const CheckList *l, bool run_failed, Health *ret_health, char **ret_summary) {
        size_t n_pass = check_list_count(l, CHECK_PASS), n_skip = check_list_count(l, CHECK_SKIP);
        size_t n_bad = l->n_checks - n_pass - n_skip, n_pending = count_pending_peers(l);
        const Check *profile = check_list_find(l, "profile"), *first;
        _cleanup_(freep) char *reboot = NULL;
        char skipped[64] = "", pending[64] = "";
        int r;

        if (run_failed) {
                *ret_health = HEALTH_FAILED;
                *ret_summary = strdup("failed: the checks could not run, see the journal");
                return *ret_summary ? 0 : -ENOMEM;
        }

        if (n_pending > 0)
                (void) snprintf(
                        pending,
                        sizeof(pending),
                        "; %zu peer%s still being probed",
                        n_pending,
                        n_pending == 1 ? "" : "s");

        if (n_bad == 0) {
                if (n_skip > 0)
                        (void) snprintf(skipped, sizeof(skipped), ", %zu skipped", n_skip);
                *ret_health = HEALTH_HEALTHY;
                r = asprintf(ret_summary, "healthy: %zu/%zu checks pass%s%s", n_pass, n_pass, skipped, pending);
                return r < 0 ? -ENOMEM : 0;
        }

        first = worst_check(l);
        r = reboot_tail(l, first, &reboot);
        if (r < 0)
                return r;
        *ret_health = profile && profile->outcome == CHECK_FAIL ? HEALTH_FAILED : HEALTH_DEGRADED;
        if (n_bad > 1)
                r = asprintf(
                        ret_summary,
                        "%s: %s: %s (and %zu more checks failing or warning%s)%s",
                        health_to_string(*ret_health),
                        first->id,
                        first->summary,
                        n_bad - 1,
                        pending,
                        reboot);
        else
                r = asprintf(
                        ret_summary,
                        "%s: %s: %s%s%s",
                        health_to_string(*ret_health),
                        first->id,
                        first->summary,
                        pending,
                        reboot);
        return r < 0 ? -ENOMEM : 0;
}
