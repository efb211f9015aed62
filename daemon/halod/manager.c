/* SPDX-License-Identifier: MIT */
/* The Manager's lifecycle: setup, start, reload and apply, and the profile and node in force. */
#include <limits.h>
#include <malloc.h>
#include <signal.h>
#include <systemd/sd-daemon.h>

#include "apply/apply.h"
#include "basic/strv.h"
#include "check/checks.h"
#include "log.h"
#include "manager-bus.h"
#include "manager-export.h"
#include "manager-helper-watch.h"
#include "manager-job-load.h"
#include "manager-job-verify.h"
#include "manager-job.h"
#include "manager-nic-runtime.h"
#include "manager-peer-channel.h"
#include "manager-peers.h"
#include "manager-verify.h"
#include "manager-watch.h"
#include "manager.h"
#include "profile/profile-trust.h"

int manager_new(Manager **ret) {
        Manager *m;

        m = calloc(1, sizeof(Manager));
        if (!m)
                return -ENOMEM;
        m->host = HOST_SYSTEM;
        m->health = HEALTH_STARTING;
        m->probe_guard_fd = -EBADF;
        m->inherited_udp_fd = m->inherited_tcp_fd = -EBADF;
        manager_peer_channel_inherit(m);
        m->host_jobs = (JobLane){ .name = "host", .idle = manager_watch_host_idle };
        m->peer_jobs = (JobLane){ .name = "peer" };
        m->summary = strdup("starting");
        if (!m->summary)
                return manager_free(m), -ENOMEM;
        *ret = m;
        return 0;
}

Manager *manager_free(Manager *m) {
        if (!m)
                return NULL;
        /* Promptly: a worker stuck in a blocking call is left to the exit, and so is everything it may
         * still read (the manager's state), rather than holding the stop for it. */
        job_lane_stop(&m->host_jobs, JOB_STOP_GRACE_USEC);
        manager_peers_done(m);
        if (m->host_jobs.abandoned || m->peer_jobs.abandoned)
                return NULL;
        /* After the worker, which may be writing it; only when this halod did (a second one that is
         * refused the bus name must not take the first one's away). */
        manager_export_remove(m);
        m->verified = verified_facts_unref(m->verified);
        manager_peer_channel_done(m);
        manager_watch_done(m);
        manager_helper_watch_done(m);
        manager_bus_waiters_free(m);
        sd_bus_flush_close_unref(m->bus);
        sd_event_unref(m->event);
        profile_free(m->profile);
        m->checks = published_checks_unref(m->checks);
        check_history_done(&m->history);
        fabric_transport_state_done(&m->transport_published);
        free(m->summary);
        strv_free(m->pending_reboot);
        free(m->last_apply_error);
        free(m->fabric_env_error);
        free(m->cdi_spec_error);
        helper_state_done(&m->helper);
        free(m->cdi_dir);
        free(m->metrics_error);
        free(m->runtime_dir);
        free(m->profile_path);
        free(m->node_name);
        free(m->backend_name);
        free(m->backend_reason);
        return mfree(m);
}

static int on_sigterm(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata) {
        Manager *m = userdata;

        (void) sd_notify(false, "STOPPING=1\nSTATUS=stopping");
        log_info("Received %s, stopping.", strsignal((int) si->ssi_signo));
        return sd_event_exit(m->event, 0);
}

static int on_sighup(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata) {
        int r;

        r = manager_reload(userdata, /* done= */ NULL, NULL, NULL);
        if (r < 0)
                log_error_errno(r, "Failed to reload the profile: %m");
        return 0;
}

int manager_inputs_capture(const Manager *m, ManagerInputs *ret) {
        if (!m->profile)
                return -ESTALE;
        *ret = (ManagerInputs){
                .host = m->host,
                .profile = m->profile,
                .node = m->node,
                .backend = m->backend,
        };
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

        r = manager_bus_setup(m);
        if (r < 0)
                return r;
        return manager_watch_bus_setup(m);
}

