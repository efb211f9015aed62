/* SPDX-License-Identifier: MIT */
/* The Peers rows of a round against the published ones: pure, with case tables in
 * tests/unit/test-peer-status-change.c. */
#include "check/peer-status-change.h"
#include "basic/macro.h"

#define PEERS_RTT_CHANGE_MIN_USEC 50U
#define PEERS_RTT_CHANGE_MIN_PERCENT 25U

static bool rtt_moved(uint64_t published, uint64_t measured) {
        uint64_t d = published > measured ? published - measured : measured - published;

        return d > PEERS_RTT_CHANGE_MIN_USEC && d * 100 > published * PEERS_RTT_CHANGE_MIN_PERCENT;
}

bool peers_changed_materially(const PeerStatusList *published, const PeerStatusList *measured) {
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

void peer_status_carry_pending(const PeerStatusList *previous, PeerStatusList *measured) {
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
