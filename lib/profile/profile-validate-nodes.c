/* SPDX-License-Identifier: MIT */
/* The YAML tree's nodes: section → ProfileNode, and the checks that span nodes: repeated addresses
 * and hostnames, one subnet per link, a match for every link a node uses and a different one for
 * each of its links. */
#include <arpa/inet.h>
#include <stdio.h>

#include "profile/profile-internal.h"

/* Where each node link was given, for the checks across nodes. */
typedef struct Seen {
        const YNode *where; /* the address scalar */
        size_t node, link;
        uint32_t address; /* host byte order, when address_ok */
        bool address_ok;
} Seen;

typedef struct NodesBuild {
        ProfileErrors *errors;
        Profile *profile;
        const YNode *links; /* the links: mapping, NULL when unreadable */
        Seen *seen;
        size_t n_seen;
} NodesBuild;

static const char *const node_link_keys[] = { "address", "match", NULL };

static void check_address(NodesBuild *b, const YNode *v, const char *path, NodeLink *nl, Seen *seen) {
        char buf[MESSAGE_TEXT_BUF];
        const char *s;
        int r;

        if (!ynode_get_string(b->errors, v, path, "ADDRESS/PREFIX, like 192.168.100.1/30", &s))
                return;
        r = ipv4_prefix_from_string(s, &nl->address);
        if (r == -ERANGE) {
                profile_error_at(
                        b->errors,
                        v,
                        path,
                        "'%s' has a prefix length out of range (expected ADDRESS/PREFIX with a prefix length from 1 to 32, like 192.168.100.1/30)",
                        text_for_message(s, buf));
                return;
        }
        if (r < 0) {
                profile_error_at(
                        b->errors,
                        v,
                        path,
                        "'%s' is not an IPv4 address with a prefix length (expected ADDRESS/PREFIX, like 192.168.100.1/30)",
                        text_for_message(s, buf));
                return;
        }
        if (!ipv4_address_is_unicast(nl->address.address)) {
                profile_error_at(
                        b->errors,
                        v,
                        path,
                        "'%s' is not a unicast host address (expected an address outside 0.0.0.0/8, 127.0.0.0/8 and 224.0.0.0/3)",
                        text_for_message(s, buf));
                return;
        }
        if (ipv4_prefix_is_network_or_broadcast(&nl->address)) {
                uint32_t mask = ipv4_prefix_netmask(nl->address.prefixlen);
                bool network = (ntohl(nl->address.address.s_addr) & ~mask) == 0;

                profile_error_at(
                        b->errors,
                        v,
                        path,
                        "'%s' is the %s address of its subnet (expected a host address between them, or a /31 or /32)",
                        text_for_message(s, buf),
                        network ? "network" : "broadcast");
                return;
        }
        seen->address = ntohl(nl->address.address.s_addr);
        seen->address_ok = true;
}

static int build_node_link(
        NodesBuild *b, const char *node_path, const YNode *key, const YNode *v, NodeLink *nl, Seen *seen) {
        char path[KEY_PATH_MAX], sub[KEY_PATH_MAX], buf[MESSAGE_TEXT_BUF];
        const YNode *a, *m;

        key_path_join(path, node_path, key->scalar);
        nl->link = strdup(key->scalar);
        if (!nl->link)
                return -ENOMEM;

        if (b->links && !ynode_map_get(b->links, key->scalar)) {
                _cleanup_(freep) char *known = NULL;
                size_t k = 0, n = 0;

                for (size_t i = 0; i < b->profile->n_links; i++)
                        n += strlen(b->profile->links[i].name) + 2;
                known = malloc(n + 1);
                if (!known)
                        return -ENOMEM;
                for (size_t i = 0; i < b->profile->n_links; i++)
                        k += (size_t) sprintf(known + k, "%s%s", i > 0 ? ", " : "", b->profile->links[i].name);
                known[k] = '\0';
                profile_error_at(
                        b->errors,
                        key,
                        path,
                        "link '%s' is not defined under links: (expected one of: %s)",
                        text_for_message(key->scalar, buf),
                        known);
                return 0;
        }

        if (v->type == YNODE_SCALAR || v->type == YNODE_INVALID) {
                seen->where = v;
                check_address(b, v, path, nl, seen);
        } else if (ynode_require_mapping(
                           b->errors, v, path, "ADDRESS/PREFIX, or a mapping with address: and match:")) {
                ynode_check_keys(b->errors, v, path, node_link_keys);
                a = ynode_map_get(v, "address");
                if (!a) {
                        if (!ynode_key_misspelt(v, "address", node_link_keys))
                                profile_error_at(
                                        b->errors,
                                        v,
                                        path,
                                        "required key address: is missing (expected address: ADDRESS/PREFIX, like 10.0.1.2/24)");
                } else {
                        key_path_join(sub, path, "address");
                        seen->where = a;
                        check_address(b, a, sub, nl, seen);
                }
                m = ynode_map_get(v, "match");
                if (m) {
                        int r;

                        key_path_join(sub, path, "match");
                        r = profile_build_match(b->errors, m, sub, &nl->match);
                        if (r < 0)
                                return r;
                }
        }

        /* Every link a node uses must be findable: by the link's own match or the node's override. */
        if (b->links && !ynode_map_get(ynode_map_get(b->links, key->scalar), "match") &&
            !(v->type == YNODE_MAPPING && ynode_map_get(v, "match")))
                profile_error_at(
                        b->errors,
                        key,
                        path,
                        "nothing tells which interface is '%s' (expected match: under links.%s, or here as { address: …, match: { pci: … } })",
                        text_for_message(key->scalar, buf),
                        text_for_message(key->scalar, buf));
        return 0;
}

