/* SPDX-License-Identifier: MIT */
/* One round of peer probes (peer-round.h): the echo run of every neighbour at once, the retry of the
 * silent ones from an ephemeral port, the MTU run of those that answered, then the RDMA exchanges
 * (peer-round-rdma.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "peer/peer-round-rdma.h"
#include "peer/peer-round.h"
#include "peer/peer-schedule.h"

void peer_round_done(PeerRound *r) {
        free(r->neighbours);
        free(r->peers);
        *r = (PeerRound){};
}

bool peer_answered_as(int status, const PeerProbeResult *res, const char *cluster, const char *node) {
        return status >= 0 && res->answered > 0 && streq(res->peer.node, node) &&
                streq(res->peer.cluster, cluster);
}

bool peer_round_needs_link_mtus(const Profile *p, const ProfileNode *self) {
        _cleanup_(freep) PeerNeighbour *neighbours = NULL;
        size_t n = 0;

        if (!p || !self || !p->health.peers)
                return false;
        if (peer_neighbours(p, self, &neighbours, &n) < 0)
                return true;
        for (size_t i = 0; i < n; i++)
                if (neighbours[i].mtu == 0)
                        return true;
        return false;
}

uint32_t peer_mtu_to_probe(const PeerProbed *p) {
        uint32_t mtu = p->n->mtu;

        if (!p->reachable)
                return 0;
        if (mtu == 0) {
                if (p->local_mtu_status < 0)
                        return 0;
                mtu = p->local_mtu;
        }
        if (mtu < PEER_IPV4_UDP_OVERHEAD + PEER_REQUEST_SIZE_MIN ||
            mtu - PEER_IPV4_UDP_OVERHEAD > PEER_MESSAGE_SIZE_MAX)
                return 0;
        return mtu;
}

/* Runs one round over the peers whose params have a port (the others are left alone) and stores each
 * one's status and result: the echo fields, or with mtu the MTU fields. */
static int probe_round(
        PeerProbed *peers, size_t n, const PeerProbeParams *params, const PeerProbeRound *round, bool mtu) {
        _cleanup_(freep) PeerProbeParams *todo = NULL;
        _cleanup_(freep) PeerProbeResult *results = NULL;
        _cleanup_(freep) size_t *index = NULL;
        _cleanup_(freep) int *status = NULL;
        size_t k = 0;
        int r;

        if (n == 0)
                return 0;
        todo = calloc(n, sizeof(PeerProbeParams));
        results = calloc(n, sizeof(PeerProbeResult));
        index = calloc(n, sizeof(size_t));
        status = calloc(n, sizeof(int));
        if (!todo || !results || !index || !status)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++)
                if (params[i].port != 0) {
                        todo[k] = params[i];
                        index[k++] = i;
                }

        r = peer_probe_round(todo, k, round, status, results);
        if (r < 0)
                return r;
        for (size_t j = 0; j < k; j++) {
                PeerProbed *p = &peers[index[j]];

                if (mtu) {
                        p->mtu_status = status[j];
                        p->mtu_result = results[j];
                } else {
                        p->echo_status = status[j];
                        p->echo = results[j];
                }
        }
        return 0;
}

/* The params of the silent neighbours' single retry from an ephemeral port (port 0: not retried);
 * returns whether there is any. */
static bool retry_params(
        const PeerProbed *peers, size_t n, const PeerProbeParams *params, PeerProbeParams *retry) {
        bool any = false;

        for (size_t i = 0; i < n; i++) {
                const PeerProbeResult *e = &peers[i].echo;

                retry[i] = params[i];
                retry[i].source_port = 0;
                /* One datagram: whether it answers at all. A silent peer costs the round one probe
                 * timeout more, not a second run (31 silent peers: Verify() 3.0 s instead of 2.4 s). */
                retry[i].count = 1;
                retry[i].liveness = true;
                if (params[i].source_port == 0 || peers[i].echo_status < 0 || e->answered > 0 ||
                    e->rate_limited > 0 || e->last_error != 0)
                        retry[i].port = 0; /* not in this round */
                else
                        any = true;
        }
        return any;
}

/* A responder of a halod from before the privileged probe port drops datagrams from it as from a
 * privileged port, silently (halod(8), PEER CHANNEL, The probe port): the neighbours that gave no sign
 * at all to the echo probes from the probe port (no answer, no rate-limited notice, no ICMP error)
 * are asked again from an ephemeral port, and those that answer it are probed from one
 * for the rest of the round. No local user can make a current peer silent to the probe port: its
 * budget is halod's alone. */
static int retry_older_peers(PeerProbed *peers, size_t n, PeerProbeParams *params, const PeerProbeRound *round) {
        _cleanup_(freep) PeerProbeParams *retry = NULL;
        _cleanup_(freep) PeerProbed *first = NULL;
        bool any = false;
        int r;

        retry = calloc(n, sizeof(PeerProbeParams));
        first = calloc(n, sizeof(PeerProbed));
        if (!retry || !first)
                return -ENOMEM;
        memcpy(first, peers, n * sizeof(PeerProbed));
        if (!retry_params(peers, n, params, retry))
                return 0;
        r = probe_round(peers, n, retry, round, /* mtu= */ false);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++) {
                if (retry[i].port == 0)
                        continue;
                if (peers[i].echo_status >= 0 && peers[i].echo.answered > 0) {
                        peers[i].older_peer = true;
                        params[i].source_port = 0;
                        any = true;
                } else {
                        /* Silent both ways (or cut short by the round's end): judged by the first run. */
                        peers[i].echo = first[i].echo;
                        peers[i].echo_status = first[i].echo_status;
                        retry[i].port = 0;
                }
        }
        if (!any)
                return 0;
        /* The older peers' run again, in full, from an ephemeral port. */
        for (size_t i = 0; i < n; i++)
                if (retry[i].port != 0)
                        retry[i] = params[i];
        return probe_round(peers, n, retry, round, /* mtu= */ false);
}

