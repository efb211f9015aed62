/* SPDX-License-Identifier: MIT */
/* The links' MTUs as a value (peer-link-mtus.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "basic/macro.h"
#include "peer/peer-link-mtus.h"

void peer_link_mtus_done(PeerLinkMtus *l) {
        for (size_t i = 0; l->links && i < l->n; i++)
                free(l->links[i].link);
        free(l->links);
        *l = (PeerLinkMtus){};
}

int peer_link_mtus_add(PeerLinkMtus *l, const char *link, uint32_t mtu) {
        char *copy = strdup(link);

        if (!copy)
                return -ENOMEM;
        l->links[l->n++] = (PeerLinkMtu){ .link = copy, .mtu = mtu };
        return 0;
}

int peer_link_mtus_copy(const PeerLinkMtus *l, PeerLinkMtus *ret) {
        PeerLinkMtus c = {};

        c.links = calloc(l->n > 0 ? l->n : 1, sizeof(PeerLinkMtu));
        if (!c.links)
                return -ENOMEM;
        for (size_t i = 0; i < l->n; i++)
                if (peer_link_mtus_add(&c, l->links[i].link, l->links[i].mtu) < 0) {
                        peer_link_mtus_done(&c);
                        return -ENOMEM;
                }
        *ret = c;
        return 0;
}

int peer_link_mtus_find(const PeerLinkMtus *l, const char *link, uint32_t *ret) {
        for (size_t i = 0; l && link && i < l->n; i++)
                if (streq(l->links[i].link, link)) {
                        *ret = l->links[i].mtu;
                        return 0;
                }
        return -ENOENT;
}
