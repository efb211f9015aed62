/* SPDX-License-Identifier: MIT */
/* halod's one long-lived object: the profile in force, the latest checks, and the event sources. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <syslog.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>
#include <time.h>

#include "apply/backend.h"
#include "basic/host.h"
#include "check/check-peer.h"
#include "check/check.h"
#include "net/rtnl.h"
#include "nic/fabric.h"
#include "peer/peer-ratelimit.h"
#include "peer/peer.h"
#include "plan/snapshot.h"
#include "profile/profile.h"

typedef uint64_t usec_t;
#define USEC_PER_MSEC ((usec_t) 1000ULL)
#define USEC_PER_SEC ((usec_t) 1000000ULL)

/* The daemon's exit status for a profile that cannot be used (sysexits' EX_CONFIG). */
#define EXIT_PROFILE_INVALID 78

/* Where fabric.env goes unless --runtime-dir or $RUNTIME_DIRECTORY (systemd's RuntimeDirectory=) say
 * otherwise. */
#define HALOD_RUNTIME_DIR_DEFAULT "/run/halod"

typedef enum Health {
        HEALTH_STARTING, /* before the first verify */
        HEALTH_HEALTHY,  /* every check passes (or is skipped) */
        HEALTH_DEGRADED, /* some check warns or fails */
        HEALTH_FAILED,   /* halod cannot do its job: checks could not run */
        _HEALTH_MAX,
        _HEALTH_INVALID = -EINVAL,
} Health;

const char *health_to_string(Health h) _pure_;
Health health_from_string(const char *s) _pure_;

typedef struct PeerJob PeerJob;
typedef struct Work Work;
typedef struct PeerResponder PeerResponder;
typedef struct BusWaiter BusWaiter;

typedef struct Manager {
        sd_event *event;
        sd_bus *bus;

        /* From the command line. */
        char *profile_path;
        char *node_name;    /* --node, or NULL: by hostname, then by address */
        char *backend_name; /* --backend, or NULL: backend_pick() */
        char *runtime_dir;  /* fabric.env is written here */
        Host host;

        /* The profile in force; node points into it. */
        Profile *profile;
        const ProfileNode *node;
        const Backend *backend;
        uint64_t profile_generation; /* counts the profiles put in force: stale peer results are dropped */

        /* The latest verify, as published on the bus: the local checks and the peer checks. */
        CheckList checks;
        Health health;
        char *summary;
        bool run_failed;         /* the latest local run could not run the checks */
        usec_t last_verify_usec; /* CLOCK_REALTIME, 0: never */
        usec_t last_apply_usec;
        PeerStatusList peers;          /* the Peers property: changes only materially (manager-peers.c) */
        PeerStatusList peers_measured; /* the latest probe run, for the metrics */

        char *last_apply_error; /* logged once until it changes or an apply succeeds */

        /* Drift watch (manager-watch.c). */
        RtnlMonitor *rtnl;
        sd_event_source *rtnl_source;
        FabricPort *ports; /* the netdevs the node's links resolved to: which events are ours */
        size_t n_ports;
        sd_event_source *recheck_source;
        sd_event_source *interval_source;
        char **dirty_links;         /* logical links to re-check on the next recheck */
        bool resync;                /* re-check every link on the next recheck */
        TokenBucket recheck_bucket; /* bounds event-driven re-checks (manager-watch.c) */
        bool recheck_owes_token;    /* the pending re-check waits for a token it takes when it runs */
        usec_t auto_apply_window_usec;
        unsigned auto_apply_count;

        /* The peer channel's responder (a thread of its own) and throughput sink (on the loop), see
         * manager-peer-channel.c. */
        PeerResponder *responder;
        PeerBulkServer *bulk_server;
        sd_event_source *bulk_server_source;
        struct in_addr *channel_bind, *channel_peers; /* what they were opened for */
        size_t n_channel_bind, n_channel_peers;
        uint16_t channel_port;
        char *channel_error; /* logged once until it changes */

        /* The peer checks, run by a worker thread (manager-peers.c). */
        PeerJob *peer_job; /* the running one, or NULL */
        bool peer_rerun;   /* another run was asked for while one ran */
        uint64_t peer_runs_started;
        sd_event_source *peer_retry_source;
        usec_t peer_retry_usec; /* the back-off while a peer does not answer; 0: none */
        BusWaiter *waiters;     /* method calls answered when the peer checks they asked for are in */

        /* Host work off the loop (manager-work.c): the job running, those waiting after it. */
        Work *work;
        Work *work_queue;
        bool recheck_after_work; /* a re-check came due while a job ran: it runs after them */

        /* Exports (manager-export.c): the last errors, logged once until they change. */
        char *fabric_env_error;
        char *metrics_error;
} Manager;

