/* SPDX-License-Identifier: MIT */
/* fabric.<node>.transport: the verdict of basic/transport-verdict.c on what moved between two
 * verifies. Reading the sample is the snapshot's (snapshot/snapshot-transport.c). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/strv.h"
#include "check/check-fabric-transport.h"
#include "net/tcp-peer-bytes.h"

void fabric_transport_state_done(FabricTransportState *s) {
        if (!s)
                return;
        fabric_transport_sample_done(&s->last);
        for (size_t i = 0; i < s->n_peers; i++) {
                free(s->peers[i].node);
                free(s->peers[i].summary);
        }
        free(s->peers);
        *s = (FabricTransportState){};
}

int fabric_transport_state_copy(const FabricTransportState *s, FabricTransportState *ret) {
        FabricTransportState c = { .has_sample = s->has_sample, .last = s->last };

        /* Shallow first; each pointer is then replaced by a copy (or NULL) before c can be freed. */
        c.last.tcp = NULL;
        c.last.n_tcp = 0;
        c.last.rdma_devices = NULL;
        c.last.holders = NULL;
        c.last.n_holders = 0;
        STRV_FOREACH(d, s->last.rdma_devices)
                if (strv_extend(&c.last.rdma_devices, *d) < 0)
                        goto oom;
        if (s->last.n_holders > 0) {
                c.last.holders = calloc(s->last.n_holders, sizeof(RdmaQpHolder));
                if (!c.last.holders)
                        goto oom;
                memcpy(c.last.holders, s->last.holders, s->last.n_holders * sizeof(RdmaQpHolder));
                c.last.n_holders = s->last.n_holders;
        }
        if (s->n_peers > 0) {
                c.peers = calloc(s->n_peers, sizeof(FabricTransportPeer));
                if (!c.peers)
                        goto oom;
                for (size_t i = 0; i < s->n_peers; i++) {
                        c.peers[i] = s->peers[i];
                        c.peers[i].summary = NULL;
                        c.peers[i].node = strdup(s->peers[i].node);
                        if (!c.peers[i].node)
                                goto oom;
                        c.n_peers++;
                }
        }
        *ret = c;
        return 0;
oom:
        fabric_transport_state_done(&c);
        return -ENOMEM;
}

int fabric_transport_state_dup(const FabricTransportState *s, FabricTransportState *ret) {
        _cleanup_(fabric_transport_state_done) FabricTransportState c = {};
        int r = fabric_transport_state_copy(s, &c);

        if (r < 0)
                return r;
        for (size_t i = 0; i < s->n_peers; i++)
                if (s->peers[i].summary && !(c.peers[i].summary = strdup(s->peers[i].summary)))
                        return -ENOMEM;
        if (s->last.n_tcp > 0) {
                c.last.tcp = calloc(s->last.n_tcp, sizeof(SockDiagTcp));
                if (!c.last.tcp)
                        return -ENOMEM;
                memcpy(c.last.tcp, s->last.tcp, s->last.n_tcp * sizeof(SockDiagTcp));
                c.last.n_tcp = s->last.n_tcp;
        }
        *ret = c;
        c = (FabricTransportState){};
        return 0;
}

const FabricTransportPeer *fabric_transport_state_peer(const FabricTransportState *s, const char *node) {
        for (size_t i = 0; s && i < s->n_peers; i++)
                if (streq(s->peers[i].node, node))
                        return &s->peers[i];
        return NULL;
}

static FabricTransportPeer *state_peer(FabricTransportState *s, const char *node) {
        FabricTransportPeer *p = (FabricTransportPeer *) fabric_transport_state_peer(s, node), *a;

        if (p)
                return p;
        a = reallocarray(s->peers, s->n_peers + 1, sizeof(FabricTransportPeer));
        if (!a)
                return NULL;
        s->peers = a;
        p = &a[s->n_peers];
        *p = (FabricTransportPeer){ .node = strdup(node), .use = _TRANSPORT_USE_INVALID };
        if (!p->node)
                return NULL;
        s->n_peers++;
        return p;
}

