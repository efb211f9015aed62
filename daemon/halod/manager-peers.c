/* SPDX-License-Identifier: MIT */
/* The peer round, a job on the peer lane (manager-job.h): peer_round_run() probes all peers
 * at once for one round (about 1.2 s when some are silent, PEER_ROUND_USEC_DEFAULT at most) and
 * check_peers() judges what it measured, on the worker; the loop publishes the result. The bus and the
 * responder never wait for a probe, and an eventfd stops the round at once (a reload, SIGTERM). */
#include <sys/eventfd.h>
#include <unistd.h>

#include "check/peer-status-change.h"
#include "check/verify-summary.h"
#include "log.h"
#include "manager-bus.h"
#include "manager-job.h"
#include "manager-peers.h"
#include "manager-verify.h"
#include "manager.h"
#include "peer/peer-profile.h"
#include "peer/peer-schedule.h"
#include "snapshot/rdma-node.h"

/* A peer that does not answer is probed again after 1 s, then 2, 4, ... up to health.interval: a node
 * that boots later than this one is seen within seconds, a dead one costs little. */
#define PEER_RETRY_FIRST_USEC USEC_PER_SEC

typedef struct PeerJob {
        int cancel_fd; /* the loop signals the worker: stop probing */
        uint64_t run;
        uint64_t generation;

        /* The thread's inputs, read-only while it runs. The profile is the manager's, or, when a reload
         * replaced it meanwhile, owned_profile (manager_peers_keep_profile()). */
        Host host;
        const Profile *profile;
        const ProfileNode *node;
        Profile *owned_profile;
        PeerRoundOptions options;

        /* The last round's rows with their measurements, copied for the worker: the peers this round
         * does not measure in full are rendered from them. */
        PeerStatusList previous_peers;
        /* The links' MTUs as the latest verify read them, copied for the worker
         * (PeerRoundOptions.link_mtus); without such a verify, the worker reads them. */
        PeerLinkMtus link_mtus;

        /* Its outputs, written on the worker. */
        int result;
        CheckList checks;
        PeerStatusList peers;
} PeerJob;

static PeerJob *peer_job_free(PeerJob *j);
DEFINE_TRIVIAL_CLEANUP_FUNC(PeerJob *, peer_job_free);

static PeerJob *peer_job_free(PeerJob *j) {
        if (!j)
                return NULL;
        safe_close(j->cancel_fd);
        profile_free(j->owned_profile);
        check_list_done(&j->checks);
        peer_status_list_done(&j->peers);
        peer_status_list_done(&j->previous_peers);
        peer_link_mtus_done(&j->link_mtus);
        return mfree(j);
}

/* The links' MTUs from a snapshot of the worker's own, when no verify of this profile copied its and
 * a link leaves the MTU to the kernel. */
static void read_link_mtus(PeerJob *j, const NodeContext *c) {
        _cleanup_(snapshot_done) Snapshot own = {};

        if (j->options.link_mtus || !peer_round_needs_link_mtus(c->profile, c->node))
                return;
        snapshot_init(&own, c);
        if (snapshot_read(&own, SNAPSHOT_MTU) >= 0 && peer_link_mtus_from_snapshot(&own, &j->link_mtus) >= 0)
                j->options.link_mtus = &j->link_mtus;
}

static void peer_job_run(Job *job, void *data) {
        _cleanup_(peer_round_done) PeerRound round = {};
        PeerJob *j = data;
        NodeContext c = { .host = &j->host, .profile = j->profile, .node = j->node };

        read_link_mtus(j, &c);
        j->result = peer_round_run(&c, &j->options, &round);
        if (j->result >= 0)
                j->result = check_peers(&c, &round, /* o= */ NULL, &j->checks, &j->peers);
}

/* Stops the job's probes: the worker returns -ECANCELED within a moment. */
static void peer_job_cancel(void *data) {
        PeerJob *j = data;

        if (eventfd_write(j->cancel_fd, 1) < 0)
                log_debug("Failed to cancel the peer checks, they end with their round: %s", strerror(errno));
}

/* Publishes a run's rows and checks. measured is taken over. */
static void publish_peers(Manager *m, CheckList *checks, PeerStatusList *measured) {
        char *changed[] = { (char *) "Peers", NULL };

        peer_status_carry_pending(&m->peers_measured, measured);

        if (peers_changed_materially(&m->peers, measured)) {
                PeerStatusList copy;

                if (peer_status_list_copy(measured, &copy) >= 0) {
                        peer_status_list_done(&m->peers);
                        m->peers = copy;
                        manager_bus_emit_changed(m, changed);
                }
        }
        peer_status_list_done(&m->peers_measured);
        m->peers_measured = *measured;
        *measured = (PeerStatusList){};

        if (manager_publish_checks(m, NULL, /* peers= */ true, checks) < 0)
                log_warning("Failed to publish the peer checks: out of memory.");
}

