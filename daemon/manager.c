/* SPDX-License-Identifier: MIT */
/* The Manager's lifecycle: setup, start, reload, verify and apply, and what each announces. */
#include <limits.h>
#include <signal.h>
#include <systemd/sd-daemon.h>
#include <time.h>

#include "apply.h"
#include "checks.h"
#include "manager.h"
#include "strv.h"

static const char *const health_table[_HEALTH_MAX] = {
        [HEALTH_STARTING] = "starting",
        [HEALTH_HEALTHY] = "healthy",
        [HEALTH_DEGRADED] = "degraded",
        [HEALTH_FAILED] = "failed",
};

const char *health_to_string(Health h) {
        if (h < 0 || h >= _HEALTH_MAX)
                return NULL;
        return health_table[h];
}

Health health_from_string(const char *s) {
        for (int i = 0; i < _HEALTH_MAX; i++)
                if (s && streq(s, health_table[i]))
                        return i;
        return _HEALTH_INVALID;
}

static usec_t now_usec(clockid_t clock) {
        struct timespec ts;

        (void) clock_gettime(clock, &ts);
        return (usec_t) ts.tv_sec * USEC_PER_SEC + (usec_t) ts.tv_nsec / 1000;
}

int manager_new(Manager **ret) {
        Manager *m;

        m = calloc(1, sizeof(Manager));
        if (!m)
                return -ENOMEM;
        m->host = HOST_SYSTEM;
        m->health = HEALTH_STARTING;
        m->summary = strdup("starting");
        if (!m->summary)
                return manager_free(m), -ENOMEM;
        *ret = m;
        return 0;
}

Manager *manager_free(Manager *m) {
        if (!m)
                return NULL;
        manager_watch_done(m);
        sd_bus_flush_close_unref(m->bus);
        sd_event_unref(m->event);
        profile_free(m->profile);
        check_list_done(&m->checks);
        free(m->summary);
        free(m->last_apply_error);
        free(m->profile_path);
        free(m->node_name);
        free(m->backend_name);
        return mfree(m);
}

static int on_sigterm(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata) {
        Manager *m = userdata;

        (void) sd_notify(false, "STOPPING=1\nSTATUS=stopping");
        log_info("Received %s, stopping.", strsignal((int) si->ssi_signo));
        return sd_event_exit(m->event, 0);
}

static int on_sighup(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata) {
        (void) manager_reload(userdata, NULL);
        return 0;
}

int manager_setup(Manager *m) {
        int r;

        r = sd_event_default(&m->event);
        if (r < 0)
                return log_error_errno(r, "Failed to allocate the event loop: %m");

        r = sd_event_add_signal(m->event, NULL, SIGTERM | SD_EVENT_SIGNAL_PROCMASK, on_sigterm, m);
        if (r >= 0)
                r = sd_event_add_signal(m->event, NULL, SIGINT | SD_EVENT_SIGNAL_PROCMASK, on_sigterm, m);
        if (r >= 0)
                r = sd_event_add_signal(m->event, NULL, SIGHUP | SD_EVENT_SIGNAL_PROCMASK, on_sighup, m);
        if (r < 0)
                return log_error_errno(r, "Failed to watch SIGTERM, SIGINT and SIGHUP: %m");

        /* Pings the service manager at half of WatchdogSec=, and does nothing without it. */
        r = sd_event_set_watchdog(m->event, true);
        if (r < 0)
                return log_error_errno(r, "Failed to enable the watchdog: %m");

        /* Subscribe to rtnetlink before the first verify, so that no change slips between the two. */
        r = manager_watch_setup(m);
        if (r < 0)
                return r;

        return manager_bus_setup(m);
}

/* Loads and validates a profile and picks this machine's node in it. On failure every reason is
 * in ret_error, one per line, and nothing has changed. */