static int build_node(NodesBuild *b, const YNode *key, const YNode *v, ProfileNode *node) {
        static const char *const keys[] = { "hostname", "links", "nic", "routes", "forwarding", NULL };
        char path[KEY_PATH_MAX] = "nodes", sub[KEY_PATH_MAX], buf[MESSAGE_TEXT_BUF];
        const YNode *h, *links, *nic;
        const char *s;
        size_t count;
        int r;

        key_path_append(path, key->scalar);
        if (!node_name_is_valid(key->scalar))
                profile_error_at(
                        b->errors,
                        key,
                        path,
                        "'%s' is not a valid node name (expected 1 to 63 letters, digits, '_' or '-', like head)",
                        text_for_message(key->scalar, buf));
        node->name = strdup(key->scalar);
        if (!node->name)
                return -ENOMEM;

        if (!ynode_require_mapping(b->errors, v, path, "a mapping with hostname:, links: and nic:"))
                return 0;
        ynode_check_keys(b->errors, v, path, keys);

        h = ynode_map_get(v, "hostname");
        key_path_join(sub, path, "hostname");
        if (h && ynode_get_string(b->errors, h, sub, "a host name like halo-1", &s)) {
                if (!hostname_is_valid(s))
                        profile_error_at(
                                b->errors,
                                h,
                                sub,
                                "'%s' is not a host name (expected dot-separated labels of letters, digits and '-', like halo-1)",
                                text_for_message(s, buf));
                else if (!(node->hostname = strdup(s)))
                        return -ENOMEM;
        }

        /* The node's own nic: replaces the profile's whole, so it is read on its own, not merged. */
        nic = ynode_map_get(v, "nic");
        if (nic) {
                r = profile_build_nic(b->errors, nic, key_path_join(sub, path, "nic"), &node->nic);
                if (r < 0)
                        return r;
        }

        links = ynode_map_get(v, "links");
        key_path_join(sub, path, "links");
        if (!links) {
                if (!ynode_key_misspelt(v, "links", keys))
                        profile_error_at(
                                b->errors,
                                v,
                                sub,
                                "required key is missing (expected links: { LINK: ADDRESS/PREFIX }, like links: { rdma0: 192.168.100.1/30 })");
                return 0;
        }
        if (!ynode_require_mapping(
                    b->errors,
                    links,
                    sub,
                    "a mapping of link names to addresses, like { rdma0: 192.168.100.1/30 }"))
                return 0;
        count = ynode_map_size(links);
        if (count == 0 || count > PROFILE_LINKS_MAX) {
                profile_error_at(
                        b->errors,
                        links,
                        sub,
                        "%zu links given (expected 1 to %u links, like { rdma0: 192.168.100.1/30 })",
                        count,
                        PROFILE_LINKS_MAX);
                return 0;
        }

        node->links = calloc(count, sizeof(NodeLink));
        if (!node->links)
                return -ENOMEM;
        for (size_t i = 0; i + 1 < links->n_children; i += 2) {
                const YNode *k = &links->children[i];
                Seen *seen;

                if (k->type != YNODE_SCALAR || k->skip)
                        continue;
                seen = &b->seen[b->n_seen++];
                *seen = (Seen){ .node = (size_t) (node - b->profile->nodes), .link = node->n_links };
                r = build_node_link(b, sub, k, k + 1, &node->links[node->n_links++], seen);
                if (r < 0)
                        return r;
        }
        /* After the links: each route is tied to one of them. */
        return profile_build_routes(b->errors, v, path, node);
}