int manager_load_profile(
        const char *path,
        const char *node_name,
        Profile **ret_profile,
        const ProfileNode **ret_node,
        char **ret_error) {
        _cleanup_(profile_freep) Profile *p = NULL;
        _cleanup_(strv_freep) char **errors = NULL;
        _cleanup_(freep) struct in_addr *addresses = NULL;
        char hostname[HOST_NAME_MAX + 1] = {};
        const ProfileNode *node = NULL;
        size_t n_addresses = 0;
        int r;

        /* A profile that someone other than root could have written must not configure this machine:
         * judged on the descriptor that is read, so that nothing can be swapped in meanwhile. */
        r = profile_load_trusted(path, &p, &errors);
        if (r < 0) {
                if (strv_length(errors) == 0 && strv_extendf(&errors, "%s: %s", path, strerror(-r)) < 0)
                        return -ENOMEM;
                *ret_error = strv_join(errors, "\n");
                return *ret_error ? r : -ENOMEM;
        }

        (void) gethostname(hostname, sizeof(hostname) - 1);
        r = local_ipv4_addresses(&addresses, &n_addresses);
        if (r < 0)
                log_warning_errno(
                        r, "Failed to read this host's IPv4 addresses, picking the node without them: %m");

        r = profile_select_node(p, node_name, hostname, addresses, n_addresses, &node, ret_error);
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
        if (m->profile)
                log_struct(
                        LOG_ERR,
                        &f,
                        "Profile %s rejected, the previous profile stays in force; fix the errors above and "
                        "reload (haloctl reload, or systemctl reload halod).",
                        m->profile_path);
        else
                log_struct(
                        LOG_ERR,
                        &f,
                        "Profile %s rejected, halod cannot start; fix the errors above (haloctl validate shows "
                        "them too) and start halod again.",
                        m->profile_path);
}

/* The backend, and in m->backend_reason why (halod(8), BACKENDS). */
static const Backend *pick_backend(Manager *m) {
        _cleanup_(freep) char *why = NULL;
        const Backend *b;

        if (m->backend_name) {
                b = backend_by_name(m->backend_name);
                why = strdup("chosen with --backend");
        } else
                b = backend_pick_why(&why);
        if (why) {
                free(m->backend_reason);
                m->backend_reason = TAKE_PTR(why);
        }
        return b;
}

static void notify_status(Manager *m, const char *prefix) {
        (void) sd_notifyf(false, "%sSTATUS=%s", strempty(prefix), m->summary);
}

int manager_start(Manager *m) {
        _cleanup_(freep) char *error = NULL;
        int r;

        r = manager_load_profile(m->profile_path, m->node_name, &m->profile, &m->node, &error);
        if (r < 0) {
                log_profile_rejected(m, error);
                (void) sd_notifyf(
                        false, "STATUS=failed: profile %s rejected, see the journal", m->profile_path);
                return -EINVAL;
        }

        m->backend = pick_backend(m);
        if (!m->backend) {
                log_error("Unknown backend '%s': expected networkmanager, networkd or netlink.", m->backend_name);
                return -EINVAL;
        }
        m->profile_generation++;
        log_info(
                "Profile %s in force: cluster %s, node %s, mode %s, backend %s (%s).",
                m->profile_path,
                m->profile->cluster,
                m->node->name,
                profile_mode_to_string(m->profile->mode),
                m->backend->name,
                strna(m->backend_reason));

        /* Before anything else: the peer channel, so that the other nodes' probes find this one as early
         * as possible (a failure is logged and retried at every health.interval), and the links'
         * netdevs, so that the events of the apply below are known as its links' and the verify after
         * it covers them. */
        manager_watch_refresh_ports(m);
        r = manager_watch_reset(m);
        if (r < 0)
                return r;

        /* Before the first ask: the helper's run after it re-runs the helper check. */
        r = manager_helper_watch_start(m);
        if (r < 0)
                log_warning_errno(
                        r,
                        "Failed to watch %s for halod-helper.service's runs, ignoring: %m; the helper check "
                        "follows them at each health.interval only",
                        HELPER_RUNTIME_DIR);

        /* The NIC's runtime settings before the first apply: irdma comes up in RoCE mode, and the host's
         * DCB settings stick with the firmware's LLDP agent off. */
        (void) manager_apply_nic_runtime(m);

        /* Here, before the loop runs: nothing waits for it yet. One job, one snapshot for the apply and
         * the checks, which report from what the apply read back. A failed apply is not fatal: the
         * checks say what is wrong, and the watch retries. */
        r = manager_verify_run_now(
                m, &(VerifyRequest){ .apply = profile_may_change_host(m->profile, /* force= */ false) });
        if (r < 0)
                return log_error_errno(r, "Failed to run the checks: %m");

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
        if (ob != m->backend) {
                (void) strv_extend(&l, "Backend");
                (void) strv_extend(&l, "BackendReason");
        }
        return l;
}

/* A reload's caller, from the load to the checks of the new profile. */
typedef struct ReloadCall {
        ReloadDoneFunc done;
        void *userdata;
        void (*destroy)(void *);
} ReloadCall;

static void reload_call_free(void *p) {
        ReloadCall *c = p;

        if (c->destroy)
                c->destroy(c->userdata);
        free(c);
}

/* Hands the caller on from one job to the next: the first job's destroy then releases nothing. */
static ReloadCall *reload_call_move(ReloadCall *c) {
        ReloadCall *n = malloc(sizeof(ReloadCall));

        if (!n)
                return NULL;
        *n = *c;
        c->destroy = NULL;
        return n;
}

static void reload_finish(Manager *m, ReloadCall *c, int r, const char *error) {
        notify_status(m, "READY=1\n");
        if (c->done)
                c->done(m, r, error, c->userdata);
}