static int load_profile_and_node(
        Manager *m, Profile **ret_profile, const ProfileNode **ret_node, char **ret_error) {
        _cleanup_(profile_freep) Profile *p = NULL;
        _cleanup_(strv_freep) char **errors = NULL;
        _cleanup_(freep) struct in_addr *addresses = NULL;
        char hostname[HOST_NAME_MAX + 1] = {};
        const ProfileNode *node = NULL;
        size_t n_addresses = 0;
        int r;

        r = profile_load_file(m->profile_path, &p, &errors);
        if (r < 0) {
                if (strv_length(errors) == 0 &&
                    strv_extendf(&errors, "%s: %s", m->profile_path, strerror(-r)) < 0)
                        return -ENOMEM;
                *ret_error = strv_join(errors, "\n");
                return *ret_error ? r : -ENOMEM;
        }

        (void) gethostname(hostname, sizeof(hostname) - 1);
        r = local_ipv4_addresses(&addresses, &n_addresses);
        if (r < 0)
                log_warning_errno(
                        r, "Failed to read this host's IPv4 addresses, picking the node without them: %m");

        r = profile_select_node(p, m->node_name, hostname, addresses, n_addresses, &node, ret_error);
        if (r < 0)
                return r;

        *ret_node = node;
        *ret_profile = TAKE_PTR(p);
        return 0;
}

static void log_profile_rejected(Manager *m, const char *errors) {
        LogFields f = { .message_id = HALOD_MESSAGE_PROFILE_REJECTED };
        const char *p = errors;

        /* One line per error, so that each names its file:line:column. */
        while (p && *p) {
                size_t n = strcspn(p, "\n");

                log_error("%.*s", (int) n, p);
                p += n;
                if (*p == '\n')
                        p++;
        }
        log_struct(
                LOG_ERR,
                &f,
                "Profile %s rejected%s; fix the errors above and reload (haloctl reload or systemctl reload halod).",
                m->profile_path,
                m->profile ? ", the previous profile stays in force" : "");
}

static const Backend *pick_backend(Manager *m) {
        if (m->backend_name)
                return backend_by_name(m->backend_name);
        return backend_pick();
}

static void notify_status(Manager *m, const char *prefix) {
        (void) sd_notifyf(false, "%sSTATUS=%s", strempty(prefix), m->summary);
}

int manager_start(Manager *m) {
        _cleanup_(freep) char *error = NULL;
        int r;

        r = load_profile_and_node(m, &m->profile, &m->node, &error);
        if (r < 0) {
                log_profile_rejected(m, error);
                (void) sd_notifyf(
                        false, "STATUS=failed: profile %s rejected, see the journal", m->profile_path);
                return -EINVAL;
        }

        m->backend = pick_backend(m);
        if (!m->backend) {
                log_error("Unknown backend '%s': expected networkmanager or netlink.", m->backend_name);
                return -EINVAL;
        }
        log_info(
                "Profile %s in force: cluster %s, node %s, mode %s, backend %s.",
                m->profile_path,
                m->profile->cluster,
                m->node->name,
                profile_mode_to_string(m->profile->mode),
                m->backend->name);

        if (m->profile->mode == PROFILE_MODE_ENFORCE) {
                _cleanup_(freep) char *apply_error = NULL;

                /* A failed apply is not fatal: the checks say what is wrong, and the watch retries. */
                (void) manager_apply(m, &apply_error);
        }

        r = manager_verify(m, NULL);
        if (r < 0)
                return log_error_errno(r, "Failed to run the checks: %m");

        r = manager_watch_reset(m);
        if (r < 0)
                return r;

        notify_status(m, "READY=1\n");
        return 0;
}

static char **changed_identity(const Profile *op, const ProfileNode *on, const Backend *ob, Manager *m) {
        char **l = NULL;

        if (!op || !streq_ptr(op->cluster, m->profile->cluster))
                (void) strv_extend(&l, "Cluster");
        if (!on || !streq_ptr(on->name, m->node->name))
                (void) strv_extend(&l, "Node");
        if (!op || op->mode != m->profile->mode)
                (void) strv_extend(&l, "Mode");
        if (ob != m->backend)
                (void) strv_extend(&l, "Backend");
        return l;
}

