/* SPDX-License-Identifier: MIT */
/* The YAML tree → a node's routes: (static routes to the subnets a chain reaches through a peer) and
 * its forwarding: switch. */
#include <arpa/inet.h>
#include <stdio.h>

#include "profile/profile-internal.h"

static const char *const route_keys[] = { "to", "via", "link", "metric", NULL };

/* The node link whose subnet holds a (network byte order), or NULL. */
static const NodeLink *link_holding(const ProfileNode *node, struct in_addr a) {
        for (size_t i = 0; i < node->n_links; i++) {
                const Ipv4Prefix *p = &node->links[i].address;

                if (p->prefixlen == 0)
                        continue; /* its address did not parse (reported) */
                if (ipv4_prefix_contains(p, a))
                        return &node->links[i];
        }
        return NULL;
}

/* "rdma0 192.168.100.1/30, rdma1 192.168.101.1/30": the subnets a gateway may be in, for messages. */
static int node_subnets(const ProfileNode *node, char **ret) {
        char *buf = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&buf, &size);
        bool first = true;

        if (!f)
                return -ENOMEM;
        for (size_t i = 0; i < node->n_links; i++) {
                char a[IPV4_PREFIX_STRING_MAX];

                if (node->links[i].address.prefixlen == 0)
                        continue;
                fprintf(f,
                        "%s%s %s",
                        first ? "" : ", ",
                        node->links[i].link,
                        ipv4_prefix_to_string(&node->links[i].address, a));
                first = false;
        }
        if (fclose(f) != 0) {
                free(buf);
                return -ENOMEM;
        }
        *ret = buf;
        return 0;
}

static bool read_to(ProfileErrors *e, const YNode *v, const char *path, Ipv4Prefix *ret) {
        char buf[MESSAGE_TEXT_BUF], net[IPV4_PREFIX_STRING_MAX];
        Ipv4Prefix p, n;
        const char *s;
        int r;

        if (!ynode_get_string(e, v, path, "a destination subnet NETWORK/PREFIX, like 10.0.3.0/24", &s))
                return false;
        r = ipv4_prefix_from_string(s, &p);
        if (r == -ERANGE) {
                profile_error_at(
                        e,
                        v,
                        path,
                        "'%s' has a prefix length out of range (expected NETWORK/PREFIX with a prefix length from 1 to 32, like 10.0.3.0/24; a default route does not belong on the fabric)",
                        text_for_message(s, buf));
                return false;
        }
        if (r < 0) {
                profile_error_at(
                        e,
                        v,
                        path,
                        "'%s' is not an IPv4 subnet (expected NETWORK/PREFIX, like 10.0.3.0/24)",
                        text_for_message(s, buf));
                return false;
        }
        n = p;
        n.address.s_addr = htonl(ntohl(p.address.s_addr) & ipv4_prefix_netmask(p.prefixlen));
        if (n.address.s_addr != p.address.s_addr) {
                profile_error_at(
                        e,
                        v,
                        path,
                        "'%s' has host bits set (expected the subnet's network address, %s)",
                        text_for_message(s, buf),
                        ipv4_prefix_to_string(&n, net));
                return false;
        }
        *ret = p;
        return true;
}

static bool read_via(ProfileErrors *e, const YNode *v, const char *path, struct in_addr *ret) {
        char buf[MESSAGE_TEXT_BUF];
        const char *s;

        if (!ynode_get_string(e, v, path, "the gateway's IPv4 address, like 10.0.2.3", &s))
                return false;
        if (inet_pton(AF_INET, s, ret) != 1 || !ipv4_address_is_unicast(*ret)) {
                profile_error_at(
                        e,
                        v,
                        path,
                        "'%s' is not a unicast IPv4 address (expected the gateway's address, like 10.0.2.3)",
                        text_for_message(s, buf));
                return false;
        }
        return true;
}

/* Ties the route to its link: link: when given (via must be in its subnet), else the link whose subnet
 * holds via. */
