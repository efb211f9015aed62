/* SPDX-License-Identifier: MIT */
/* peer.<node>.reachable|mtu|latency|profile|rdma: each neighbour of a peer round judged in turn (one
 * file per check, check-peer-step.h), with its Peers row. */
#include <stdio.h>

#include "check/check-peer-step.h"

const char *peer_check_id(PeerCheck *k, const char *what) {
        (void) snprintf(k->id, sizeof(k->id), "peer.%s.%s", k->p->n->node->name, what);
        return k->id;
}

int peer_check_mark_pending(CheckList *out, int r) {
        if (r >= 0)
                out->checks[out->n_checks - 1].pending = true;
        return r;
}

/* (halod(8), PEER CHANNEL, Rate limit) */
const char *peer_check_rate_limited_hint(const PeerCheck *k) {
        if (k->round->source_port != 0)
                return "Only this node's halod sends from its probe port: is a second halod running on "
                       "this node, or are Verify() calls asked back to back?";
        return "A program on this node (a flood from any local user, or haloctl probe) is using up the "
               "budget this node's programs other than halod share; halod's own probes have a budget of "
               "their own";
}

/* The way the probes go: the link, and for a routed peer the gateway that the kernel's route names. */
static void format_path(PeerCheck *k) {
        const PeerNeighbour *n = k->p->n;
        char via[INET_ADDRSTRLEN];

        if (!n->routed) {
                (void) snprintf(k->path, sizeof(k->path), "%s", n->link);
                return;
        }
        (void) inet_ntop(AF_INET, &n->via, via, sizeof(via));
        (void) snprintf(k->gateway, sizeof(k->gateway), "%s", n->gateway ? n->gateway->name : via);
        if (n->gateway)
                (void) snprintf(k->path, sizeof(k->path), "%s via %s (%s)", n->link, via, n->gateway->name);
        else
                (void) snprintf(k->path, sizeof(k->path), "%s via %s", n->link, via);
}

/* A name the wire cannot carry: said once per peer instead of probing. */
static int check_unprobed(const PeerRound *round, CheckList *out) {
        for (size_t i = 0; i < round->n; i++) {
                char id[CHECK_ID_MAX];

                (void) snprintf(id, sizeof(id), "peer.%s.reachable", round->neighbours[i].node->name);
                if (check_list_add(
                            out,
                            id,
                            CHECK_FAIL,
                            NULL,
                            NULL,
                            "Cannot probe %s: the cluster and node names must be 1-%u printable "
                            "characters without spaces to travel on the peer channel",
                            round->neighbours[i].node->name,
                            PEER_NAME_MAX) < 0)
                        return -ENOMEM;
        }
        return 0;
}

/* The five checks of one neighbour, in order, and its row. */
static int check_one(PeerCheck *k, CheckList *out, PeerStatus *ret_row) {
        int r;

        format_path(k);
        r = check_peer_reachable(k, out);
        if (r >= 0)
                r = check_peer_mtu(k, out);
        if (r >= 0)
                r = check_peer_latency(k, out);
        if (r >= 0)
                r = check_peer_profile(k, out);
        if (r >= 0)
                r = check_peer_rdma_of(k, out);
        if (r >= 0)
                r = peer_status_from_check(k, ret_row);
        return r;
}

static int check_all(
        const NodeContext *c,
        const PeerRound *round,
        const PeerCheckOptions *o,
        CheckList *out,
        PeerStatusList *ret_rows) {
        _cleanup_(check_list_done) CheckList checks = {};
        PeerStatusList rows = {};
        int r = 0;

        rows.peers = calloc(round->n > 0 ? round->n : 1, sizeof(PeerStatus));
        if (!rows.peers)
                return -ENOMEM;
        for (size_t i = 0; i < round->n && r >= 0; i++) {
                PeerCheck k = {
                        .c = c,
                        .round = round,
                        .p = &round->peers[i],
                        .latency_warn_median_usec = o->latency_warn_median_usec
                                ?: PEER_LATENCY_WARN_MEDIAN_USEC,
                        .latency_warn_p99_usec = o->latency_warn_p99_usec ?: PEER_LATENCY_WARN_P99_USEC,
                };

                r = check_one(&k, &checks, &rows.peers[i]);
                if (r >= 0)
                        rows.n_peers++;
        }
        if (r >= 0)
                r = check_list_take(out, &checks);
        if (r < 0) {
                peer_status_list_done(&rows);
                return r;
        }
        *ret_rows = rows;
        return 0;
}

int check_peers(
        const NodeContext *c,
        const PeerRound *round,
        const PeerCheckOptions *o,
        CheckList *out,
        PeerStatusList *ret_status) {
        static const PeerCheckOptions defaults = {};
        PeerStatusList rows = {};
        int r;

        if (!o)
                o = &defaults;
        if (!round->enabled) {
                if (ret_status)
                        peer_status_list_done(ret_status);
                return 0;
        }
        if (round->identity_error < 0)
                return check_unprobed(round, out);

        r = check_all(c, round, o, out, &rows);
        if (r < 0)
                return r;
        if (ret_status) {
                peer_status_list_done(ret_status);
                *ret_status = rows;
        } else
                peer_status_list_done(&rows);
        return 0;
}
