/* SPDX-License-Identifier: MIT */
/* Verifying: run the checks, merge them into the published list, judge Health, announce changes. */
#include <malloc.h>
#include <systemd/sd-daemon.h>

#include "basic/strv.h"
#include "check/checks.h"
#include "check/verify-summary.h"
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
        _cleanup_(published_checks_unrefp) PublishedChecks *published = NULL, *previous = NULL;
        _cleanup_(strv_freep) char **changed = NULL, **reboot = NULL;
        _cleanup_(freep) char *summary = NULL;
        _cleanup_(freep) const Check **old = NULL;
        const CheckList *current = published_checks_list(m->checks), *next;
        bool drift = m->health != HEALTH_STARTING;
        Health health, old_health = m->health;
        int r;

        /* The helper check is the hosts job's (manager-job-hosts.c): a verify keeps the one published. */
        r = check_list_merge(current, only, peers, HELPER_CHECK_ID, fresh, &merged);
        if (r < 0)
                return r;
        r = checks_summarize(&merged, m->run_failed, &health, &summary);
        if (r < 0)
                return r;
        r = checks_pending_reboot(&merged, &reboot);
        if (r < 0)
                return r;
        r = index_checks(current, &old);
        if (r < 0)
                return r;
        /* Shared from here on with the export jobs, which borrow it rather than copy it. */
        r = published_checks_new(&merged, &published);
        if (r < 0)
                return r;
        next = &published->list;

        /* The bus first, the journal after: a client waiting for the signal does not wait for the
         * journal's socket. */
        for (size_t i = 0; i < next->n_checks; i++) {
                const Check *c = &next->checks[i], *o = find_indexed(old, current->n_checks, c->id);

                if (!o || o->outcome != c->outcome)
                        manager_bus_emit_check_changed(m, c, o ? check_outcome_to_string(o->outcome) : "");
        }

        if (!check_list_equal(current, next))
                (void) strv_extend(&changed, "Checks");
        if (health != m->health)
                (void) strv_extend(&changed, "Health");
        if (!streq(summary, m->summary))
                (void) strv_extend(&changed, "Summary");
        if (!strv_equal(reboot, m->pending_reboot))
                (void) strv_extend(&changed, "PendingReboot");
        (void) strv_extend(&changed, "LastVerifyUSec");

        /* The old list stays until the journal has compared with it (old points into it). */
        previous = m->checks;
        m->checks = TAKE_PTR(published);
        free(m->summary);
        m->summary = TAKE_PTR(summary);
        strv_free(m->pending_reboot);
        m->pending_reboot = TAKE_PTR(reboot);
        m->last_verify_usec = now(CLOCK_REALTIME);
        m->health = health;
        manager_bus_emit_changed(m, changed);

        for (size_t i = 0; i < next->n_checks; i++)
                manager_journal_transition(
                        m, &next->checks[i], find_indexed(old, current->n_checks, next->checks[i].id), drift);
        if (health != old_health)
                log_struct(
                        health == HEALTH_HEALTHY ? LOG_NOTICE : LOG_WARNING,
                        NULL,
                        "Health %s → %s: %s",
                        health_to_string(old_health),
                        health_to_string(health),
                        m->summary);
        if (strv_contains(changed, "Summary"))
                (void) sd_notifyf(false, "STATUS=%s", m->summary);

        /* What the other nodes' probes hear from this one. */
        manager_peer_channel_set_health(m);
        manager_export(m, /* local= */ !peers);
        return 0;
}

int manager_publish_local_checks(Manager *m, const char *only, int r, CheckList *fresh, bool kernel_read) {
        if (r < 0)
                log_error_errno(r, "Failed to run the checks: %m");
        m->run_failed = r < 0;

        r = manager_publish_checks(m, only, /* peers= */ false, fresh);
        if (r < 0)
                return r;
        if (kernel_read)
                manager_watch_verified(m, only);

        /* A full verify probes the peers too, off the loop: they join the published list when in. */
        if (isempty(only))
                manager_peers_request(m);
        /* Give back what a run needed only for a moment (a burst of bus messages, a reload's YAML
         * parser): otherwise the heap keeps its high-water mark for the months halod runs. */
        (void) malloc_trim(0);
        return 0;
}
