/* SPDX-License-Identifier: MIT */
/* The local MTU of each link, as a snapshot read it (lib/check/peer-link-mtu.h copies them out of
 * one): what the MTU probes of a peer round prove when the profile leaves a link's MTU alone. A value,
 * so that halod's peer lane neither reads the MTUs again nor points into a snapshot another thread
 * frees. */
#pragma once

#include <stddef.h>
#include <stdint.h>

typedef struct PeerLinkMtu {
        char *link;   /* the profile's link name */
        uint32_t mtu; /* its netdev's MTU; 0: it has no netdev, or its MTU could not be read */
} PeerLinkMtu;

typedef struct PeerLinkMtus {
        PeerLinkMtu *links;
        size_t n;
} PeerLinkMtus;

/* Appends link's MTU to l, which has room for it. Returns 0 or -ENOMEM. */
int peer_link_mtus_add(PeerLinkMtus *l, const char *link, uint32_t mtu);
/* A deep copy, for a reader on another thread. Returns 0 or -ENOMEM. */
int peer_link_mtus_copy(const PeerLinkMtus *l, PeerLinkMtus *ret);
/* The MTU of link; -ENOENT when l (which may be NULL) has none for it. */
int peer_link_mtus_find(const PeerLinkMtus *l, const char *link, uint32_t *ret);
void peer_link_mtus_done(PeerLinkMtus *l);
