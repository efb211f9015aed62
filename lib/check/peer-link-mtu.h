/* SPDX-License-Identifier: MIT */
/* The local MTU of each link, as a snapshot read it: what a peer round on another thread than the
 * verify's takes instead of the snapshot (halod's peer lane), so that it neither reads the MTUs again
 * nor points into a snapshot another thread frees (peer-link-mtu.c). */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "snapshot/snapshot.h"

typedef struct PeerLinkMtu {
        char *link;   /* the profile's link name */
        uint32_t mtu; /* its netdev's MTU; 0: it has no netdev, or its MTU could not be read */
} PeerLinkMtu;

typedef struct PeerLinkMtus {
        PeerLinkMtu *links;
        size_t n;
} PeerLinkMtus;

/* Reads the MTUs into s (SNAPSHOT_MTU: from its link dump when it has one) and copies one per port.
 * Returns 0 or -ENOMEM; *ret is replaced on success. */
int peer_link_mtus_from_snapshot(Snapshot *s, PeerLinkMtus *ret);
/* A deep copy, for a reader on another thread. Returns 0 or -ENOMEM. */
int peer_link_mtus_copy(const PeerLinkMtus *l, PeerLinkMtus *ret);
/* The MTU of link; -ENOENT when l has none for it. */
int peer_link_mtus_find(const PeerLinkMtus *l, const char *link, uint32_t *ret);
void peer_link_mtus_done(PeerLinkMtus *l);
