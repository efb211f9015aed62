/* SPDX-License-Identifier: MIT */
/* The peer checks as halod and haloctl check run them, for the unit tests: the round's probes
 * (peer_round_run()), then the checks' judgement of what it measured (check_peers()). */
#pragma once

#include "check/check-peer.h"
#include "snapshot/rdma-node.h"
#include "tests.h"

typedef struct PeerTestOptions {
        PeerRoundOptions round;
        PeerCheckOptions check;
} PeerTestOptions;

/* o->round.link_mtus NULL: the MTUs are read here from a snapshot of c's host, as haloctl check
 * reads them. Returns what peer_round_run() or check_peers() returns. */
static inline int peer_round_and_check(
        const NodeContext *c, const PeerTestOptions *o, CheckList *out, PeerStatusList *ret_status) {
        _cleanup_(peer_round_done) PeerRound round = {};
        _cleanup_(peer_link_mtus_done) PeerLinkMtus mtus = {};
        _cleanup_(snapshot_done) Snapshot s = {};
        PeerRoundOptions ro = o->round;
        int r;

        if (!ro.link_mtus) {
                snapshot_init(&s, c);
                if (snapshot_read(&s, SNAPSHOT_MTU) >= 0 && peer_link_mtus_from_snapshot(&s, &mtus) >= 0)
                        ro.link_mtus = &mtus;
        }
        ro.rdma_device_find = rdma_link_device;
        r = peer_round_run(c, &ro, &round);
        if (r < 0)
                return r;
        return check_peers(c, &round, &o->check, out, ret_status);
}
