/* SPDX-License-Identifier: MIT */
/* The peer checks: peer.<node>.reachable|mtu|latency|profile for every node that shares a link with
 * this one. They need the network (probes over the fabric), so they are not in checks.c's table:
 * halod and haloctl call check_peers() beside checks_run(). */
#pragma once

#include <arpa/inet.h>
#include <stdbool.h>
#include <stdint.h>

#include "check/check.h"
#include "check/checks.h"
#include "peer/peer-wire.h"

/* peer.<node>.latency warns above either bound. A direct DAC link answers in 20-100 µs and a veth
 * in 10-50 µs; a millisecond median means the path crosses something it should not (a routed hop,
 * a busy CPU polling nothing, a bridge), and a 10 ms p99 means a workload's collectives will stall. */
#define PEER_LATENCY_WARN_MEDIAN_USEC 1000U
#define PEER_LATENCY_WARN_P99_USEC 10000U

typedef struct PeerOptions {
        unsigned probes;                   /* echo probes per peer; 0: PEER_PROBE_COUNT_DEFAULT */
        uint64_t timeout_usec;             /* per probe; 0: PEER_PROBE_TIMEOUT_USEC_DEFAULT */
        uint64_t latency_warn_median_usec; /* 0: PEER_LATENCY_WARN_MEDIAN_USEC */
        uint64_t latency_warn_p99_usec;    /* 0: PEER_LATENCY_WARN_P99_USEC */
        PeerHealth health;                 /* what this node says about itself in its requests */
} PeerOptions;

/* One row of halod's Peers D-Bus property, a(ssbtt). */
typedef struct PeerStatus {
        char *node;
        char address[INET_ADDRSTRLEN];
        bool reachable;
        uint64_t rtt_median_usec;
        uint64_t rtt_p99_usec;
} PeerStatus;

typedef struct PeerStatusList {
        PeerStatus *peers;
        size_t n_peers;
} PeerStatusList;

void peer_status_list_done(PeerStatusList *l);

/* Adds the four checks for each neighbour of c->node (nothing when no node is selected or the
 * profile says health.peers: false). o may be NULL for the defaults. Blocks for the probes: about
 * 20 round trips per reachable peer, about 1 s per peer that does not answer. Returns negative errno
 * only for allocation failures. */
int check_peers(const NodeContext *c, const PeerOptions *o, CheckList *out);
/* The same, and the Peers rows (ret_status may be NULL; it is replaced on success). */
int check_peers_with_status(
        const NodeContext *c, const PeerOptions *o, CheckList *out, PeerStatusList *ret_status);
