/* SPDX-License-Identifier: MIT */
/* Reads the peer channel's addresses, neighbours and identity out of a profile. */
#include "peer/peer-profile.h"
#include "profile/profile-digest.h"

static const NodeLink *node_link_find(const ProfileNode *node, const char *link) {
        for (size_t i = 0; i < node->n_links; i++)
                if (streq(node->links[i].link, link))
                        return &node->links[i];
        return NULL;
}

static uint32_t mtu_min(uint32_t a, uint32_t b) {
        if (a == 0 || b == 0)
                return a ?: b;
        return a < b ? a : b;
}

/* other reached through one of self's routes: the most specific route that covers one of other's
 * addresses, tried in other's link order. Returns true with *ret filled. */
static bool routed_neighbour(
        const Profile *p, const ProfileNode *self, const ProfileNode *other, PeerNeighbour *ret) {
        for (size_t k = 0; k < other->n_links; k++) {
                const NodeLink *theirs = &other->links[k];
                const NodeRoute *best = NULL;
                const NodeLink *mine;
                const ProfileLink *a, *b;

                for (size_t i = 0; i < self->n_routes; i++)
                        if (ipv4_prefix_contains(&self->routes[i].to, theirs->address.address) &&
                            (!best || self->routes[i].to.prefixlen > best->to.prefixlen))
                                best = &self->routes[i];
                if (!best || !best->link)
                        continue;
                mine = node_link_find(self, best->link);
                if (!mine)
                        continue;
                a = profile_find_link(p, mine->link);
                b = profile_find_link(p, theirs->link);
                *ret = (PeerNeighbour){
                        .node = other,
                        .link = mine->link,
                        .local = mine->address.address,
                        .remote = theirs->address.address,
                        .mtu = mtu_min(a ? a->mtu : 0, b ? b->mtu : 0),
                        .routed = true,
                        .via = best->via,
                        .gateway = profile_find_node_by_address(p, best->via),
                };
                return true;
        }
        return false;
}

int peer_neighbours(const Profile *p, const ProfileNode *self, PeerNeighbour **ret, size_t *ret_n) {
        _cleanup_(freep) PeerNeighbour *list = NULL;
        size_t n = 0;

        list = calloc(p->n_nodes > 0 ? p->n_nodes : 1, sizeof(PeerNeighbour));
        if (!list)
                return -ENOMEM;

        for (size_t i = 0; i < p->n_nodes; i++) {
                const ProfileNode *other = &p->nodes[i];
                bool found = false;

                if (other == self || streq(other->name, self->name))
                        continue;
                for (size_t j = 0; j < self->n_links && !found; j++) {
                        const NodeLink *mine = &self->links[j];

                        for (size_t k = 0; k < other->n_links && !found; k++) {
                                const NodeLink *theirs = &other->links[k];
                                const ProfileLink *link;

                                if (!streq(mine->link, theirs->link) ||
                                    !ipv4_prefix_same_subnet(&mine->address, &theirs->address))
                                        continue;
                                link = profile_find_link(p, mine->link);
                                list[n++] = (PeerNeighbour){
                                        .node = other,
                                        .link = mine->link,
                                        .local = mine->address.address,
                                        .remote = theirs->address.address,
                                        .mtu = link ? link->mtu : 0,
                                };
                                found = true;
                        }
                }
                if (!found && routed_neighbour(p, self, other, &list[n]))
                        n++;
        }

        *ret = TAKE_PTR(list);
        *ret_n = n;
        return 0;
}

PeerNeighbour *peer_neighbour_find(PeerNeighbour *list, size_t n, const char *node) {
        for (size_t i = 0; i < n; i++)
                if (streq(list[i].node->name, node))
                        return &list[i];
        return NULL;
}

