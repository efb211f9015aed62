/* SPDX-License-Identifier: MIT */
/* The links' MTUs copied out of a snapshot (peer-link-mtu.h). */
#include <errno.h>
#include <stdlib.h>

#include "check/peer-link-mtu.h"
#include "snapshot/snapshot-rdma.h"

int peer_link_mtus_from_snapshot(const Snapshot *s, PeerLinkMtus *ret) {
        PeerLinkMtus l = {};
        int r;

        l.links = calloc(s->n_ports > 0 ? s->n_ports : 1, sizeof(PeerLinkMtu));
        if (!l.links)
                return -ENOMEM;
        for (size_t i = 0; i < s->n_ports; i++) {
                r = peer_link_mtus_add(&l, s->ports[i].link, snapshot_port_mtu(s, i));
                if (r < 0) {
                        peer_link_mtus_done(&l);
                        return r;
                }
        }
        peer_link_mtus_done(ret);
        *ret = l;
        return 0;
}