usec_t now_usec(clockid_t clock);

int manager_new(Manager **ret);
Manager *manager_free(Manager *m);
DEFINE_TRIVIAL_CLEANUP_FUNC(Manager *, manager_free);

int manager_setup(Manager *m);
/* Loads the profile, applies (enforce), verifies, and sends READY=1. Returns EXIT_PROFILE_INVALID
 * style errors as -EINVAL with the reasons already logged. */
int manager_start(Manager *m);

/* Called when a reload ended: r is 0 (the profile is in force and was checked) or -EINVAL with every
 * reason in error ("file:line:col: ...", one per line; the old profile stays in force). */
typedef void (*ReloadDoneFunc)(Manager *m, int r, const char *error, void *userdata);
/* Reads the profile file again off the loop and puts it in force (applied in enforce mode, checked),
 * or leaves the old one in force; then done (may be NULL), then destroy(userdata) (may be NULL). */
int manager_reload(Manager *m, ReloadDoneFunc done, void *userdata, void (*destroy)(void *));
/* Loads path and picks this machine's node in it (by node_name, else by hostname, else by address).
 * On failure every reason is in ret_error, one per line. Touches no manager: any thread. */
int manager_load_profile(
        const char *path,
        const char *node_name,
        Profile **ret_profile,
        const ProfileNode **ret_node,
        char **ret_error);
/* Logs an apply's changes, or its failure once until the reason changes (r: the number of changes or
 * negative errno), and announces LastApplyUSec. */
void manager_apply_report(Manager *m, int r, const PlanChanges *changes, const char *error);
/* Publishes a run of the local checks that only selected, read from the snapshot s (r < 0: they could
 * not run): merges them into the published list, lets the watch know what s covered, and after a
 * full run asks for the peer checks. */
int manager_publish_local_checks(Manager *m, const char *only, int r, CheckList *fresh, const Snapshot *s);
/* Merges fresh checks into the published list — the peer checks (peers true: every peer.* id) or the
 * local ones selected by only — judges Health and Summary, and announces what changed. */
int manager_publish_checks(Manager *m, const char *only, bool peers, CheckList *fresh);
PeerHealth manager_peer_health(const Manager *m) _pure_;

/* manager-peer-channel.c: the UDP responder and the TCP throughput sink on this node's fabric
 * addresses, (re)opened when the profile's addresses or port change, its identity kept current. */
int manager_peer_channel_reset(Manager *m);
void manager_peer_channel_set_health(Manager *m);
void manager_peer_channel_done(Manager *m);

/* manager-peers.c: the peer checks off the event loop. */
/* Starts a run of the peer checks, or asks for another one after the running one. Without peers to
 * probe (health.peers: false, no neighbour) the peer checks are cleared at once. */
void manager_peers_request(Manager *m);
/* The run a caller asking now will see: 0 when none is pending (nothing to wait for). */
uint64_t manager_peers_pending_run(const Manager *m) _pure_;
/* Keeps *old alive while the running job reads it, taking it over (and setting *old to NULL), and
 * stops that job: a run for the profile now in force follows at once. */
void manager_peers_keep_profile(Manager *m, Profile **old);
/* True when the drift of the logical link is one that peers are probed over. */
bool manager_peers_use_link(Manager *m, const char *link);
void manager_peers_done(Manager *m);

/* manager-export.c: fabric.env and the Prometheus textfile after each verify, written by a work job
 * (which reads the NIC facts for the metrics itself, off the loop). */
void manager_export(Manager *m, bool local);

