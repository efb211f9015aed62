/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "basic/macro.h"
#include "check/peer-link-mtu.h"
#include "snapshot/snapshot-rdma.h"

void peer_link_mtus_done(PeerLinkMtus *l) {
        for (size_t i = 0; l->links && i < l->n; i++)
                free(l->links[i].link);
        free(l->links);
        *l = (PeerLinkMtus){};
}

/* Appends link's MTU to l, which has room. */
static int add(PeerLinkMtus *l, const char *link, uint32_t mtu) {
        char *copy = strdup(link);

        if (!copy)
                return -ENOMEM;
        l->links[l->n++] = (PeerLinkMtu){ .link = copy, .mtu = mtu };
        return 0;
}

int peer_link_mtus_from_snapshot(Snapshot *s, PeerLinkMtus *ret) {
        PeerLinkMtus l = {};
        int r;

        r = snapshot_read(s, SNAPSHOT_MTU);
        if (r < 0)
                return r;
        l.links = calloc(s->n_ports > 0 ? s->n_ports : 1, sizeof(PeerLinkMtu));
        if (!l.links)
                return -ENOMEM;
        for (size_t i = 0; i < s->n_ports; i++) {
                r = add(&l, s->ports[i].link, snapshot_port_mtu(s, i));
                if (r < 0) {
                        peer_link_mtus_done(&l);
                        return r;
                }
        }
        peer_link_mtus_done(ret);
        *ret = l;
        return 0;
}

int peer_link_mtus_copy(const PeerLinkMtus *l, PeerLinkMtus *ret) {
        PeerLinkMtus c = {};

        c.links = calloc(l->n > 0 ? l->n : 1, sizeof(PeerLinkMtu));
        if (!c.links)
                return -ENOMEM;
        for (size_t i = 0; i < l->n; i++)
                if (add(&c, l->links[i].link, l->links[i].mtu) < 0) {
                        peer_link_mtus_done(&c);
                        return -ENOMEM;
                }
        *ret = c;
        return 0;
}

int peer_link_mtus_find(const PeerLinkMtus *l, const char *link, uint32_t *ret) {
        for (size_t i = 0; link && i < l->n; i++)
                if (streq(l->links[i].link, link)) {
                        *ret = l->links[i].mtu;
                        return 0;
                }
        return -ENOENT;
}