int manager_reload(Manager *m, char **ret_error) {
        _cleanup_(profile_freep) Profile *old = NULL;
        _cleanup_(strv_freep) char **changed = NULL;
        _cleanup_(freep) char *error = NULL;
        const Backend *old_backend = m->backend, *backend;
        const ProfileNode *old_node = m->node, *node = NULL;
        Profile *p = NULL;
        LogFields f = { .message_id = HALOD_MESSAGE_PROFILE_RELOADED };
        int r;

        (void) sd_notifyf(
                false, "RELOADING=1\nMONOTONIC_USEC=%llu", (unsigned long long) now_usec(CLOCK_MONOTONIC));

        r = load_profile_and_node(m, &p, &node, &error);
        if (r >= 0 && !(backend = pick_backend(m))) {
                profile_free(p);
                r = -EINVAL;
                error = strdup("no usable network backend");
        }
        if (r < 0) {
                log_profile_rejected(m, error);
                notify_status(m, "READY=1\n");
                if (ret_error)
                        *ret_error = TAKE_PTR(error);
                return -EINVAL;
        }

        old = TAKE_PTR(m->profile);
        m->profile = p;
        m->node = node;
        m->backend = backend;
        changed = changed_identity(old, old_node, old_backend, m);
        manager_bus_emit_changed(m, changed);

        log_struct(
                LOG_NOTICE,
                &f,
                "Profile %s reloaded: cluster %s, node %s, mode %s, backend %s.",
                m->profile_path,
                m->profile->cluster,
                m->node->name,
                profile_mode_to_string(m->profile->mode),
                m->backend->name);

        if (m->profile->mode == PROFILE_MODE_ENFORCE) {
                _cleanup_(freep) char *apply_error = NULL;

                (void) manager_apply(m, &apply_error);
        }
        r = manager_verify(m, NULL);
        if (r < 0)
                log_error_errno(r, "Failed to run the checks after reloading: %m");
        (void) manager_watch_reset(m);
        notify_status(m, "READY=1\n");
        return 0;
}

/* The `profile` check, unless a check group already reports it. */
static int add_profile_check(Manager *m, CheckList *l) {
        char addr[IPV4_PREFIX_STRING_MAX];
        _cleanup_(freep) char *actual = NULL;

        if (check_list_find(l, "profile"))
                return 0;
        if (asprintf(&actual, "%s node %s", m->profile_path, m->node->name) < 0)
                return -ENOMEM;
        return check_list_add(
                l,
                "profile",
                CHECK_PASS,
                NULL,
                actual,
                "Profile %s valid, this host is node %s (%zu link%s%s%s)",
                m->profile_path,
                m->node->name,
                m->node->n_links,
                m->node->n_links == 1 ? "" : "s",
                m->node->n_links > 0 ? ", first " : "",
                m->node->n_links > 0 ? ipv4_prefix_to_string(&m->node->links[0].address, addr) : "");
}

/* Builds the published list: the old one with the checks selected by only replaced in place by the
 * fresh ones. */