void fabric_transport_changes_done(FabricTransportChanges *c) {
        if (!c)
                return;
        for (size_t i = 0; i < c->n; i++) {
                free(c->changes[i].node);
                free(c->changes[i].summary);
        }
        free(c->changes);
        *c = (FabricTransportChanges){};
}

static int changes_add(FabricTransportChanges *c, const char *node, TransportTransition t, const char *summary) {
        FabricTransportChange *a = reallocarray(c->changes, c->n + 1, sizeof(FabricTransportChange));

        if (!a)
                return -ENOMEM;
        c->changes = a;
        a[c->n] = (FabricTransportChange){ .node = strdup(node), .transition = t, .summary = strdup(summary) };
        c->n++;
        return a[c->n - 1].node && a[c->n - 1].summary ? 0 : -ENOMEM;
}

static uint64_t delta(uint64_t after, uint64_t before) {
        /* A counter that went down was reset (the device went and came back): what it counts since. */
        return after >= before ? after - before : after;
}

/* What the sockets between the node's addresses and peer's moved between the two dumps. */
static int tcp_to_peer(
        const ProfileNode *self,
        const ProfileNode *peer,
        const FabricTransportSample *before,
        const FabricTransportSample *after,
        uint64_t *ret_sent,
        uint64_t *ret_received) {
        _cleanup_(freep) TcpPeerBytes *bytes = NULL;
        uint64_t sent = 0, received = 0;

        if (peer->n_links == 0) {
                *ret_sent = *ret_received = 0;
                return 0;
        }
        bytes = calloc(peer->n_links, sizeof(TcpPeerBytes));
        if (!bytes)
                return -ENOMEM;
        for (size_t l = 0; l < self->n_links; l++) {
                int r;

                for (size_t k = 0; k < peer->n_links; k++)
                        bytes[k].peer = peer->links[k].address.address;
                r = tcp_peer_bytes(
                        before->tcp,
                        before->n_tcp,
                        after->tcp,
                        after->n_tcp,
                        self->links[l].address.address,
                        bytes,
                        peer->n_links);
                if (r < 0)
                        return r;
                for (size_t k = 0; k < peer->n_links; k++) {
                        sent += bytes[k].sent;
                        received += bytes[k].received;
                }
        }
        *ret_sent = sent;
        *ret_received = received;
        return 0;
}

static bool same_devices(const FabricTransportSample *a, const FabricTransportSample *b) {
        return a->rdma_error == b->rdma_error && strv_equal(a->rdma_devices, b->rdma_devices);
}

/* Why no verdict can be given from these two samples; NULL when one can. */
static int no_verdict_reason(const FabricTransportState *state, const FabricTransportSample *now, char **ret) {
        *ret = NULL;
        if (!state->has_sample)
                return asprintf(
                               ret,
                               "measuring: the first sample of the TCP and RDMA volumes was taken, the verdict "
                               "comes with the next verify") < 0
                        ? -ENOMEM
                        : 0;
        if (now->tcp_error < 0)
                return asprintf(ret, "cannot dump the TCP sockets (sock_diag): %s", strerror(-now->tcp_error)) <
                                0
                        ? -ENOMEM
                        : 0;
        if (state->last.tcp_error < 0)
                return asprintf(
                               ret,
                               "measuring: the TCP sockets could be dumped again, the verdict comes with the "
                               "next verify") < 0
                        ? -ENOMEM
                        : 0;
        if (now->rdma_error < 0 && now->rdma_error != -ENODEV)
                return asprintf(
                               ret,
                               "cannot read the RDMA port counters of the fabric's devices: %s",
                               strerror(-now->rdma_error)) < 0
                        ? -ENOMEM
                        : 0;
        if (!same_devices(&state->last, now))
                return asprintf(
                               ret,
                               "measuring: the fabric's RDMA devices changed since the last verify, the verdict "
                               "comes with the next verify") < 0
                        ? -ENOMEM
                        : 0;
        return 0;
}

