/* SPDX-License-Identifier: MIT */
/* halod's one long-lived object: the profile in force, the latest checks, and the event sources;
 * its lifecycle (manager.c). Each manager-*.c has a header of its own. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "apply/backend.h"
#include "basic/host.h"
#include "basic/time-util.h"
#include "check/check-fabric-health.h"
#include "check/check-fabric-transport.h"
#include "check/check-peer.h"
#include "check/check.h"
#include "check/peer-link-mtu.h"
#include "manager-helper.h"
#include "manager-job.h"
#include "manager-published.h"
#include "net/rtnl.h"
#include "peer/health.h"
#include "peer/peer-ratelimit.h"
#include "peer/peer.h"
#include "plan/qos-plan-host.h"
#include "profile/profile.h"
#include "snapshot/fabric.h"
#include "snapshot/snapshot.h"

/* How long a stop waits for a running job: a verify ends in milliseconds, a cancelled peer round at
 * once; an apply stuck on a bus or the kernel is left to the exit. */
#define JOB_STOP_GRACE_USEC (2 * USEC_PER_SEC)

/* The daemon's exit status for a profile that cannot be used (sysexits' EX_CONFIG). */
#define EXIT_PROFILE_INVALID 78

/* Where fabric.env goes unless --runtime-dir or $RUNTIME_DIRECTORY (systemd's RuntimeDirectory=) say
 * otherwise. */
#define HALOD_RUNTIME_DIR_DEFAULT "/run/halod"

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
        char *cdi_dir;      /* the CDI spec (export/cdi.h) is written here; NULL: none is */
        Host host;

        /* The profile in force; node points into it. */
        Profile *profile;
        const ProfileNode *node;
        const Backend *backend;
        char *backend_reason;        /* why it is the backend, for BackendReason and haloctl status */
        uint64_t profile_generation; /* counts the profiles put in force: stale peer results are dropped */

        /* The latest verify, as published on the bus: the local checks and the peer checks. */
        PublishedChecks *checks; /* NULL: none yet (published_checks_list() gives an empty list) */
        Health health;
        char *summary;
        char **pending_reboot;   /* the PendingReboot property: pairs of check id and what a reboot brings */
        bool run_failed;         /* the latest local run could not run the checks */
        usec_t last_verify_usec; /* CLOCK_REALTIME, 0: never */
        usec_t last_apply_usec;
        PeerStatusList peers;          /* the Peers property: changes only materially (manager-peers.c) */
        PeerStatusList peers_measured; /* the latest probe run, for the metrics */
        CheckHistory history; /* what the checks keep across verifies (qos.<link>.pause's pause frames,
                               * fabric.<node>.transport's last sample and verdicts,
                               * each port's counters for fabric.<link>.loss and the others): each verify job
                               * takes a copy as its before and its after replaces it when it publishes */
        FabricTransportState transport_published; /* a copy of history.transport from the latest verify
                                                   * that ran the check, without its sockets, for the
                                                   * metrics */

        char *last_apply_error; /* logged once until it changes or an apply succeeds */

        /* Drift watch (manager-watch.c). */
        RtnlMonitor *rtnl;
        sd_event_source *rtnl_source;
        FabricPort *ports; /* the netdevs the node's links resolved to: which events are ours */
        size_t n_ports;
        sd_event_source *recheck_source;
        sd_event_source *interval_source;
        char **dirty_links;         /* logical links to re-check on the next recheck */
        char **link_events;         /* those of them that had a link event (not only addresses or
                                     * routes): re-checked whole (check_selection_for_drift()) */
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
        /* The channel's sockets on 0.0.0.0 that halod.socket holds across halod's restarts (UDP, and TCP
         * listening), or -EBADF: the responder and the sink get a copy each time they open. */
        int inherited_udp_fd, inherited_tcp_fd;
        /* The source port of this node's probes, held on 0.0.0.0 so that no other user can send from
         * it (peer_probe_port_hold()); -EBADF when it could not be had: the probes then leave from
         * ephemeral ports and share the peers' budget with this node's other processes. */
        int probe_guard_fd;
        uint16_t probe_port;
        char *probe_guard_error; /* logged once until it changes */

        /* The peer checks, run by peer-round jobs on the peer lane (manager-peers.c). */
        bool peer_rerun;            /* another run was asked for while one ran */
        uint64_t peer_runs_started; /* also the round number that moves the measured window */
        bool peer_measure_all;      /* the next run measures every peer in full (a link event) */
        uint64_t peers_generation;  /* the profile generation of the published peer checks */
        sd_event_source *peer_retry_source;
        usec_t peer_retry_usec;      /* the back-off while a peer does not answer; 0: none */
        BusWaiter *waiters;          /* method calls answered when the peer checks they asked for are in */
        PeerLinkMtus peer_link_mtus; /* the links' MTUs as the latest verify read them */
        uint64_t peer_link_mtus_generation; /* the profile they were read for; 0: none yet */

        /* Work off the loop (manager-job.h): the host lane runs the load, apply+verify, hosts and export
         * jobs one at a time (none replaces the profile another reads); the peer lane the peer rounds. */
        JobLane host_jobs;
        JobLane peer_jobs;
        bool recheck_after_work; /* a re-check came due while a job ran: it runs after them */
        bool nic_runtime_due;    /* a link's netdev came back: the NIC's runtime settings are set again
                                  * once the host lane is idle (manager-nic-runtime.c) */

        /* Exports (manager-export.c): the last errors, logged once until they change. */
        char *fabric_env_error;
        char *cdi_spec_error;
        char *metrics_error;
        bool cdi_spec_written;   /* a job may have written the CDI spec: removed when halod stops */
        VerifiedFacts *verified; /* the latest verify's facts, for the exports; NULL before the
                                  * first verify of the profile in force */
        HelperState helper;      /* what halod asked halod-helper.service for (manager-helper.h) */
        sd_event_source *helper_stamp_source;  /* the helper's result stamp (manager-helper-watch.c) */
        sd_event_source *helper_parent_source; /* /run, until the helper's directory exists */
} Manager;

/* What a host job reads of the manager, taken when it leaves the queue (its JobType.capture): a queued
 * job sees the profile in force then, which stays in force while its lane runs. */
typedef struct ManagerInputs {
        Host host;
        const Profile *profile;
        const ProfileNode *node;
        const Backend *backend;
} ManagerInputs;

/* Fills *ret from m; -ESTALE when no profile is in force yet (nothing to run). */
int manager_inputs_capture(const Manager *m, ManagerInputs *ret);

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
