/* SPDX-License-Identifier: MIT */
/* Verifying: run the checks, merge them into the published list, judge Health, announce changes. */
#include <malloc.h>
#include <systemd/sd-daemon.h>

#include "basic/strv.h"
#include "check/checks.h"
#include "log.h"
#include "manager-bus.h"
#include "manager-export.h"
#include "manager-helper.h"
#include "manager-journal.h"
#include "manager-peer-channel.h"
#include "manager-peers.h"
#include "manager-verify.h"
#include "manager-watch.h"
#include "manager.h"

/* Whether a fresh run replaces the published check id: a peer run replaces every peer check, a local
 * run the local checks selected by only. The two kinds are run apart (the peer checks by a thread,
 * see manager-peers.c), so each keeps the other's checks in place. */
static bool replaced_by(const char *id, const char *only, bool peers) {
        if (peers)
                return startswith(id, "peer.");
        return !startswith(id, "peer.") && check_id_selected(id, only);
}

/* Builds the published list: the old one with the checks that the fresh run replaces replaced in
 * place by the fresh ones. */
static int merge_checks(const CheckList *old, const char *only, bool peers, CheckList *fresh, CheckList *ret) {
        CheckList merged = {};
        bool inserted = false;
        /* Every local run says what it found of the helper's part (manager-helper.c), whatever it selects. */
        bool fresh_helper = !peers && check_list_find(fresh, HELPER_CHECK_ID);
        int r;

        for (size_t i = 0; i < old->n_checks; i++) {
                const Check *c = &old->checks[i];

                if (replaced_by(c->id, only, peers) || (fresh_helper && streq(c->id, HELPER_CHECK_ID))) {
                        if (!inserted) {
                                r = check_list_take(&merged, fresh);
                                if (r < 0)
                                        goto fail;
                                inserted = true;
                        }
                        continue;
                }
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

static bool checks_equal(const CheckList *a, const CheckList *b) {
        if (a->n_checks != b->n_checks)
                return false;
        for (size_t i = 0; i < a->n_checks; i++) {
                const Check *x = &a->checks[i], *y = &b->checks[i];

                if (x->outcome != y->outcome || !streq(x->id, y->id) || !streq(x->summary, y->summary) ||
                    !streq(x->expected, y->expected) || !streq(x->actual, y->actual))
                        return false;
        }
        return true;
}

/* The peers whose probes had not ended when their round did (see check-peer.h): peer.<node>.reachable
 * skipped with the actual value "pending". */
static size_t count_pending_peers(const CheckList *l) {
        size_t n = 0;

        for (size_t i = 0; i < l->n_checks; i++) {
                const Check *c = &l->checks[i];
                size_t len = strlen(c->id), suffix = strlen(".reachable");

                if (c->outcome == CHECK_SKIP && streq(c->actual, "pending") && startswith(c->id, "peer.") &&
                    len > suffix && streq(c->id + len - suffix, ".reachable"))
                        n++;
        }
        return n;
}

static int summarize(const CheckList *l, bool run_failed, Health *ret_health, char **ret_summary) {
        size_t n_pass = check_list_count(l, CHECK_PASS), n_skip = check_list_count(l, CHECK_SKIP);
        size_t n_bad = l->n_checks - n_pass - n_skip, n_pending = count_pending_peers(l);
        const Check *profile = check_list_find(l, "profile"), *first = NULL;
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

        /* Name the worst check first: that is what the person reading STATUS= has to fix. */
        for (int o = CHECK_FAIL; o >= CHECK_WARN && !first; o--)
                for (size_t i = 0; i < l->n_checks && !first; i++)
                        if ((int) l->checks[i].outcome == o)
                                first = &l->checks[i];

        *ret_health = profile && profile->outcome == CHECK_FAIL ? HEALTH_FAILED : HEALTH_DEGRADED;
        if (n_bad > 1)
                r = asprintf(
                        ret_summary,
                        "%s: %s: %s (and %zu more checks failing or warning%s)",
                        health_to_string(*ret_health),
                        first->id,
                        first->summary,
                        n_bad - 1,
                        pending);
        else
                r = asprintf(
                        ret_summary,
                        "%s: %s: %s%s",
                        health_to_string(*ret_health),
                        first->id,
                        first->summary,
                        pending);
        return r < 0 ? -ENOMEM : 0;
}

static int compare_check_ids(const void *a, const void *b) {
        return strcmp((*(const Check *const *) a)->id, (*(const Check *const *) b)->id);
}

/* The checks of l by id, for lookups in O(log n): with a thousand peers, the published list holds four
 * thousand checks, and a linear search per check would hold the loop for tens of milliseconds. */
static int index_checks(const CheckList *l, const Check ***ret) {
        const Check **v = calloc(l->n_checks > 0 ? l->n_checks : 1, sizeof(Check *));

        if (!v)
                return -ENOMEM;
        for (size_t i = 0; i < l->n_checks; i++)
                v[i] = &l->checks[i];
        qsort(v, l->n_checks, sizeof(Check *), compare_check_ids);
        *ret = v;
        return 0;
}

static const Check *find_indexed(const Check **index, size_t n, const char *id) {
        Check key = { .id = (char *) id };
        const Check *k = &key, **found = bsearch(&k, index, n, sizeof(Check *), compare_check_ids);

        return found ? *found : NULL;
}

int manager_publish_checks(Manager *m, const char *only, bool peers, CheckList *fresh) {
        _cleanup_(check_list_done) CheckList merged = {};
        _cleanup_(strv_freep) char **changed = NULL;
        _cleanup_(freep) char *summary = NULL;
        _cleanup_(freep) const Check **old = NULL;
        bool drift = m->health != HEALTH_STARTING;
        Health health;
        int r;

        r = merge_checks(&m->checks, only, peers, fresh, &merged);
        if (r < 0)
                return r;
        r = summarize(&merged, m->run_failed, &health, &summary);
        if (r < 0)
                return r;
        r = index_checks(&m->checks, &old);
        if (r < 0)
                return r;

        for (size_t i = 0; i < merged.n_checks; i++) {
                const Check *c = &merged.checks[i], *o = find_indexed(old, m->checks.n_checks, c->id);

                manager_journal_transition(m, c, o, drift);
                if (!o || o->outcome != c->outcome)
                        manager_bus_emit_check_changed(m, c, o ? check_outcome_to_string(o->outcome) : "");
        }

        if (!checks_equal(&m->checks, &merged))
                (void) strv_extend(&changed, "Checks");
        if (health != m->health)
                (void) strv_extend(&changed, "Health");
        if (!streq(summary, m->summary))
                (void) strv_extend(&changed, "Summary");
        (void) strv_extend(&changed, "LastVerifyUSec");

        check_list_done(&m->checks);
        m->checks = merged;
        merged = (CheckList){};
        free(m->summary);
        m->summary = TAKE_PTR(summary);
        m->last_verify_usec = now(CLOCK_REALTIME);

        if (health != m->health) {
                log_struct(
                        health == HEALTH_HEALTHY ? LOG_NOTICE : LOG_WARNING,
                        NULL,
                        "Health %s → %s: %s",
                        health_to_string(m->health),
                        health_to_string(health),
                        m->summary);
                m->health = health;
        }
        if (strv_contains(changed, "Summary"))
                (void) sd_notifyf(false, "STATUS=%s", m->summary);
        manager_bus_emit_changed(m, changed);

        /* What the other nodes' probes hear from this one. */
        manager_peer_channel_set_health(m);
        manager_export(m, /* local= */ !peers);
        return 0;
}

int manager_publish_local_checks(Manager *m, const char *only, int r, CheckList *fresh, const Snapshot *s) {
        if (r < 0)
                log_error_errno(r, "Failed to run the checks: %m");
        m->run_failed = r < 0;

        r = manager_publish_checks(m, only, /* peers= */ false, fresh);
        if (r < 0)
                return r;
        if (s)
                manager_watch_verified(m, only, s);

        /* A full verify probes the peers too, off the loop: they join the published list when in. */
        if (isempty(only))
                manager_peers_request(m);
        /* Give back what a run needed only for a moment (a burst of bus messages, a reload's YAML
         * parser): otherwise the heap keeps its high-water mark for the months halod runs. */
        (void) malloc_trim(0);
        return 0;
}