int peer_addresses(
        const Profile *p,
        const ProfileNode *self,
        struct in_addr **ret_bind,
        size_t *ret_n_bind,
        struct in_addr **ret_peers,
        size_t *ret_n_peers) {
        _cleanup_(freep) struct in_addr *bind = NULL, *peers = NULL;
        size_t n_bind = 0, n_peers = 0, total = 0;

        for (size_t i = 0; i < p->n_nodes; i++)
                total += p->nodes[i].n_links;
        bind = calloc(self->n_links > 0 ? self->n_links : 1, sizeof(struct in_addr));
        peers = calloc(total > 0 ? total : 1, sizeof(struct in_addr));
        if (!bind || !peers)
                return -ENOMEM;

        for (size_t i = 0; i < self->n_links; i++)
                bind[n_bind++] = self->links[i].address.address;
        for (size_t i = 0; i < p->n_nodes; i++) {
                if (streq(p->nodes[i].name, self->name))
                        continue;
                for (size_t j = 0; j < p->nodes[i].n_links; j++)
                        peers[n_peers++] = p->nodes[i].links[j].address.address;
        }

        *ret_bind = TAKE_PTR(bind);
        *ret_n_bind = n_bind;
        *ret_peers = TAKE_PTR(peers);
        *ret_n_peers = n_peers;
        return 0;
}

uint16_t peer_port(const Profile *p) {
        return p->health.port > 0 ? p->health.port : PROFILE_DEFAULT_PEER_PORT;
}

int peer_identity_from_profile(const Profile *p, const ProfileNode *self, Health health, PeerIdentity *ret) {
        uint8_t digest[PROFILE_DIGEST_SIZE];
        int r;

        r = profile_digest(p, digest);
        if (r < 0)
                return r;
        return peer_identity_init(ret, p->cluster ?: "", self->name, health, digest);
}

/* Where self's peer channel serves in p, and whom (peer_addresses(), peer_port()); ret points into
 * *ret_bind and *ret_peers, which the caller frees. -EADDRNOTAVAIL when self has no fabric address. */
static int profile_endpoints(
        const Profile *p,
        const ProfileNode *self,
        struct in_addr **ret_bind,
        struct in_addr **ret_peers,
        PeerEndpoints *ret) {
        size_t n_bind, n_peers;
        int r;

        r = peer_addresses(p, self, ret_bind, &n_bind, ret_peers, &n_peers);
        if (r < 0)
                return r;
        if (n_bind == 0)
                return -EADDRNOTAVAIL;
        *ret = (PeerEndpoints){ .locals = *ret_bind,
                                .n_locals = n_bind,
                                .port = peer_port(p),
                                .peers = *ret_peers,
                                .n_peers = n_peers };
        return 0;
}

int peer_server_open_for_profile(
        const Profile *p, const ProfileNode *self, Health health, int fd_in, PeerServer **ret) {
        _cleanup_(closep) int fd = fd_in;
        _cleanup_(freep) struct in_addr *bind = NULL, *peers = NULL;
        PeerEndpoints e;
        PeerIdentity id;
        int r;

        r = peer_identity_from_profile(p, self, health, &id);
        if (r < 0)
                return r;
        r = profile_endpoints(p, self, &bind, &peers, &e);
        if (r < 0)
                return r;
        if (fd >= 0)
                return peer_server_adopt(TAKE_FD(fd), &e, &id, ret);
        return peer_server_open(&e, &id, ret);
}

int peer_bulk_server_open_for_profile(const Profile *p, const ProfileNode *self, int fd_in, PeerBulkServer **ret) {
        _cleanup_(closep) int fd = fd_in;
        _cleanup_(freep) struct in_addr *bind = NULL, *peers = NULL;
        PeerEndpoints e;
        int r;

        r = profile_endpoints(p, self, &bind, &peers, &e);
        if (r < 0)
                return r;
        if (fd >= 0)
                return peer_bulk_server_adopt(TAKE_FD(fd), &e, ret);
        return peer_bulk_server_open(&e, ret);
}
