/* SPDX-License-Identifier: MIT */
/* The peer checks off the event loop: a worker thread runs check_peers_with_status(), which probes all
 * peers at once for one round (about 1.2 s when some are silent, PEER_ROUND_USEC_DEFAULT at most), and
 * hands the result back through an eventfd; the loop publishes it. The bus and the responder never
 * wait for a probe, and a second eventfd stops the round at once (a reload, SIGTERM). */
#include <pthread.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "log.h"
#include "manager-bus.h"
#include "manager-peers.h"
#include "manager-verify.h"
#include "manager.h"
#include "peer/peer-profile.h"
#include "peer/peer-schedule.h"

/* A peer that does not answer is probed again after 1 s, then 2, 4, ... up to health.interval: a node
 * that boots later than this one is seen within seconds, a dead one costs little. */
#define PEER_RETRY_FIRST_USEC USEC_PER_SEC

/* The Peers property changes only materially (see io.halod1(5)): reachability, the set of rows, or a
 * round trip that moved by more than a quarter and by more than 50 µs from the published value. The
 * latency check in Checks carries every run's numbers. */
#define PEERS_RTT_CHANGE_MIN_USEC 50U
#define PEERS_RTT_CHANGE_MIN_PERCENT 25U

struct PeerJob {
        pthread_t thread;
        int event_fd;  /* the thread signals the loop: done */
        int cancel_fd; /* the loop signals the thread: stop probing */
        sd_event_source *source;
        uint64_t run;
        uint64_t generation;

        /* The thread's inputs, read-only while it runs. The profile is the manager's, or, when a reload
         * replaced it meanwhile, owned_profile (manager_peers_keep_profile()). */
        Host host;
        const Profile *profile;
        const ProfileNode *node;
        Profile *owned_profile;
        PeerOptions options;

        /* The last round's peer checks and rows, copied for the thread: what the peers this round does
         * not measure in full repeat. */
        CheckList previous;
        PeerStatusList previous_peers;

        /* Its outputs, written before it signals the eventfd. */
        int result;
        CheckList checks;
        PeerStatusList peers;
};

static PeerJob *peer_job_free(PeerJob *j);
DEFINE_TRIVIAL_CLEANUP_FUNC(PeerJob *, peer_job_free);

static PeerJob *peer_job_free(PeerJob *j) {
        if (!j)
                return NULL;
        sd_event_source_disable_unref(j->source);
        safe_close(j->event_fd);
        safe_close(j->cancel_fd);
        profile_free(j->owned_profile);
        check_list_done(&j->checks);
        peer_status_list_done(&j->peers);
        check_list_done(&j->previous);
        peer_status_list_done(&j->previous_peers);
        return mfree(j);
}

static void *peer_job_run(void *userdata) {
        PeerJob *j = userdata;
        NodeContext c = { .host = &j->host, .profile = j->profile, .node = j->node };

        j->result = check_peers_with_status(&c, &j->options, &j->checks, &j->peers);
        /* The thread's last act: from here on the loop owns everything in j. */
        (void) eventfd_write(j->event_fd, 1);
        return NULL;
}

/* Stops the job's probes: the thread returns -ECANCELED within a moment. */
static void peer_job_cancel(PeerJob *j) {
        if (eventfd_write(j->cancel_fd, 1) < 0)
                log_debug("Failed to cancel the peer checks, they end with their round: %s", strerror(errno));
}

static bool rtt_moved(uint64_t published, uint64_t measured) {
        uint64_t d = published > measured ? published - measured : measured - published;

        return d > PEERS_RTT_CHANGE_MIN_USEC && d * 100 > published * PEERS_RTT_CHANGE_MIN_PERCENT;
}

static bool peers_changed_materially(const PeerStatusList *published, const PeerStatusList *measured) {
        if (published->n_peers != measured->n_peers)
                return true;
        for (size_t i = 0; i < measured->n_peers; i++) {
                const PeerStatus *a = &published->peers[i], *b = &measured->peers[i];

                if (!streq(a->node, b->node) || !streq(a->address, b->address) ||
                    a->reachable != b->reachable || rtt_moved(a->rtt_median_usec, b->rtt_median_usec) ||
                    rtt_moved(a->rtt_p99_usec, b->rtt_p99_usec))
                        return true;
        }
        return false;
}

/* A pending peer's row says what the run before found (nothing new is known), still marked pending. */
static void carry_pending(const PeerStatusList *previous, PeerStatusList *measured) {
        for (size_t i = 0; i < measured->n_peers; i++) {
                PeerStatus *p = &measured->peers[i];

                if (!p->pending)
                        continue;
                /* The rows come in the profile's order: the same place first, then anywhere. */
                for (size_t j = 0; j < previous->n_peers; j++) {
                        const PeerStatus *q = &previous->peers[(i + j) % previous->n_peers];

                        if (streq(q->node, p->node) && streq(q->address, p->address)) {
                                p->reachable = q->reachable;
                                p->rtt_median_usec = q->rtt_median_usec;
                                p->rtt_p99_usec = q->rtt_p99_usec;
                                break;
                        }
                }
        }
}