static bool any_unreachable(const PeerStatusList *l) {
        for (size_t i = 0; i < l->n_peers; i++)
                if (!l->peers[i].reachable || l->peers[i].pending)
                        return true;
        return false;
}

static int on_peer_retry(sd_event_source *s, uint64_t usec, void *userdata) {
        manager_peers_request(userdata);
        return 0;
}

/* Probes a silent (or pending) peer again soon, backing off up to health.interval; stops once all
 * answer. */
static void schedule_retry(Manager *m) {
        usec_t interval = m->profile && m->profile->health.interval_usec > 0 ? m->profile->health.interval_usec
                                                                             : 60 * USEC_PER_SEC;
        int r;

        if (!any_unreachable(&m->peers_measured)) {
                m->peer_retry_usec = 0;
                if (m->peer_retry_source)
                        (void) sd_event_source_set_enabled(m->peer_retry_source, SD_EVENT_OFF);
                return;
        }

        if (m->peer_retry_usec >= interval)
                return; /* backed off as far as it goes */
        m->peer_retry_usec = m->peer_retry_usec == 0 ? PEER_RETRY_FIRST_USEC : m->peer_retry_usec * 2;
        if (m->peer_retry_usec >= interval)
                return; /* the interval timer probes as often from here on */

        if (!m->peer_retry_source)
                r = sd_event_add_time_relative(
                        m->event,
                        &m->peer_retry_source,
                        CLOCK_MONOTONIC,
                        m->peer_retry_usec,
                        USEC_PER_MSEC * 100,
                        on_peer_retry,
                        m);
        else {
                r = sd_event_source_set_time_relative(m->peer_retry_source, m->peer_retry_usec);
                if (r >= 0)
                        r = sd_event_source_set_enabled(m->peer_retry_source, SD_EVENT_ONESHOT);
        }
        if (r < 0)
                log_warning_errno(r, "Failed to schedule probing a silent peer again, ignoring: %m");
}

static int start_job(Manager *m);

static void peer_job_publish(Manager *m, void *data) {
        PeerJob *j = data;
        uint64_t run = j->run;

        if (j->result == -ECANCELED) {
                /* Stopped for a newer run (a reload): the callers waiting are answered by that one. */
                log_debug("Peer checks cancelled.");
                m->peer_rerun = false;
                (void) start_job(m);
                return;
        }
        if (j->result < 0)
                log_warning_errno(j->result, "Failed to run the peer checks: %m");
        else if (j->generation != m->profile_generation)
                log_debug("Dropping peer checks of a profile no longer in force.");
        else {
                publish_peers(m, &j->checks, &j->peers);
                m->peers_generation = j->generation;
        }

        manager_bus_answer_waiters(m, run);
        schedule_retry(m);

        if (m->peer_rerun) {
                m->peer_rerun = false;
                (void) start_job(m);
        }
}

static void peer_job_free_data(void *data) {
        peer_job_free(data);
}

static const JobType peer_job_type = {
        .name = "peer round",
        .run = peer_job_run,
        .publish = peer_job_publish,
        .free = peer_job_free_data,
        .cancel = peer_job_cancel,
};

static bool has_neighbours(Manager *m) {
        _cleanup_(freep) PeerNeighbour *neighbours = NULL;
        size_t n = 0;

        return m->profile->health.peers && peer_neighbours(m->profile, m->node, &neighbours, &n) >= 0 && n > 0;
}

/* Gives the job the last round's measurements of this profile; none after a reload (all are
 * measured). */
static int copy_previous(Manager *m, PeerJob *j) {
        if (m->peers_generation != m->profile_generation)
                return 0;
        return peer_status_list_copy(&m->peers_measured, &j->previous_peers);
}

static bool has_peer_checks(Manager *m) {
        const CheckList *l = published_checks_list(m->checks);

        for (size_t i = 0; i < l->n_checks; i++)
                if (check_replaced_by_run(l->checks[i].id, NULL, /* peers= */ true))
                        return true;
        return false;
}

