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

/* Another node on a link this node has too, in the same subnet, or reached through one of this node's
 * routes (routes:). */
typedef struct PeerNeighbour {
        const ProfileNode *node;
        const char *link;      /* the logical link name, "rdma0": for a routed node, the link the route
                                * leaves by */
        struct in_addr local;  /* this node's address on it: the probes' source */
        struct in_addr remote; /* the neighbour's: on the shared link, or on its link in the route's
                                * subnet */
        uint32_t mtu; /* the profile's MTU for the link (for a routed node the smaller of this link's and
                       * the remote link's); 0 when it leaves the MTU alone */
        bool routed;  /* reached through a gateway: the kernel's route to remote decides the path */
        struct in_addr via;         /* the route's gateway, when routed */
        const ProfileNode *gateway; /* the node that holds via, NULL when none of the profile does */
} PeerNeighbour;

/* Every other node that shares a subnet with self on a link of the same name, then, in their place in
 * profile order, the nodes that share none but have an address that one of self's routes covers (the
 * most specific route, the node's first such address); each node listed once, for the first shared
 * link. Returns 0 or -ENOMEM. */
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

/* The responder and the bulk sink, set up from the profile for node self: on fd when it is not
 * negative (a socket of halod.socket on 0.0.0.0 and the profile's port, taken over also on failure,
 * see peer_server_adopt()), else on sockets of their own on each fabric address. */
int peer_server_open_for_profile(
        const Profile *p, const ProfileNode *self, Health health, int fd, PeerServer **ret);
int peer_bulk_server_open_for_profile(const Profile *p, const ProfileNode *self, int fd, PeerBulkServer **ret);