/* Publishes a run's rows and checks. measured is taken over. */
static void publish_peers(Manager *m, CheckList *checks, PeerStatusList *measured) {
        char *changed[] = { (char *) "Peers", NULL };

        carry_pending(&m->peers_measured, measured);

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

static int on_peer_job_done(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        Manager *m = userdata;
        PeerJob *j = TAKE_PTR(m->peer_job);
        uint64_t run = j->run;

        (void) pthread_join(j->thread, NULL);
        if (j->result == -ECANCELED) {
                /* Stopped for a newer run (a reload): the callers waiting are answered by that one. */
                log_debug("Peer checks cancelled.");
                peer_job_free(j);
                m->peer_rerun = false;
                (void) start_job(m);
                return 0;
        }
        if (j->result < 0)
                log_warning_errno(j->result, "Failed to run the peer checks: %m");
        else if (j->generation != m->profile_generation)
                log_debug("Dropping peer checks of a profile no longer in force.");
        else {
                publish_peers(m, &j->checks, &j->peers);
                m->peers_generation = j->generation;
        }
        peer_job_free(j);

        manager_bus_answer_waiters(m, run);
        schedule_retry(m);

        if (m->peer_rerun) {
                m->peer_rerun = false;
                (void) start_job(m);
        }
        return 0;
}

static bool has_neighbours(Manager *m) {
        _cleanup_(freep) PeerNeighbour *neighbours = NULL;
        size_t n = 0;

        return m->profile->health.peers && peer_neighbours(m->profile, m->node, &neighbours, &n) >= 0 && n > 0;
}

/* Gives the job the last round's results of this profile; none after a reload (all are measured). */
static int copy_previous(Manager *m, PeerJob *j) {
        int r;

        if (m->peers_generation != m->profile_generation)
                return 0;
        for (size_t i = 0; i < m->checks.n_checks; i++)
                if (startswith(m->checks.checks[i].id, "peer.")) {
                        r = check_list_add_copy(&j->previous, &m->checks.checks[i]);
                        if (r < 0)
                                return r;
                }
        return peer_status_list_copy(&m->peers_measured, &j->previous_peers);
}

static bool has_peer_checks(Manager *m) {
        for (size_t i = 0; i < m->checks.n_checks; i++)
                if (startswith(m->checks.checks[i].id, "peer."))
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
                .event_fd = -EBADF,
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
                },
        };
        m->peer_measure_all = false;
        r = copy_previous(m, j);
        if (r < 0) {
                manager_bus_answer_waiters(m, run);
                return log_error_errno(r, "Failed to start the peer checks: %m");
        }
        j->options.previous = &j->previous;
        j->options.previous_peers = &j->previous_peers;

        j->event_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        j->cancel_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        j->options.cancel_fd = j->cancel_fd;
        if (j->event_fd < 0 || j->cancel_fd < 0)
                r = -errno;
        else
                r = sd_event_add_io(m->event, &j->source, j->event_fd, EPOLLIN, on_peer_job_done, m);
        if (r >= 0)
                /* The thread inherits the loop's blocked signals: they stay with the signalfd. */
                r = -pthread_create(&j->thread, NULL, peer_job_run, j);
        if (r < 0) {
                manager_bus_answer_waiters(m, run);
                return log_error_errno(r, "Failed to start the peer checks: %m");
        }

        m->peer_job = TAKE_PTR(j);
        return 1;
}

void manager_peers_request_all(Manager *m) {
        m->peer_measure_all = true;
        manager_peers_request(m);
}

void manager_peers_request(Manager *m) {
        if (!m->profile || !m->node)
                return;
        if (m->peer_job) {
                m->peer_rerun = true;
                return;
        }
        (void) start_job(m);
}

uint64_t manager_peers_pending_run(const Manager *m) {
        if (!m->peer_job)
                return 0;
        return m->peer_runs_started + (m->peer_rerun ? 1 : 0);
}

void manager_peers_keep_profile(Manager *m, Profile **old) {
        if (!*old || !m->peer_job || m->peer_job->profile != *old)
                return;
        profile_free(m->peer_job->owned_profile);
        m->peer_job->owned_profile = TAKE_PTR(*old);
        /* Its results would be dropped: stop it, and probe for the new profile as soon as it ends. */
        peer_job_cancel(m->peer_job);
        m->peer_rerun = true;
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
        if (m->peer_job) {
                /* Stopping: the thread leaves its probes at once. */
                peer_job_cancel(m->peer_job);
                (void) pthread_join(m->peer_job->thread, NULL);
                m->peer_job = peer_job_free(m->peer_job);
        }
        m->peer_retry_source = sd_event_source_disable_unref(m->peer_retry_source);
        peer_status_list_done(&m->peers);
        peer_status_list_done(&m->peers_measured);
}