/* manager-bus.c */
int manager_bus_setup(Manager *m);
/* Emits PropertiesChanged for the named properties (NULL-terminated; an empty list sends nothing). */
void manager_bus_emit_changed(Manager *m, char **properties);
void manager_bus_emit_check_changed(Manager *m, const Check *c, const char *from);
/* Answers the method calls that waited for the peer run run (and every earlier one). */
void manager_bus_answer_waiters(Manager *m, uint64_t run);
void manager_bus_waiters_free(Manager *m);

/* manager-watch.c */
int manager_watch_setup(Manager *m);
/* Subscribes to firewalld and NetworkManager (re)starting and to firewalld's reloads (after
 * manager_bus_setup()): each re-checks every link soon, and in enforce mode re-applies. */
int manager_watch_bus_setup(Manager *m);
/* (Re)arms the health.interval timer from the profile in force and keeps the peer channel current. */
int manager_watch_reset(Manager *m);
/* Resolves the links' netdevs now, on this thread: at start, before the loop runs (work jobs do it
 * afterwards, see WORK_PORTS). */
void manager_watch_refresh_ports(Manager *m);
/* Takes over the links' netdevs that a work job resolved: which rtnetlink events are ours. */
void manager_watch_set_ports(Manager *m, FabricPort *ports, size_t n);
/* Takes in the rtnetlink events queued until now (on the loop): a work job's snapshot asks for it
 * right before it reads the kernel, so that what it reads reflects every event taken in. */
void manager_watch_take_events(Manager *m);
/* The work queue ran empty: a re-check that came due meanwhile runs now. */
void manager_watch_work_idle(Manager *m);
/* After a verify from s that selected only: the events taken in before s last read the kernel are
 * reflected in it, so the links it re-checked need no re-check for them. */
void manager_watch_verified(Manager *m, const char *only, const Snapshot *s);
void manager_watch_done(Manager *m);

/* manager-journal.c: systemd's log semantics — structured entries to the journal, plain lines to
 * stderr unless stderr already is the journal. message_id may be NULL. */
#define HALOD_MESSAGE_CHECK_FAILED "e936f873648546b4b202e0d30c4176e4"
#define HALOD_MESSAGE_CHECK_RECOVERED "8e4cf560ab8a4ef79924c612a0e99f6a"
#define HALOD_MESSAGE_APPLIED "1d0adca7034f447c82fa3e8593500b1e"
#define HALOD_MESSAGE_DRIFT "8f61e7b1525f41db8577835d5519d754"
#define HALOD_MESSAGE_PROFILE_RELOADED "4f7fc1cbb23245249c3398cab1db383b"
#define HALOD_MESSAGE_PROFILE_REJECTED "ddb954fab1f645738ed11df236225b2f"

typedef struct LogFields {
        const char *message_id;
        const char *check;
        const char *link;
        const char *expected;
        const char *actual;
        const char *field; /* a change: what of the link changed ("mtu"), from what, to what */
        const char *from;
        const char *to;
} LogFields;

void log_set_max_level(int level);
int log_struct(int priority, const LogFields *f, const char *format, ...) _printf_(3, 4);
/* Logs and returns -abs(error), so that "return log_error_errno(r, ...)" reads naturally; %m is
 * the error's text. */
int log_errno(int priority, int error, const char *format, ...) _printf_(3, 4);
#define log_error(...) log_struct(LOG_ERR, NULL, __VA_ARGS__)
#define log_warning(...) log_struct(LOG_WARNING, NULL, __VA_ARGS__)
#define log_notice(...) log_struct(LOG_NOTICE, NULL, __VA_ARGS__)
#define log_info(...) log_struct(LOG_INFO, NULL, __VA_ARGS__)
#define log_debug(...) log_struct(LOG_DEBUG, NULL, __VA_ARGS__)
#define log_error_errno(e, ...) log_errno(LOG_ERR, (e), __VA_ARGS__)
#define log_warning_errno(e, ...) log_errno(LOG_WARNING, (e), __VA_ARGS__)

/* Logs what changed for check c since the verify before (old: the check then, NULL when it is new),
 * once per transition: check failed / check recovered. */
void manager_journal_transition(Manager *m, const Check *c, const Check *old, bool drift);
