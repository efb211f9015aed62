/* SPDX-License-Identifier: MIT */
/* A neighbour's Peers row after a round: reachability, round trips, and the measurement the next
 * round renders from when it does not measure the peer. */
#include <string.h>

#include "check/check-peer-step.h"

/* The measurement the row carries: this round's when it measured the peer in full, else the last one
 * while the peer answers. */
static PeerMeasurement measurement_of(const PeerProbed *p) {
        bool earlier;
        const PeerRdmaMeasurement *rdma;

        if (p->measure && p->reachable && p->mtu_status != -EINPROGRESS) {
                rdma = peer_rdma_to_render(p, &earlier);
                return (PeerMeasurement){
                        .valid = true,
                        .echo = p->echo,
                        .mtu = p->mtu,
                        .mtu_status = p->mtu_status,
                        .mtu_result = p->mtu_result,
                        .rdma = rdma ? *rdma : (PeerRdmaMeasurement){},
                };
        }
        if (!p->measure && p->reachable && p->last)
                return *p->last;
        return (PeerMeasurement){};
}

int peer_status_from_check(const PeerCheck *k, PeerStatus *ret) {
        const PeerProbed *p = k->p;
        const PeerStatus *before = p->measure ? NULL : p->previous;

        *ret = (PeerStatus){
                .node = strdup(p->n->node->name),
                .reachable = p->reachable,
                .pending = p->echo_status == -EINPROGRESS,
                .rtt_median_usec = p->reachable ? p->echo.rtt_median_usec : 0,
                .rtt_p99_usec = p->reachable ? p->echo.rtt_p99_usec : 0,
                .measured = measurement_of(p),
        };
        if (!ret->node)
                return -ENOMEM;
        if (p->reachable && before) {
                /* One liveness answer is no latency figure: the row keeps the last measured one. */
                ret->rtt_median_usec = before->rtt_median_usec;
                ret->rtt_p99_usec = before->rtt_p99_usec;
        }
        memcpy(ret->address, p->remote, sizeof(ret->address));
        return 0;
}