/* Returns 1 when a job runs, 0 when there was nothing to probe (the peer checks were cleared). */
static int start_job(Manager *m) {
        _cleanup_(peer_job_freep) PeerJob *j = NULL;
        uint64_t run = ++m->peer_runs_started;
        int r;

        if (!has_neighbours(m)) {
                CheckList none = {};
                PeerStatusList empty = {};

                /* Clears what an earlier profile's runs published, if anything. */
                if (m->peers.n_peers > 0 || m->peers_measured.n_peers > 0 || has_peer_checks(m))
                        publish_peers(m, &none, &empty);
                manager_bus_answer_waiters(m, run);
                schedule_retry(m);
                return 0;
        }

        j = calloc(1, sizeof(PeerJob));
        if (!j) {
                manager_bus_answer_waiters(m, run);
                return log_error_errno(ENOMEM, "Failed to start the peer checks: %m");
        }
        *j = (PeerJob){
                .cancel_fd = -EBADF,
                .run = run,
                .generation = m->profile_generation,
                .host = m->host,
                .profile = m->profile,
                .node = m->node,
                .options = {
                        .health = m->health,
                        .source_port = m->probe_port,
                        .measure_per_round = m->peer_measure_all ? 0 : PEER_MEASURE_PER_ROUND,
                        .round = run,
                        .rdma_device_find = rdma_link_device,
                },
        };
        m->peer_measure_all = false;
        r = copy_previous(m, j);
        if (r < 0) {
                manager_bus_answer_waiters(m, run);
                return log_error_errno(r, "Failed to start the peer checks: %m");
        }
        j->options.previous_peers = &j->previous_peers;
        /* The verify's MTUs, when one of this profile read them; else the worker reads its own. */
        if (m->peer_link_mtus_generation == m->profile_generation) {
                r = peer_link_mtus_copy(&m->peer_link_mtus, &j->link_mtus);
                if (r < 0) {
                        manager_bus_answer_waiters(m, run);
                        return log_error_errno(r, "Failed to start the peer checks: %m");
                }
                j->options.link_mtus = &j->link_mtus;
        }

        j->cancel_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        j->options.cancel_fd = j->cancel_fd;
        r = j->cancel_fd < 0 ? -errno : job_submit(m, &m->peer_jobs, &peer_job_type, j);
        if (r < 0) {
                manager_bus_answer_waiters(m, run);
                return log_error_errno(r, "Failed to start the peer checks: %m");
        }
        TAKE_PTR(j);
        return 1;
}

void manager_peers_request_all(Manager *m) {
        m->peer_measure_all = true;
        manager_peers_request(m);
}

void manager_peers_request(Manager *m) {
        if (!m->profile || !m->node)
                return;
        if (job_lane_busy(&m->peer_jobs)) {
                m->peer_rerun = true;
                return;
        }
        (void) start_job(m);
}

uint64_t manager_peers_pending_run(const Manager *m) {
        if (!job_lane_busy(&m->peer_jobs))
                return 0;
        return m->peer_runs_started + (m->peer_rerun ? 1 : 0);
}

void manager_peers_keep_profile(Manager *m, Profile **old) {
        PeerJob *j = job_lane_running(&m->peer_jobs, &peer_job_type);

        if (!*old || !j || j->profile != *old)
                return;
        profile_free(j->owned_profile);
        j->owned_profile = TAKE_PTR(*old);
        /* Its results would be dropped: stop it, and probe for the new profile as soon as it ends. */
        peer_job_cancel(j);
        m->peer_rerun = true;
}

void manager_peers_set_link_mtus(Manager *m, PeerLinkMtus *mtus) {
        peer_link_mtus_done(&m->peer_link_mtus);
        m->peer_link_mtus = *mtus;
        *mtus = (PeerLinkMtus){};
        m->peer_link_mtus_generation = m->profile_generation;
}

bool manager_peers_use_link(Manager *m, const char *link) {
        _cleanup_(freep) PeerNeighbour *neighbours = NULL;
        size_t n = 0;

        if (!m->profile || !m->node || !m->profile->health.peers ||
            peer_neighbours(m->profile, m->node, &neighbours, &n) < 0)
                return false;
        for (size_t i = 0; i < n; i++)
                if (streq(neighbours[i].link, link))
                        return true;
        return false;
}

void manager_peers_done(Manager *m) {
        /* Stopping: the worker leaves its probes at once (the job's cancel). */
        job_lane_stop(&m->peer_jobs, JOB_STOP_GRACE_USEC);
        if (m->peer_jobs.abandoned)
                return;
        m->peer_retry_source = sd_event_source_disable_unref(m->peer_retry_source);
        peer_status_list_done(&m->peers);
        peer_status_list_done(&m->peers_measured);
        peer_link_mtus_done(&m->peer_link_mtus);
}
