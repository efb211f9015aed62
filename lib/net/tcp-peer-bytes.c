/* SPDX-License-Identifier: MIT */
/* Per-peer TCP bytes between two socket dumps: match sockets by cookie, add up what they grew by. */
#include <stdlib.h>
#include <string.h>

#include "basic/macro.h"
#include "net/tcp-peer-bytes.h"

static int cookie_cmp(const void *a, const void *b) {
        uint64_t x = ((const SockDiagTcp *) a)->cookie, y = ((const SockDiagTcp *) b)->cookie;

        return (x > y) - (x < y);
}

static uint64_t grown(uint64_t now, uint64_t then) {
        /* a cookie is never reused while its socket lives, so the counters only grow; be safe */
        return now >= then ? now - then : 0;
}

static uint64_t sat_add(uint64_t a, uint64_t b) {
        return a + b < a ? UINT64_MAX : a + b;
}

int tcp_peer_bytes(
        const SockDiagTcp *before,
        size_t n_before,
        const SockDiagTcp *after,
        size_t n_after,
        struct in_addr local,
        TcpPeerBytes *peers,
        size_t n_peers) {

        _cleanup_(freep) SockDiagTcp *sorted = NULL;

        if ((n_before > 0 && !before) || (n_after > 0 && !after) || (n_peers > 0 && !peers))
                return -EINVAL;

        for (size_t i = 0; i < n_peers; i++)
                peers[i] = (TcpPeerBytes){ .peer = peers[i].peer };

        if (n_before > 0) {
                sorted = reallocarray(NULL, n_before, sizeof(SockDiagTcp));
                if (!sorted)
                        return -ENOMEM;
                memcpy(sorted, before, n_before * sizeof(SockDiagTcp));
                qsort(sorted, n_before, sizeof(SockDiagTcp), cookie_cmp);
        }

        for (size_t i = 0; i < n_after; i++) {
                const SockDiagTcp *a = &after[i], *b;
                TcpPeerBytes *p = NULL;

                if (local.s_addr != htonl(INADDR_ANY) && a->local.s_addr != local.s_addr)
                        continue;
                for (size_t j = 0; j < n_peers && !p; j++)
                        if (peers[j].peer.s_addr == a->remote.s_addr)
                                p = &peers[j];
                if (!p)
                        continue;

                p->n_sockets++;
                if (!a->has_bytes)
                        continue;
                b = n_before > 0 ? bsearch(a, sorted, n_before, sizeof(SockDiagTcp), cookie_cmp) : NULL;
                if (b && b->has_bytes) {
                        p->sent = sat_add(p->sent, grown(a->bytes_acked, b->bytes_acked));
                        p->received = sat_add(p->received, grown(a->bytes_received, b->bytes_received));
                } else {
                        p->sent = sat_add(p->sent, a->bytes_acked);
                        p->received = sat_add(p->received, a->bytes_received);
                }
        }
        return 0;
}