static int holders_of(const FabricTransportSample *now, TransportHolder **ret) {
        TransportHolder *h = NULL;

        *ret = NULL;
        if (now->n_holders == 0)
                return 0;
        h = calloc(now->n_holders, sizeof(TransportHolder));
        if (!h)
                return -ENOMEM;
        for (size_t i = 0; i < now->n_holders; i++)
                h[i] = (TransportHolder){ .comm = isempty(now->holders[i].name) ? NULL : now->holders[i].name,
                                          .pid = now->holders[i].pid,
                                          .n_qps = now->holders[i].n_qps };
        *ret = h;
        return 0;
}

/* The verdict's text and what the check adds that the verdict cannot know. */
static int summary_of(
        const TransportInput *in, const TransportVerdict *v, const FabricTransportSample *now, char **ret) {
        _cleanup_(freep) char *text = NULL;
        const char *note = "", *causes;
        int r, k;

        r = transport_verdict_text(in, v, &text);
        if (r < 0)
                return r;
        if (now->rdma_error == -ENODEV)
                note = " (this node's fabric links have no RDMA device: RDMA counted as 0)";
        else if (now->qp_error < 0)
                note = " (the QPs' holders could not be read from RDMA netlink)";
        else
                for (size_t i = 0; i < now->n_holders; i++)
                        if (isempty(now->holders[i].name))
                                /* Neither /proc (ProtectProc=invisible hides other users' processes)
                                 * nor the kernel's task statistics (CONFIG_TASKSTATS) named it. */
                                note = " (a holder's name could not be read from /proc or the kernel's task "
                                       "statistics: sudo rdma res show qp names it)";
        /* The note belongs to what moved, before the causes of a fallback. */
        causes = strstr(text, ". Likely causes");
        k = causes ? (int) (causes - text) : (int) strlen(text);

        return asprintf(ret, "%.*s%s%s", k, text, note, text + k) < 0 ? -ENOMEM : 0;
}

static char *expected_text(const NodeContext *c) {
        uint64_t bps = c->profile->health.tcp_bulk_bps ?: TRANSPORT_THRESHOLD_BPS_DEFAULT;
        char *s;

        if (asprintf(
                    &s,
                    "bulk traffic over RDMA: TCP to the peer under %" PRIu64
                    " Mbit/s, or RDMA moving at least a tenth as much",
                    bps / (1000 * 1000)) < 0)
                return NULL;
        return s;
}

/* A verify within the rate window of the last sample: the peer's last verdict again, or "measuring". */
static int repeat_verdict(const NodeContext *c, const FabricTransportPeer *p, const char *id, CheckList *out) {
        _cleanup_(freep) char *expected = NULL;

        if (!p->summary || p->use < 0)
                return check_list_skip(
                        out,
                        id,
                        "measuring: the verdict needs %llu s of TCP and RDMA volumes since the first sample",
                        (unsigned long long) (TRANSPORT_RATE_WINDOW_MIN_USEC / USEC_PER_SEC));
        expected = expected_text(c);
        if (!expected)
                return -ENOMEM;
        return check_list_add(
                out,
                id,
                transport_use_is_warning(p->use) ? CHECK_WARN : CHECK_PASS,
                expected,
                transport_use_to_string(p->use),
                "%s",
                p->summary);
}

