/* SPDX-License-Identifier: MIT */
/* Which exchange peer.<node>.rdma renders for a neighbour of the round: this round's, or an earlier
 * one (check-peer-step.h). */
#include "check/check-peer-step.h"

const PeerRdmaMeasurement *peer_rdma_to_render(const PeerProbed *p, bool *ret_earlier) {
        const PeerRdmaMeasurement *earlier = p->last && p->last->rdma.outcome != PEER_RDMA_NOT_RUN
                ? &p->last->rdma
                : NULL;
        bool busy = p->rdma.outcome == PEER_RDMA_EXCHANGED && p->rdma.error >= 0 &&
                p->rdma.result.peer_status == PEER_RDMA_BUSY;
        bool not_run = p->rdma.outcome == PEER_RDMA_NOT_RUN; /* no time left in the round */

        *ret_earlier = !p->measure || ((busy || not_run) && earlier);
        if (*ret_earlier)
                return earlier;
        return &p->rdma;
}

int check_peer_rdma_of(PeerCheck *k, CheckList *out) {
        PeerRdmaCheckContext c = {
                .node = k->p->n->node->name,
                .path = k->path,
                .required = k->c->profile->rdma.required,
                .reachable = k->p->reachable,
                .pending = k->p->echo_status == -EINPROGRESS,
        };
        const PeerRdmaMeasurement *m = peer_rdma_to_render(k->p, &c.remeasured);

        /* Not to check whatever the round did: said the same way every round. */
        if (!k->c->profile->rdma.present) {
                static const PeerRdmaMeasurement none = { .outcome = PEER_RDMA_NO_SECTION };

                m = &none;
        }
        return check_peer_rdma(&c, m, out);
}