static int resolve_link(
        ProfileErrors *e, const YNode *item, const char *path, const ProfileNode *node, NodeRoute *route) {
        const YNode *l = ynode_map_get(item, "link"), *via = ynode_map_get(item, "via");
        _cleanup_(freep) char *subnets = NULL;
        char sub[KEY_PATH_MAX], a[INET_ADDRSTRLEN], buf[MESSAGE_TEXT_BUF], p[IPV4_PREFIX_STRING_MAX];
        const NodeLink *holder = link_holding(node, route->via), *named = NULL;
        const char *s;
        int r;

        r = node_subnets(node, &subnets);
        if (r < 0)
                return r;
        inet_ntop(AF_INET, &route->via, a, sizeof(a));
        if (l) {
                key_path_join(sub, path, "link");
                if (!ynode_get_string(e, l, sub, "one of the node's link names", &s))
                        return 0;
                for (size_t i = 0; i < node->n_links; i++)
                        if (streq(node->links[i].link, s))
                                named = &node->links[i];
                if (!named) {
                        profile_error_at(
                                e,
                                l,
                                sub,
                                "'%s' is not one of this node's links (expected one of: %s)",
                                text_for_message(s, buf),
                                isempty(subnets) ? "none" : subnets);
                        return 0;
                }
                if (named->address.prefixlen > 0 && holder != named) {
                        key_path_join(sub, path, "via");
                        profile_error_at(
                                e,
                                via,
                                sub,
                                "gateway %s is not in the subnet of link %s (%s) (expected a gateway the link reaches directly)",
                                a,
                                named->link,
                                ipv4_prefix_to_string(&named->address, p));
                        return 0;
                }
                holder = named;
        } else if (!holder) {
                key_path_join(sub, path, "via");
                profile_error_at(
                        e,
                        via,
                        sub,
                        "gateway %s is in none of this node's link subnets (expected an address in one of: %s)",
                        a,
                        isempty(subnets) ? "none" : subnets);
                return 0;
        }
        route->link = strdup(holder->link);
        return route->link ? 0 : -ENOMEM;
}

/* A route must lead somewhere the node does not reach directly, through somebody else: a route to a
 * link's own subnet (or inside it) would compete with the kernel's connected route (a replace of
 * metric 0 would take its place), and the node's own address as gateway routes into itself. */
static bool route_is_sound(
        ProfileErrors *e, const YNode *item, const char *path, const ProfileNode *node, const NodeRoute *route) {
        char sub[KEY_PATH_MAX], t[IPV4_PREFIX_STRING_MAX], a[IPV4_PREFIX_STRING_MAX];

        for (size_t i = 0; i < node->n_links; i++) {
                const NodeLink *nl = &node->links[i];
                uint32_t mask = ipv4_prefix_netmask(nl->address.prefixlen);
                char v[INET_ADDRSTRLEN];

                if (nl->address.prefixlen == 0)
                        continue;
                if (nl->address.address.s_addr == route->via.s_addr) {
                        profile_error_at(
                                e,
                                ynode_map_get(item, "via"),
                                key_path_join(sub, path, "via"),
                                "gateway %s is this node's own address on link %s (expected a peer's address in %s)",
                                inet_ntop(AF_INET, &route->via, v, sizeof(v)) ?: "?",
                                nl->link,
                                ipv4_prefix_to_string(&nl->address, a));
                        return false;
                }
                /* A wider destination around the link's subnet is fine: the connected route is the
                 * longer match. */
                if (route->to.prefixlen >= nl->address.prefixlen &&
                    (ntohl(nl->address.address.s_addr) & mask) == (ntohl(route->to.address.s_addr) & mask)) {
                        profile_error_at(
                                e,
                                ynode_map_get(item, "to"),
                                key_path_join(sub, path, "to"),
                                "destination %s lies inside the subnet of this node's link %s (%s), which the kernel routes directly (expected a subnet the node reaches only through a peer)",
                                ipv4_prefix_to_string(&route->to, t),
                                nl->link,
                                ipv4_prefix_to_string(&nl->address, a));
                        return false;
                }
        }
        return true;
}

