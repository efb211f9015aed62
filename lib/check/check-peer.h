/* SPDX-License-Identifier: MIT */
/* The peer checks: peer.<node>.reachable|mtu|latency|profile|rdma for every node that shares a link with
 * this one, judged from what a peer round measured (peer/peer-round.h). The round needs the network, so
 * they are not in checks.c's table: halod and haloctl run peer_round_run() and then check_peers()
 * beside checks_run(). */
#pragma once

#include <stdint.h>

#include "check/check-peer-rdma.h"
#include "check/check.h"
#include "check/checks.h"
#include "check/peer-link-mtu.h"
#include "peer/peer-measurement.h"
#include "peer/peer-round.h"

/* peer.<node>.latency warns above either bound. A direct DAC link answers in 20-100 µs and a veth
 * in 10-50 µs; a millisecond median means the path crosses something it should not (a routed hop,
 * a busy CPU polling nothing, a bridge), and a 10 ms p99 means a workload's collectives will stall. */
#define PEER_LATENCY_WARN_MEDIAN_USEC 1000U
#define PEER_LATENCY_WARN_P99_USEC 10000U

typedef struct PeerCheckOptions {
        uint64_t latency_warn_median_usec; /* 0: PEER_LATENCY_WARN_MEDIAN_USEC */
        uint64_t latency_warn_p99_usec;    /* 0: PEER_LATENCY_WARN_P99_USEC */
} PeerCheckOptions;

/* Adds the five checks for each neighbour round probed (nothing when the round was not enabled), in
 * the round's order: a check whose probes had not ended when the round did says "pending" (outcome
 * skip, actual "pending", Check.pending set). An unmeasured peer is judged from its last measurement.
 * When this node's names cannot travel (round->identity_error), one failed peer.<node>.reachable each
 * (ret_status untouched). ret_status (may be NULL) gets the Peers rows, or is emptied when the round
 * was not enabled. o may be NULL for the defaults. A pure function of its arguments. Returns 0 or
 * -ENOMEM. */
int check_peers(
        const NodeContext *c,
        const PeerRound *round,
        const PeerCheckOptions *o,
        CheckList *out,
        PeerStatusList *ret_status);