static int check_peer(
        const NodeContext *c,
        const ProfileNode *peer,
        const FabricTransportState *before,
        FabricTransportState *after,
        const FabricTransportSample *now,
        const char *reason,
        bool repeat,
        const TransportHolder *holders,
        CheckList *out,
        FabricTransportChanges *changes) {
        _cleanup_(freep) char *id = NULL, *summary = NULL, *expected = NULL;
        FabricTransportPeer *p = state_peer(after, peer->name);
        const FabricTransportSample *last = &before->last;
        TransportVerdict v;
        TransportInput in;
        uint64_t sent, received;
        int r;

        if (!p || asprintf(&id, "fabric.%s.transport", peer->name) < 0)
                return -ENOMEM;
        if (reason)
                return check_list_skip(out, id, "%s", reason);
        if (repeat)
                return repeat_verdict(c, p, id, out);

        r = tcp_to_peer(c->node, peer, last, now, &sent, &received);
        if (r < 0)
                return r;
        in = (TransportInput){
                .peer = peer->name,
                .tcp_bytes_sent = sent,
                .tcp_bytes_received = received,
                .rdma_bytes = now->rdma_error < 0 ? 0 : delta(now->rdma_bytes, last->rdma_bytes),
                .rdma_packets = now->rdma_error < 0 ? 0 : delta(now->rdma_packets, last->rdma_packets),
                .interval_usec = now->at > last->at ? now->at - last->at : 1,
                .threshold_bps = c->profile->health.tcp_bulk_bps,
                .holders = holders,
                .n_holders = now->n_holders,
                .was_fallback = p->fallback,
        };
        r = transport_verdict(&in, &v);
        if (r < 0)
                return r;
        r = summary_of(&in, &v, now, &summary);
        if (r < 0)
                return r;
        expected = expected_text(c);
        if (!expected)
                return -ENOMEM;
        free(p->summary);
        p->summary = strdup(summary);
        if (!p->summary)
                return -ENOMEM;

        /* A verdict that cannot tell leaves the fallback where it was (the verdict reports no
         * transition for it either). */
        p->fallback = v.use == TRANSPORT_FALLBACK || (v.use == TRANSPORT_UNKNOWN && p->fallback);
        p->use = v.use;
        p->tcp_sent_total += sent;
        p->tcp_received_total += received;
        p->tcp_bps = v.tcp_bps;
        p->rdma_bps = v.rdma_bps;
        if (v.transition != TRANSPORT_TRANSITION_NONE) {
                r = changes_add(changes, peer->name, v.transition, summary);
                if (r < 0)
                        return r;
        }
        return check_list_add(
                out,
                id,
                transport_use_is_warning(v.use) ? CHECK_WARN : CHECK_PASS,
                expected,
                transport_use_to_string(v.use),
                "%s",
                summary);
}

int check_fabric_transport(
        const NodeContext *c,
        const FabricTransportState *before,
        FabricTransportState *after,
        FabricTransportSample *now,
        CheckList *out,
        FabricTransportChanges *ret_changes) {
        _cleanup_(freep) TransportHolder *holders = NULL;
        _cleanup_(freep) char *reason = NULL;
        bool repeat = false;
        int r = 0;

        if (!c->node || !c->profile)
                goto done;
        r = no_verdict_reason(before, now, &reason);
        if (r < 0)
                goto done;
        /* now->at < last.at (a clock that went back) counts as too soon too. */
        repeat = !reason && now->at < before->last.at + TRANSPORT_RATE_WINDOW_MIN_USEC;
        r = holders_of(now, &holders);
        if (r < 0)
                goto done;
        for (size_t i = 0; i < c->profile->n_nodes; i++) {
                const ProfileNode *peer = &c->profile->nodes[i];

                if (peer == c->node || streq(peer->name, c->node->name))
                        continue;
                r = check_peer(c, peer, before, after, now, reason, repeat, holders, out, ret_changes);
                if (r < 0)
                        goto done;
        }
        if (repeat) {
                /* The last sample stays the base of the next verdict. */
                holders = mfree(holders);
                fabric_transport_sample_done(now);
                return 0;
        }
done:
        /* The holders point into the old sample's names only through now: replace last after. */
        holders = mfree(holders);
        fabric_transport_sample_done(&after->last);
        after->last = *now;
        after->has_sample = true;
        *now = (FabricTransportSample){};
        return r;
}