static int build_route(ProfileErrors *e, const YNode *item, const char *path, ProfileNode *node, bool *ret_ok) {
        NodeRoute route = {};
        const YNode *to, *via, *m;
        char sub[KEY_PATH_MAX];
        bool ok = true;
        uint64_t metric;
        int r;

        *ret_ok = false;
        if (!ynode_require_mapping(
                    e, item, path, "a mapping with to: and via:, like { to: 10.0.3.0/24, via: 10.0.2.3 }"))
                return 0;
        ynode_check_keys(e, item, path, route_keys);

        to = ynode_map_get(item, "to");
        via = ynode_map_get(item, "via");
        if (!to && !ynode_key_misspelt(item, "to", route_keys))
                profile_error_at(
                        e,
                        item,
                        path,
                        "required key to: is missing (expected to: NETWORK/PREFIX, like 10.0.3.0/24)");
        if (!via && !ynode_key_misspelt(item, "via", route_keys))
                profile_error_at(
                        e, item, path, "required key via: is missing (expected via: GATEWAY, like 10.0.2.3)");
        if (!to || !read_to(e, to, key_path_join(sub, path, "to"), &route.to))
                ok = false;
        if (!via || !read_via(e, via, key_path_join(sub, path, "via"), &route.via))
                ok = false;
        m = ynode_map_get(item, "metric");
        if (m) {
                if (ynode_get_uint(
                            e,
                            m,
                            key_path_join(sub, path, "metric"),
                            0,
                            UINT32_MAX,
                            "a number from 0 to 4294967295, like 100",
                            &metric)) {
                        route.metric = (uint32_t) metric;
                        route.has_metric = true;
                } else
                        ok = false;
        }
        if (!ok || !route_is_sound(e, item, path, node, &route))
                return 0;
        r = resolve_link(e, item, path, node, &route);
        if (r < 0 || !route.link)
                return r;
        node->routes[node->n_routes++] = route;
        *ret_ok = true;
        return 0;
}

static int cmp_route(const void *a, const void *b) {
        const NodeRoute *x = a, *y = b;
        uint32_t p = ntohl(x->to.address.s_addr), q = ntohl(y->to.address.s_addr);

        if (p != q)
                return p < q ? -1 : 1;
        return (x->to.prefixlen > y->to.prefixlen) - (x->to.prefixlen < y->to.prefixlen);
}

int profile_build_routes(ProfileErrors *e, const YNode *node_map, const char *node_path, ProfileNode *node) {
        _cleanup_(freep) const YNode **where = NULL;
        const YNode *routes, *fw;
        char path[KEY_PATH_MAX];
        int r;

        fw = ynode_map_get(node_map, "forwarding");
        if (fw)
                (void) ynode_get_bool(e, fw, key_path_join(path, node_path, "forwarding"), &node->forwarding);

        routes = ynode_map_get(node_map, "routes");
        key_path_join(path, node_path, "routes");
        if (!routes || ynode_is_null(routes))
                return 0;
        if (!ynode_require_sequence(
                    e, routes, path, "a list of routes, like [ { to: 10.0.3.0/24, via: 10.0.2.3 } ]"))
                return 0;
        if (routes->n_children > PROFILE_ROUTES_MAX) {
                profile_error_at(
                        e,
                        routes,
                        path,
                        "%zu routes given (expected at most %u)",
                        routes->n_children,
                        PROFILE_ROUTES_MAX);
                return 0;
        }
        node->routes = calloc(routes->n_children ?: 1, sizeof(NodeRoute));
        where = calloc(routes->n_children ?: 1, sizeof(YNode *));
        if (!node->routes || !where)
                return -ENOMEM;
        for (size_t i = 0; i < routes->n_children; i++) {
                const YNode *item = &routes->children[i];
                char sub[KEY_PATH_MAX];
                bool ok;

                (void) snprintf(sub, sizeof(sub), "%s", path);
                key_path_append_index(sub, i);
                r = build_route(e, item, sub, node, &ok);
                if (r < 0)
                        return r;
                if (!ok)
                        continue;
                where[node->n_routes - 1] = item;
                /* One route per destination: two would leave the kernel's choice to their metrics. */
                for (size_t j = 0; j + 1 < node->n_routes; j++) {
                        const NodeRoute *a = &node->routes[j], *b = &node->routes[node->n_routes - 1];
                        char t[IPV4_PREFIX_STRING_MAX], first[KEY_PATH_MAX], to_path[KEY_PATH_MAX];

                        if (a->to.address.s_addr != b->to.address.s_addr || a->to.prefixlen != b->to.prefixlen)
                                continue;
                        (void) snprintf(first, sizeof(first), "%s", path);
                        key_path_append_index(first, (size_t) (where[j] - routes->children));
                        profile_error_at(
                                e,
                                ynode_map_get(item, "to"),
                                key_path_join(to_path, sub, "to"),
                                "destination %s is already routed by %s at line %u (expected one route per destination)",
                                ipv4_prefix_to_string(&b->to, t),
                                first,
                                where[j]->line);
                        free(node->routes[--node->n_routes].link);
                        break;
                }
        }
        qsort(node->routes, node->n_routes, sizeof(NodeRoute), cmp_route);
        return 0;
}