static void check_hostnames(NodesBuild *b, const YNode *nodes) {
        const Profile *p = b->profile;

        for (size_t i = 1; i < p->n_nodes; i++)
                for (size_t j = 0; j < i && p->nodes[i].hostname; j++) {
                        const YNode *where;
                        char path[KEY_PATH_MAX] = "nodes";

                        if (!p->nodes[j].hostname ||
                            strcasecmp(p->nodes[i].hostname, p->nodes[j].hostname) != 0)
                                continue;
                        where = ynode_map_get(ynode_map_get(nodes, p->nodes[i].name), "hostname");
                        key_path_append(path, p->nodes[i].name);
                        key_path_append(path, "hostname");
                        profile_error_at(
                                b->errors,
                                where,
                                path,
                                "hostname '%s' is already the hostname of node '%s' (expected a different hostname on every node)",
                                p->nodes[i].hostname,
                                p->nodes[j].name);
                        break;
                }
}

static void seen_path(const NodesBuild *b, const Seen *s, char path[static KEY_PATH_MAX]) {
        const ProfileNode *n = &b->profile->nodes[s->node];

        (void) snprintf(path, KEY_PATH_MAX, "nodes");
        key_path_append(path, n->name);
        key_path_append(path, "links");
        key_path_append(path, n->links[s->link].link);
}

static int seen_by_address(const void *x, const void *y) {
        const Seen *a = *(Seen *const *) x, *b = *(Seen *const *) y;

        if (a->address != b->address)
                return a->address < b->address ? -1 : 1;
        /* Then in file order, so each run starts with the first use. */
        return (a > b) - (a < b);
}

static int check_repeated_addresses(NodesBuild *b) {
        _cleanup_(freep) Seen **sorted = NULL;
        size_t n = 0;

        sorted = calloc(b->n_seen + 1, sizeof(Seen *));
        if (!sorted)
                return -ENOMEM;
        for (size_t i = 0; i < b->n_seen; i++)
                if (b->seen[i].address_ok)
                        sorted[n++] = &b->seen[i];
        qsort(sorted, n, sizeof(Seen *), seen_by_address);

        for (size_t i = 1, run = 0; i < n; i++) {
                char path[KEY_PATH_MAX], first[KEY_PATH_MAX], a[INET_ADDRSTRLEN];
                struct in_addr in = { .s_addr = htonl(sorted[i]->address) };

                if (sorted[i]->address != sorted[run]->address) {
                        run = i;
                        continue;
                }
                seen_path(b, sorted[i], path);
                seen_path(b, sorted[run], first);
                profile_error_at(
                        b->errors,
                        sorted[i]->where,
                        path,
                        "address %s is already used by %s at line %u (expected a different address on every node and link)",
                        inet_ntop(AF_INET, &in, a, sizeof(a)) ?: "?",
                        first,
                        sorted[run]->where->line);
        }
        return 0;
}

static void check_one_subnet_per_link(NodesBuild *b) {
        const Seen *first[PROFILE_LINKS_MAX] = {};
        const Profile *p = b->profile;

        for (size_t i = 0; i < b->n_seen; i++) {
                const Seen *s = &b->seen[i];
                const NodeLink *nl = &p->nodes[s->node].links[s->link];
                const NodeLink *ref;
                char path[KEY_PATH_MAX], ref_path[KEY_PATH_MAX];
                char given[IPV4_PREFIX_STRING_MAX], subnet[IPV4_PREFIX_STRING_MAX];
                Ipv4Prefix network;
                size_t l;

                if (!s->address_ok)
                        continue;
                for (l = 0; l < p->n_links; l++)
                        if (streq(p->links[l].name, nl->link))
                                break;
                if (l >= p->n_links)
                        continue;
                if (!first[l]) {
                        first[l] = s;
                        continue;
                }
                ref = &p->nodes[first[l]->node].links[first[l]->link];
                if (ipv4_prefix_same_subnet(&nl->address, &ref->address))
                        continue;

                network = ref->address;
                network.address.s_addr = htonl(
                        ntohl(ref->address.address.s_addr) & ipv4_prefix_netmask(ref->address.prefixlen));
                seen_path(b, s, path);
                seen_path(b, first[l], ref_path);
                profile_error_at(
                        b->errors,
                        s->where,
                        path,
                        "%s is not in the subnet %s that %s gives link '%s' at line %u (expected every node's %s address in one subnet, with the same prefix length)",
                        ipv4_prefix_to_string(&nl->address, given),
                        ipv4_prefix_to_string(&network, subnet),
                        ref_path,
                        nl->link,
                        first[l]->where->line,
                        nl->link);
        }
}

