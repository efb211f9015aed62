/* SPDX-License-Identifier: MIT */
/* The judgement of one neighbour's measurements, one file per check (check-peer-*.c): internal to
 * the peer checks (check-peer.c runs them in order). */
#pragma once

#include "check/check-peer.h"

/* One neighbour being judged. */
typedef struct PeerCheck {
        const NodeContext *c;
        const PeerRound *round;
        const PeerProbed *p;
        uint64_t latency_warn_median_usec;
        uint64_t latency_warn_p99_usec;
        char path[256];    /* "rdma0", or "rdma0 via 10.0.1.2 (node2)" */
        char gateway[128]; /* for a routed peer: "node2", or the gateway's address when no node holds it */
        char id[CHECK_ID_MAX];
} PeerCheck;

/* "peer.<node>.<what>", in k->id. */
const char *peer_check_id(PeerCheck *k, const char *what);
/* r from adding a check: marks that check pending (its probes had not ended). */
int peer_check_mark_pending(CheckList *out, int r);
/* What a rate-limited peer means, depending on the budget the probes drew from. */
const char *peer_check_rate_limited_hint(const PeerCheck *k) _pure_;
/* The check what, skipped because the echo run found no peer to measure (or has not ended). */
int peer_check_skip_unreachable(PeerCheck *k, const char *what, const char *not_done, CheckList *out);
/* An unmeasured peer without a measurement to render from (not reached: such a peer is measured). */
int peer_check_not_measured(PeerCheck *k, const char *what, CheckList *out);

int check_peer_reachable(PeerCheck *k, CheckList *out);
int check_peer_mtu(PeerCheck *k, CheckList *out);
int check_peer_latency(PeerCheck *k, CheckList *out);
int check_peer_profile(PeerCheck *k, CheckList *out);
/* The exchange peer.<node>.rdma renders: this round's, or the last one measured when this round did
 * not measure the peer (the moving window), had no time left for it, or found its responder busy. A
 * failed exchange leaves the peer's session open until it falls idle (10 s, longer than a round):
 * without this, a broken path would read fail, skip, fail... and Health would flap with it.
 * ret_earlier says which. */
const PeerRdmaMeasurement *peer_rdma_to_render(const PeerProbed *p, bool *ret_earlier);
/* peer.<node>.rdma from the exchange peer_rdma_to_render() picks. */
int check_peer_rdma_of(PeerCheck *k, CheckList *out);

/* The Peers row of k's neighbour. Returns 0 or -ENOMEM. */
int peer_status_from_check(const PeerCheck *k, PeerStatus *ret);
