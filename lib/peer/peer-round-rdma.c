/* SPDX-License-Identifier: MIT */
/* The RC queue-pair exchange of a peer round with each measured peer that answers: a few SENDs and one
 * RDMA WRITE of the path MTU through the peer's halod, as haloctl probe does it at length. */
#include <assert.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>

#include "peer/peer-round-rdma.h"

/* This round's RDMA device on one link, shared by the exchanges with every peer behind it: looked up
 * once per round (the lookup reads the fabric ports and opens the devices to match their GIDs) and
 * closed when the round's exchanges are done, so that no uverbs file stays open between rounds (see
 * halod(8), PEER CHECKS: a held one keeps `rdma link delete` from finishing). */
typedef struct RoundDevice {
        const char *link; /* the profile's link name; NULL: slot unused */
        RdmaDevice *device;
        struct in_addr address;
        int error; /* the lookup's */
} RoundDevice;

static void round_devices_free(RoundDevice *devices, size_t n) {
        for (size_t i = 0; i < n; i++)
                devices[i].device = rdma_device_free(devices[i].device);
}

/* The round's device of link, looked up on the first exchange over that link. */
static const RoundDevice *round_device(
        const NodeContext *c, const PeerRoundOptions *o, const char *link, RoundDevice *devices, size_t n) {
        RoundDevice *d;
        size_t i;

        for (i = 0; i < n && devices[i].link; i++)
                if (streq(devices[i].link, link))
                        return &devices[i];
        assert(i < n); /* one slot per peer: never more links than that */
        d = &devices[i];
        *d = (RoundDevice){ .link = link, .error = -ENODEV };
        if (o->rdma_device_find)
                d->error = o->rdma_device_find(c, link, &d->device, &d->address);
        return d;
}

static RdmaProbeParams exchange_params(
        const NodeContext *c,
        const PeerRoundOptions *o,
        const PeerRound *round,
        const PeerProbed *p,
        const RoundDevice *rd,
        uint64_t left) {
        return (RdmaProbeParams){
                .device = rd->device,
                .gid_type = node_context_rdma_gid_type(c),
                .local = p->n->local,
                .remote = p->n->remote,
                .port = round->port,
                /* From halod's probe port: the peer's responder serves it before anyone else (an older
                 * one drops it). */
                .source_port = p->older_peer ? 0 : o->source_port,
                .self = &round->self,
                .pings = PEER_RDMA_PINGS,
                .timeout_usec = left / RDMA_HELLO_TRIES < RDMA_PROBE_TIMEOUT_USEC_DEFAULT
                        ? left / RDMA_HELLO_TRIES
                        : RDMA_PROBE_TIMEOUT_USEC_DEFAULT,
                .echo_timeout_usec = left < PEER_RDMA_ECHO_TIMEOUT_USEC ? left : PEER_RDMA_ECHO_TIMEOUT_USEC,
                /* Another prober's exchange (a node's round) ends within a few round trips; a
                 * haloctl probe's run takes seconds, and then this round says busy. */
                .busy_wait_usec = left / 4 > 0 ? left / 4 : UINT64_MAX,
                .write_path_mtu = true,
        };
}

/* The exchange with one measured peer that answers, through the round's device of its link. */
static void exchange(
        const NodeContext *c,
        const PeerRoundOptions *o,
        const PeerRound *round,
        PeerProbed *p,
        const RoundDevice *rd,
        uint64_t deadline) {
        uint64_t t = now(CLOCK_MONOTONIC), left = deadline > t ? deadline - t : 0;
        RdmaProbeParams params;

        if (rd->error < 0) {
                p->rdma = (PeerRdmaMeasurement){
                        .outcome = peer_rdma_outcome_of_device(rd->error),
                        .error = rd->error,
                };
                return;
        }
        p->rdma = (PeerRdmaMeasurement){ .outcome = PEER_RDMA_EXCHANGED };
        (void) snprintf(p->rdma.device, sizeof(p->rdma.device), "%s", rd->device->name);
        params = exchange_params(c, o, round, p, rd, left);
        p->rdma.error = rdma_probe(&params, &p->rdma.error_text, &p->rdma.result);
}

static bool cancelled(const PeerRoundOptions *o) {
        struct pollfd p = { .fd = o->cancel_fd, .events = POLLIN };

        return o->cancel_fd > 0 && poll(&p, 1, 0) > 0;
}

int peer_round_exchange_rdma(
        const NodeContext *c, const PeerRoundOptions *o, PeerRound *round, uint64_t deadline) {
        _cleanup_(freep) RoundDevice *devices = NULL;
        int r = 0;

        if (round->n == 0)
                return 0;
        devices = calloc(round->n, sizeof(RoundDevice));
        if (!devices)
                return -ENOMEM;
        for (size_t i = 0; i < round->n; i++) {
                PeerProbed *p = &round->peers[i];

                if (!p->measure || !p->reachable)
                        continue;
                if (!c->profile->rdma.present) {
                        p->rdma = (PeerRdmaMeasurement){ .outcome = PEER_RDMA_NO_SECTION };
                        continue;
                }
                if (cancelled(o)) {
                        r = -ECANCELED;
                        break;
                }
                if (now(CLOCK_MONOTONIC) + PEER_RDMA_EXCHANGE_MIN_USEC > deadline)
                        continue;
                exchange(c, o, round, p, round_device(c, o, p->n->link, devices, round->n), deadline);
        }
        round_devices_free(devices, round->n);
        return r;
}