/* Each neighbour's place in the round before any probe: addresses, last measurement, local MTU, and
 * whether this round measures it in full. */
static int prepare_peers(const PeerRoundOptions *o, PeerRound *round) {
        _cleanup_(freep) bool *forced = NULL, *measure = NULL;

        forced = calloc(round->n > 0 ? round->n : 1, sizeof(bool));
        measure = calloc(round->n > 0 ? round->n : 1, sizeof(bool));
        if (!forced || !measure)
                return -ENOMEM;
        for (size_t i = 0; i < round->n; i++) {
                PeerProbed *p = &round->peers[i];

                p->n = &round->neighbours[i];
                (void) inet_ntop(AF_INET, &p->n->local, p->local, sizeof(p->local));
                (void) inet_ntop(AF_INET, &p->n->remote, p->remote, sizeof(p->remote));
                p->previous = peer_status_list_find(o->previous_peers, p->n->node->name, p->remote);
                p->last = peer_status_list_last_measurement(o->previous_peers, p->n->node->name, p->remote);
                p->local_mtu_status = peer_link_mtus_find(o->link_mtus, p->n->link, &p->local_mtu);
                if (p->local_mtu_status >= 0 && p->local_mtu == 0)
                        p->local_mtu_status = -ENOENT;
                forced[i] = !p->last;
        }
        (void) peer_schedule_measure(round->n, o->measure_per_round, o->round, forced, measure);
        for (size_t i = 0; i < round->n; i++)
                round->peers[i].measure = measure[i];
        return 0;
}

static PeerProbeParams echo_params(const PeerRoundOptions *o, const PeerRound *round, const PeerProbed *p) {
        return (PeerProbeParams){
                .local = p->n->local,
                .remote = p->n->remote,
                .port = round->port,
                .source_port = o->source_port,
                .self = &round->self,
                .count = p->measure ? (o->probes ?: PEER_PROBE_COUNT_DEFAULT) : PEER_PROBE_GIVE_UP,
                .timeout_usec = o->timeout_usec ?: PEER_PROBE_TIMEOUT_USEC_DEFAULT,
                .liveness = !p->measure,
        };
}

/* The echo run (with the retry of older peers), then the MTU run of the measured peers that answered,
 * then the RDMA exchanges, all within the round's deadline. */
static int probe_all(const NodeContext *c, const PeerRoundOptions *o, PeerRound *round) {
        const char *cluster = c->profile->cluster ?: "";
        PeerProbeRound pr = {
                .deadline = now(CLOCK_MONOTONIC) + round->round_usec,
                .cancel_fd = o->cancel_fd > 0 ? o->cancel_fd : -EBADF,
                .in_flight_max = o->in_flight_max,
        };
        _cleanup_(freep) PeerProbeParams *params = NULL;
        int r;

        params = calloc(round->n > 0 ? round->n : 1, sizeof(PeerProbeParams));
        if (!params)
                return -ENOMEM;
        for (size_t i = 0; i < round->n; i++)
                params[i] = echo_params(o, round, &round->peers[i]);
        r = probe_round(round->peers, round->n, params, &pr, /* mtu= */ false);
        if (r >= 0)
                r = retry_older_peers(round->peers, round->n, params, &pr);
        if (r < 0)
                return r;

        for (size_t i = 0; i < round->n; i++) {
                PeerProbed *p = &round->peers[i];

                p->reachable = peer_answered_as(p->echo_status, &p->echo, cluster, p->n->node->name);
                p->mtu = p->measure ? peer_mtu_to_probe(p) : 0;
                params[i].port = p->mtu > 0 ? round->port : 0; /* 0: not in the MTU round */
                params[i].mtu = p->mtu;
                params[i].count = PEER_PROBE_GIVE_UP;
                params[i].liveness = false;
        }
        r = probe_round(round->peers, round->n, params, &pr, /* mtu= */ true);
        if (r < 0)
                return r;
        return peer_round_exchange_rdma(c, o, round, pr.deadline);
}

/* The neighbours of c->node, then their probes, into round. */
static int measure(const NodeContext *c, const PeerRoundOptions *o, PeerRound *round) {
        int r;

        r = peer_neighbours(c->profile, c->node, &round->neighbours, &round->n);
        if (r < 0)
                return r;
        round->peers = calloc(round->n > 0 ? round->n : 1, sizeof(PeerProbed));
        if (!round->peers)
                return -ENOMEM;
        r = peer_identity_from_profile(c->profile, c->node, o->health, &round->self);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                /* A name the wire cannot carry: nothing is probed, the checks say so. */
                round->identity_error = r;
                return 0;
        }
        r = prepare_peers(o, round);
        if (r < 0)
                return r;
        return probe_all(c, o, round);
}

int peer_round_run(const NodeContext *c, const PeerRoundOptions *o, PeerRound *ret) {
        static const PeerRoundOptions defaults = { .health = HEALTH_STARTING };
        PeerRound round = {};
        int r;

        if (!o)
                o = &defaults;
        if (!c->node || !c->profile || !c->profile->health.peers) {
                peer_round_done(ret);
                return 0;
        }

        round = (PeerRound){
                .enabled = true,
                .port = peer_port(c->profile),
                .source_port = o->source_port,
                .round_usec = o->round_usec ?: PEER_ROUND_USEC_DEFAULT,
        };
        r = measure(c, o, &round);
        if (r < 0) {
                peer_round_done(&round);
                return r;
        }
        peer_round_done(ret);
        *ret = round;
        return 0;
}