static int merge_checks(const CheckList *old, const char *only, CheckList *fresh, CheckList *ret) {
        CheckList merged = {};
        bool inserted = false;
        int r;

        for (size_t i = 0; i < old->n_checks; i++) {
                const Check *c = &old->checks[i];

                if (check_id_selected(c->id, only)) {
                        if (!inserted) {
                                r = check_list_take(&merged, fresh);
                                if (r < 0)
                                        goto fail;
                                inserted = true;
                        }
                        continue;
                }
                r = check_list_add(&merged, c->id, c->outcome, c->expected, c->actual, "%s", c->summary);
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

static int summarize(const CheckList *l, bool run_failed, Health *ret_health, char **ret_summary) {
        size_t n_pass = check_list_count(l, CHECK_PASS), n_skip = check_list_count(l, CHECK_SKIP);
        size_t n_bad = l->n_checks - n_pass - n_skip;
        const Check *profile = check_list_find(l, "profile"), *first = NULL;
        char skipped[64] = "";
        int r;

        if (run_failed) {
                *ret_health = HEALTH_FAILED;
                *ret_summary = strdup("failed: the checks could not run, see the journal");
                return *ret_summary ? 0 : -ENOMEM;
        }

        if (n_bad == 0) {
                if (n_skip > 0)
                        (void) snprintf(skipped, sizeof(skipped), ", %zu skipped", n_skip);
                *ret_health = HEALTH_HEALTHY;
                r = asprintf(ret_summary, "healthy: %zu/%zu checks pass%s", n_pass, n_pass, skipped);
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
                        "%s: %s: %s (and %zu more)",
                        health_to_string(*ret_health),
                        first->id,
                        first->summary,
                        n_bad - 1);
        else
                r = asprintf(
                        ret_summary, "%s: %s: %s", health_to_string(*ret_health), first->id, first->summary);
        return r < 0 ? -ENOMEM : 0;
}

int manager_verify(Manager *m, const char *only) {
        _cleanup_(check_list_done) CheckList fresh = {}, merged = {};
        _cleanup_(strv_freep) char **changed = NULL;
        _cleanup_(freep) char *summary = NULL;
        CheckContext ctx = { .host = &m->host, .profile = m->profile, .node = m->node };
        Health health;
        int r, run_r;

        if (!m->profile)
                return -ESTALE;

        run_r = checks_run(&ctx, only, &fresh);
        if (run_r >= 0 && check_id_selected("profile", only))
                run_r = add_profile_check(m, &fresh);
        if (run_r < 0)
                log_error_errno(run_r, "Failed to run the checks: %m");

        r = merge_checks(&m->checks, only, &fresh, &merged);
        if (r < 0)
                return r;
        r = summarize(&merged, run_r < 0, &health, &summary);
        if (r < 0)
                return r;

        manager_journal_transitions(m, &m->checks, &merged, m->health != HEALTH_STARTING);
        for (size_t i = 0; i < merged.n_checks; i++) {
                const Check *c = &merged.checks[i], *o = check_list_find(&m->checks, c->id);

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
        m->last_verify_usec = now_usec(CLOCK_REALTIME);

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
                notify_status(m, NULL);
        manager_bus_emit_changed(m, changed);
        return 0;
}

int manager_apply(Manager *m, char **ret_error) {
        _cleanup_(strv_freep) char **changes = NULL;
        _cleanup_(freep) char *error = NULL;
        CheckContext ctx = { .host = &m->host, .profile = m->profile, .node = m->node };
        char *l[] = { (char *) "LastApplyUSec", NULL };
        int r;

        if (!m->profile)
                return -ESTALE;

        r = apply_node(&ctx, m->backend, &changes, &error);
        if (r < 0) {
                if (!error)
                        error = strdup(strerror(-r));
                /* The watch retries; say it once until the reason changes. */
                if (!streq_ptr(error, m->last_apply_error))
                        log_error(
                                "Failed to apply the profile through %s: %s. Fix what it names, then run "
                                "`haloctl apply`.",
                                m->backend->name,
                                strna(error));
                free(m->last_apply_error);
                m->last_apply_error = error ? strdup(error) : NULL;
                if (ret_error)
                        *ret_error = TAKE_PTR(error);
                return r;
        }
        m->last_apply_error = mfree(m->last_apply_error);

        STRV_FOREACH(c, changes) {
                char link[256];
                LogFields f = {
                        .message_id = HALOD_MESSAGE_APPLIED,
                        .link = link,
                };
                size_t n = strcspn(*c, " :");

                (void) snprintf(link, sizeof(link), "%.*s", (int) n, *c);
                log_struct(LOG_NOTICE, &f, "Applied through %s: %s", m->backend->name, *c);
        }

        m->last_apply_usec = now_usec(CLOCK_REALTIME);
        manager_bus_emit_changed(m, l);
        return (int) strv_length(changes);
}
