/* SPDX-License-Identifier: MIT */
/* The profile's view of the peer channel: which addresses to bind and answer, who shares a link with
 * this node, and the identity this node sends. */
#pragma once

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>

#include "peer/peer-wire.h"
#include "peer/peer.h"
#include "profile/profile.h"

/* Another node on a link this node has too, in the same subnet. */
typedef struct PeerNeighbour {
        const ProfileNode *node;
        const char *link;      /* the logical link name, "rdma0" */
        struct in_addr local;  /* this node's address on it */
        struct in_addr remote; /* the neighbour's */
        uint32_t mtu;          /* the profile's MTU for the link; 0 when it leaves the MTU alone */
} PeerNeighbour;

/* Every other node that shares a subnet with self on a link of the same name, in profile order; a
 * node that shares several links is listed once, for the first. Returns 0 or -ENOMEM. */
int peer_neighbours(const Profile *p, const ProfileNode *self, PeerNeighbour **ret, size_t *ret_n);
PeerNeighbour *peer_neighbour_find(PeerNeighbour *list, size_t n, const char *node) _pure_;

/* The addresses the responder binds (self's fabric addresses) and answers (every address of every
 * other node). */
int peer_addresses(
        const Profile *p,
        const ProfileNode *self,
        struct in_addr **ret_bind,
        size_t *ret_n_bind,
        struct in_addr **ret_peers,
        size_t *ret_n_peers);

/* The UDP (and TCP, for throughput) port of the peer channel. */
uint16_t peer_port(const Profile *p) _pure_;

/* cluster, node name, health and the profile digest. -ENAMETOOLONG / -EINVAL when a name cannot
 * travel on the wire (see peer_identity_init()). */
int peer_identity_from_profile(const Profile *p, const ProfileNode *self, Health health, PeerIdentity *ret);

/* The responder and the bulk sink, set up from the profile for node self. */
int peer_server_open_for_profile(const Profile *p, const ProfileNode *self, Health health, PeerServer **ret);
int peer_bulk_server_open_for_profile(const Profile *p, const ProfileNode *self, PeerBulkServer **ret);