static bool link_match_equal(const LinkMatch *a, const LinkMatch *b) {
        return streq_ptr(a->driver, b->driver) && streq_ptr(a->pci, b->pci) && streq_ptr(a->mac, b->mac) &&
                streq_ptr(a->name, b->name);
}

/* Two links of one node with the same match find the same interfaces, so neither can ever resolve to
 * one of its own (a match with no fields is reported above, as no match at all). */
static void check_distinct_matches(NodesBuild *b, const YNode *nodes) {
        const Profile *p = b->profile;

        for (size_t i = 0; i < p->n_nodes; i++) {
                const ProfileNode *n = &p->nodes[i];
                const YNode *links = ynode_map_get(ynode_map_get(nodes, n->name), "links");

                for (size_t j = 1; j < n->n_links; j++)
                        for (size_t k = 0; k < j; k++) {
                                const LinkMatch *m = profile_node_link_match(p, &n->links[j]);
                                char path[KEY_PATH_MAX] = "nodes";

                                if (link_match_is_empty(m) ||
                                    !link_match_equal(m, profile_node_link_match(p, &n->links[k])))
                                        continue;
                                key_path_append(path, n->name);
                                key_path_append(path, "links");
                                key_path_append(path, n->links[j].link);
                                profile_error_at(
                                        b->errors,
                                        ynode_map_get(links, n->links[j].link) ?: links,
                                        path,
                                        "link '%s' has the same match: as link '%s' of node '%s', so both find the same interfaces and neither can be told which is its own (expected a match: for each link that tells them apart, like pci: or name:)",
                                        n->links[j].link,
                                        n->links[k].link,
                                        n->name);
                                break;
                        }
        }
}

/* How many node links there can be, to size the Seen array once. */
static size_t count_node_links(const YNode *nodes) {
        size_t n = 0;

        for (size_t i = 0; i + 1 < nodes->n_children; i += 2) {
                const YNode *links = ynode_map_get(&nodes->children[i + 1], "links");

                if (!nodes->children[i].skip && nodes->children[i].type == YNODE_SCALAR)
                        n += ynode_map_size(links);
        }
        return n;
}

int profile_build_nodes(const YNode *nodes, const YNode *links, ProfileErrors *e, Profile *p) {
        _cleanup_(freep) Seen *seen = NULL;
        NodesBuild b = { .errors = e, .profile = p, .links = links };
        size_t count;
        int r;

        if (!ynode_require_mapping(
                    e,
                    nodes,
                    "nodes",
                    "a mapping of node names, like head: { links: { rdma0: 192.168.100.1/30 } }"))
                return 0;
        count = ynode_map_size(nodes);
        if (count == 0) {
                profile_error_at(
                        e,
                        nodes,
                        "nodes",
                        "no nodes defined (expected at least one node, like head: { links: { rdma0: 192.168.100.1/30 } })");
                return 0;
        }
        if (count > PROFILE_NODES_MAX) {
                profile_error_at(
                        e,
                        nodes,
                        "nodes",
                        "%zu nodes is more than the cap of %u (expected at most %u nodes)",
                        count,
                        PROFILE_NODES_MAX,
                        PROFILE_NODES_MAX);
                return 0;
        }

        p->nodes = calloc(count, sizeof(ProfileNode));
        seen = b.seen = calloc(count_node_links(nodes) + 1, sizeof(Seen));
        if (!p->nodes || !seen)
                return -ENOMEM;
        for (size_t i = 0; i + 1 < nodes->n_children; i += 2) {
                const YNode *k = &nodes->children[i];

                if (k->type != YNODE_SCALAR || k->skip)
                        continue;
                r = build_node(&b, k, k + 1, &p->nodes[p->n_nodes++]);
                if (r < 0)
                        return r;
        }

        check_hostnames(&b, nodes);
        check_distinct_matches(&b, nodes);
        check_one_subnet_per_link(&b);
        return check_repeated_addresses(&b);
}
