/* SPDX-License-Identifier: MIT */
/* fabric.<node>.transport (issue 27): per peer, what moved between two verifies over TCP between this
 * node's fabric addresses and the peer's, and over the node's RDMA devices, judged by
 * basic/transport-verdict.h. It needs the sample of the verify before, so only the daemon runs it: it
 * keeps a FabricTransportState across verifies (CheckHistory.transport), hands the verify job a copy as
 * its before and takes the after back when the job publishes.
 *
 * One check per peer rather than one fabric.transport with a line per peer: each peer has its own
 * verdict and its own transition into and out of the fallback, --only selects one peer, and the
 * metrics, the alert and `haloctl status` read one check per peer as they do for peer.<node>.*. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/time-util.h"
#include "basic/transport-verdict.h"
#include "check/check.h"
#include "profile/node-context.h"
#include "snapshot/snapshot-transport.h"

/* A peer's state across verifies. */
typedef struct FabricTransportPeer {
        char *node;
        bool fallback;           /* its last verdict was TRANSPORT_FALLBACK */
        TransportUse use;        /* its last verdict; _TRANSPORT_USE_INVALID: none yet */
        uint64_t tcp_sent_total; /* bytes over TCP to it since halod started, for the metrics */
        uint64_t tcp_received_total;
        uint64_t tcp_bps; /* the last verdict's rates */
        uint64_t rdma_bps;
        char *summary; /* the last verdict's text; NULL in a copy for the metrics */
} FabricTransportPeer;

typedef struct FabricTransportState {
        bool has_sample;
        FabricTransportSample last;
        FabricTransportPeer *peers;
        size_t n_peers;
} FabricTransportState;

void fabric_transport_state_done(FabricTransportState *s);
/* A copy for the metrics, which another thread writes: the peers and the last sample without its
 * sockets. Returns 0 or -ENOMEM. */
int fabric_transport_state_copy(const FabricTransportState *s, FabricTransportState *ret);
/* A copy that owns all it holds, the last sample's sockets and each peer's summary too. Returns 0 or
 * -ENOMEM. */
int fabric_transport_state_dup(const FabricTransportState *s, FabricTransportState *ret);
const FabricTransportPeer *fabric_transport_state_peer(const FabricTransportState *s, const char *node) _pure_;

/* A transition into or out of the fallback, for the journal (which logs each once). */
typedef struct FabricTransportChange {
        char *node;
        TransportTransition transition;
        char *summary;
} FabricTransportChange;

typedef struct FabricTransportChanges {
        FabricTransportChange *changes;
        size_t n;
} FabricTransportChanges;

void fabric_transport_changes_done(FabricTransportChanges *c);

/* The checks fabric.<peer>.transport from before's last sample and now (taken over: it becomes after's
 * last), appended to out, and the transitions to ret_changes; after starts as a copy of before
 * (fabric_transport_state_dup(), check_history_copy()) and takes each peer's new verdict. The first sample
 * gives skipped checks ("measuring"); so does a sample whose RDMA devices differ from the last one's. A
 * sample taken less than TRANSPORT_RATE_WINDOW_MIN_USEC after the last one judges nothing: each peer's last
 * verdict is repeated and the last sample stays, so that every verdict covers at least that window (a verify
 * asked for right after another, or a health.interval under 10 s, would otherwise judge a steady
 * transfer by a fraction of its rate, and a fallback would end and start again in the journal). The
 * threshold is the profile's health.tcp-bulk-mbit. Returns 0 or -ENOMEM. */
int check_fabric_transport(
        const NodeContext *c,
        const FabricTransportState *before,
        FabricTransportState *after,
        FabricTransportSample *now,
        CheckList *out,
        FabricTransportChanges *ret_changes);
