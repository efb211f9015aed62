/* SPDX-License-Identifier: MIT */
/* The peer checks: peer.<node>.reachable|mtu|latency|profile|rdma for every node that shares a link with
 * this one. They need the network (probes over the fabric), so they are not in checks.c's table:
 * halod and haloctl call check_peers() beside checks_run(). */
#pragma once

#include <arpa/inet.h>
#include <stdbool.h>
#include <stdint.h>

#include "check/check-peer-rdma.h"
#include "check/check.h"
#include "check/checks.h"
#include "check/peer-link-mtu.h"
#include "peer/peer-wire.h"
#include "peer/peer.h"

/* peer.<node>.latency warns above either bound. A direct DAC link answers in 20-100 µs and a veth
 * in 10-50 µs; a millisecond median means the path crosses something it should not (a routed hop,
 * a busy CPU polling nothing, a bridge), and a 10 ms p99 means a workload's collectives will stall. */
#define PEER_LATENCY_WARN_MEDIAN_USEC 1000U
#define PEER_LATENCY_WARN_P99_USEC 10000U

/* One round of peer checks ends this long after it starts, whatever its probes do: a silent peer
 * needs about 1.2 s (a warm-up and 3 unanswered probes of 300 ms), the MTU probes of one that answers
 * up to 0.9 s more, and all peers are probed at once. What has not ended by then is reported pending. */
#define PEER_ROUND_USEC_DEFAULT (4U * 1000U * 1000U)

typedef struct PeerOptions {
        unsigned probes;                   /* echo probes per peer; 0: PEER_PROBE_COUNT_DEFAULT */
        uint64_t timeout_usec;             /* per probe; 0: PEER_PROBE_TIMEOUT_USEC_DEFAULT */
        uint64_t latency_warn_median_usec; /* 0: PEER_LATENCY_WARN_MEDIAN_USEC */
        uint64_t latency_warn_p99_usec;    /* 0: PEER_LATENCY_WARN_P99_USEC */
        Health health;                     /* what this node says about itself in its requests */
        uint64_t round_usec;               /* 0: PEER_ROUND_USEC_DEFAULT */
        unsigned in_flight_max;            /* peers probed at once; 0: PEER_ROUND_IN_FLIGHT_MAX */
        int cancel_fd; /* the probes stop when it becomes readable (an eventfd); 0 or negative: none */
        uint16_t source_port; /* the probes' source port: halod's probe port (peer_probe_port()) when it
                               * holds it, 0 for an ephemeral one (haloctl) */

        /* halod's rounds (lib/peer/peer-schedule.h): every peer gets liveness probes in every round,
         * and only measure_per_round of them (0: all, as haloctl check does) the echo run and the MTU
         * probes, the window moving with round. An unmeasured peer that answers renders its latency
         * and mtu checks and its round trips from its last measurement in previous_peers; one without
         * a measurement there (new, back from a loss, never measured) is measured whatever the
         * window says. */
        unsigned measure_per_round;
        uint64_t round;
        const struct PeerStatusList *previous_peers;

        /* The snapshot of the host to read the local MTU from (a link whose MTU the profile leaves
         * alone): the verify's, used on the caller's thread only; NULL: the round reads its own. */
        Snapshot *snapshot;
        /* Instead, on another thread than the verify's: the MTUs it read, copied (halod's peer lane);
         * NULL: from snapshot. */
        const PeerLinkMtus *link_mtus;
} PeerOptions;

/* A peer's last full measurement (its echo run and MTU run, both ended): the data from which a round
 * that only checks the peer's liveness renders its latency and mtu checks and its round trips. */
typedef struct PeerMeasurement {
        bool valid; /* measured, answered by the right node, and its MTU run not pending */
        PeerProbeResult echo;
        uint32_t mtu; /* what the MTU run probed; 0: none */
        int mtu_status;
        PeerProbeResult mtu_result;
        PeerRdmaMeasurement rdma; /* peer.<node>.rdma's exchange of the same round */
} PeerMeasurement;

/* One row of halod's Peers D-Bus property, a(ssbtt), with the measurement it was rendered from. */
typedef struct PeerStatus {
        char *node;
        char address[INET_ADDRSTRLEN];
        bool reachable;
        bool pending; /* its probes had not ended when the round did: reachable says nothing */
        uint64_t rtt_median_usec;
        uint64_t rtt_p99_usec;
        PeerMeasurement measured;
} PeerStatus;

typedef struct PeerStatusList {
        PeerStatus *peers;
        size_t n_peers;
} PeerStatusList;

void peer_status_list_done(PeerStatusList *l);
/* A deep copy of l, for a reader on another thread. Returns 0 or -ENOMEM. */
int peer_status_list_copy(const PeerStatusList *l, PeerStatusList *ret);

/* Adds the five checks for each neighbour of c->node (nothing when no node is selected or the
 * profile says health.peers: false). o may be NULL for the defaults. Blocks for the probes, which run
 * for all neighbours at once (about 20 round trips for a peer that answers, about 1.2 s for one that
 * does not) and end with the round (o->round_usec): a check whose probes had not ended by then says
 * "pending" (outcome skip, actual "pending", Check.pending set). Returns -ECANCELED when o->cancel_fd became
 * readable, other negative errno only for local failures (-ENOMEM). */
int check_peers(const NodeContext *c, const PeerOptions *o, CheckList *out);
/* The same, and the Peers rows (ret_status may be NULL; it is replaced on success). */
int check_peers_with_status(
        const NodeContext *c, const PeerOptions *o, CheckList *out, PeerStatusList *ret_status);