static void on_reload_checked(Manager *m, const VerifyOutcome *o, void *userdata) {
        (void) manager_watch_reset(m);
        reload_finish(m, userdata, 0, NULL);
}

static void on_reload_loaded(
        Manager *m, int r, Profile **loaded, const ProfileNode *loaded_node, const char *error, void *userdata) {
        _cleanup_(profile_freep) Profile *old = NULL;
        _cleanup_(strv_freep) char **changed = NULL;
        const Backend *old_backend = m->backend, *backend = NULL;
        const ProfileNode *old_node = m->node;
        LogFields f = { .message_id = HALOD_MESSAGE_PROFILE_RELOADED };
        ReloadCall *c = userdata, *next;

        if (r >= 0 && !(backend = pick_backend(m))) {
                r = -EINVAL;
                error = "no usable network backend";
        }
        if (r < 0) {
                log_profile_rejected(m, error);
                (void) malloc_trim(0); /* the parser's buffers, as after a verify */
                reload_finish(m, c, -EINVAL, error);
                return;
        }

        /* The facts the exports borrow were read for the old profile, and point into it. No export job
         * holds them now: it would run on the host lane, where this load job is. */
        m->verified = verified_facts_unref(m->verified);
        old = TAKE_PTR(m->profile);
        m->profile = TAKE_PTR(*loaded);
        m->node = loaded_node;
        m->backend = backend;
        m->profile_generation++;
        changed = changed_identity(old, old_node, old_backend, m);
        manager_bus_emit_changed(m, changed);
        /* A peer run still probing for the old profile reads it until it stops; its results are dropped. */
        manager_nic_runtime_reloaded(m, old, old_node);
        manager_peers_keep_profile(m, &old);
        (void) manager_peer_channel_reset(m);

        log_struct(
                LOG_NOTICE,
                &f,
                "Profile %s reloaded: cluster %s, node %s, mode %s, backend %s.",
                m->profile_path,
                m->profile->cluster,
                m->node->name,
                profile_mode_to_string(m->profile->mode),
                m->backend->name);

        next = reload_call_move(c);
        r = next ? manager_verify_submit(
                           m,
                           &(VerifyRequest){
                                   .apply = profile_may_change_host(m->profile, /* force= */ false),
                                   .ports = true,
                           },
                           on_reload_checked,
                           next,
                           reload_call_free)
                 : -ENOMEM;
        if (r < 0) {
                log_error_errno(r, "Failed to run the checks after reloading: %m");
                if (next) {
                        *c = *next; /* back to this job, whose destroy releases it */
                        free(next);
                }
                reload_finish(m, c, 0, NULL);
        }
}

int manager_reload(Manager *m, ReloadDoneFunc done, void *userdata, void (*destroy)(void *)) {
        ReloadCall *c;
        int r;

        c = malloc(sizeof(ReloadCall));
        if (!c)
                return -ENOMEM;
        *c = (ReloadCall){ .done = done, .userdata = userdata, .destroy = destroy };

        (void) sd_notifyf(false, "RELOADING=1\nMONOTONIC_USEC=%llu", (unsigned long long) now(CLOCK_MONOTONIC));
        r = manager_load_submit(m, on_reload_loaded, c, reload_call_free);
        if (r < 0) {
                free(c); /* the caller keeps userdata */
                notify_status(m, "READY=1\n");
        }
        return r;
}

/* One journal entry per change, with the change's own fields: the link, what of it, from, to. */
static void log_changes(Manager *m, const PlanChanges *changes) {
        for (size_t i = 0; i < changes->n_changes; i++) {
                const PlanChange *c = &changes->changes[i];
                _cleanup_(freep) char *line = plan_change_describe(c);
                LogFields f = {
                        .message_id = HALOD_MESSAGE_APPLIED,
                        .link = c->link,
                        .field = link_field_to_string(c->field),
                        .from = c->from,
                        .to = c->to,
                };

                log_struct(LOG_NOTICE, &f, "Applied through %s: %s", m->backend->name, strna(line));
        }
}

void manager_apply_report(Manager *m, int r, const PlanChanges *changes, const char *error) {
        char *l[] = { (char *) "LastApplyUSec", NULL };

        if (r < 0) {
                /* The watch retries; say it once until the reason changes. */
                if (!streq_ptr(error, m->last_apply_error))
                        log_error(
                                "Failed to apply the profile through %s: %s. Fix what it names, then run "
                                "`haloctl apply`.",
                                m->backend->name,
                                strna(error));
                free(m->last_apply_error);
                m->last_apply_error = error ? strdup(error) : NULL;
                return;
        }
        m->last_apply_error = mfree(m->last_apply_error);
        log_changes(m, changes);

        m->last_apply_usec = now(CLOCK_REALTIME);
        manager_bus_emit_changed(m, l);
}
