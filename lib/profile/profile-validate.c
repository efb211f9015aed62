/* SPDX-License-Identifier: MIT */
/* The YAML tree → Profile: every section but nodes and nic (see profile-validate-nodes.c and
 * profile-validate-nic.c), with every value checked against halod.yaml(5) and every default filled
 * in. */
#include <stdio.h>

#include "basic/rdma-mtu.h"
#include "basic/strv.h"
#include "basic/time-util.h"
#include "basic/transport-verdict.h"
#include "profile/profile-internal.h"

#define LINK_MTU_EXPECTED \
        "an MTU from " STRINGIFY(PROFILE_LINK_MTU_MIN) " to " STRINGIFY(PROFILE_LINK_MTU_MAX) ", like 9000"

#define PATH(parent, key) key_path_join(path, parent, key)

static void report_missing(
        ProfileErrors *e, const YNode *map, const char *key, const char *const *known, const char *expected) {
        if (!ynode_key_misspelt(map, key, known))
                profile_error_at(e, map, key, "required key is missing (expected %s)", expected);
}

static int build_link(ProfileErrors *e, const YNode *key, const YNode *n, ProfileLink *l) {
        static const char *const keys[] = { "match", "mtu", "firewall-zone", "ipv6", "qos", NULL };
        char base[KEY_PATH_MAX] = "links", path[KEY_PATH_MAX], buf[MESSAGE_TEXT_BUF];
        const YNode *v;
        uint64_t u;
        const char *s;
        int r;

        key_path_append(base, key->scalar);
        if (!link_name_is_valid(key->scalar))
                profile_error_at(
                        e,
                        key,
                        base,
                        "'%s' is not a valid link name (expected 1 to 15 lower-case letters, digits, '_' or '-', like rdma0)",
                        text_for_message(key->scalar, buf));
        l->name = strdup(key->scalar);
        if (!l->name)
                return -ENOMEM;

        if (!ynode_require_mapping(e, n, base, "a mapping with match:, mtu:, firewall-zone:, ipv6:, qos:"))
                return 0;
        ynode_check_keys(e, n, base, keys);

        v = ynode_map_get(n, "match");
        if (v) {
                r = profile_build_match(e, v, PATH(base, "match"), &l->match);
                if (r < 0)
                        return r;
        }

        v = ynode_map_get(n, "mtu");
        if (v &&
            ynode_get_uint(
                    e, v, PATH(base, "mtu"), PROFILE_LINK_MTU_MIN, PROFILE_LINK_MTU_MAX, LINK_MTU_EXPECTED, &u))
                l->mtu = (uint32_t) u;

        v = ynode_map_get(n, "firewall-zone");
        if (v &&
            ynode_get_string(e, v, PATH(base, "firewall-zone"), "a firewalld zone name like trusted", &s)) {
                if (!zone_name_is_valid(s))
                        profile_error_at(
                                e,
                                v,
                                path,
                                "'%s' is not a zone name (expected a firewalld zone name of 1 to 63 letters, digits, '_' or '-', like trusted)",
                                text_for_message(s, buf));
                else if (!(l->firewall_zone = strdup(s)))
                        return -ENOMEM;
        }

        v = ynode_map_get(n, "ipv6");
        if (v)
                (void) ynode_get_bool(e, v, PATH(base, "ipv6"), &l->ipv6);

        v = ynode_map_get(n, "qos");
        if (v)
                return profile_build_qos(e, v, PATH(base, "qos"), &l->qos);
        return 0;
}

static int build_links(ProfileErrors *e, const YNode *n, Profile *p) {
        size_t count;
        int r;

        if (!ynode_require_mapping(
                    e, n, "links", "a mapping of link names, like rdma0: { match: { driver: ice } }"))
                return 0;
        count = ynode_map_size(n);
        if (count == 0) {
                profile_error_at(
                        e,
                        n,
                        "links",
                        "no links defined (expected at least one link, like rdma0: { match: { driver: ice } })");
                return 0;
        }
        if (count > PROFILE_LINKS_MAX) {
                profile_error_at(
                        e,
                        n,
                        "links",
                        "%zu links is more than the cap of %u (expected at most %u links)",
                        count,
                        PROFILE_LINKS_MAX,
                        PROFILE_LINKS_MAX);
                return 0;
        }

        p->links = calloc(count, sizeof(ProfileLink));
        if (!p->links)
                return -ENOMEM;
        for (size_t i = 0; i + 1 < n->n_children; i += 2) {
                const YNode *k = &n->children[i];

                if (k->type != YNODE_SCALAR || k->skip)
                        continue;
                profile_qos_init(&p->links[p->n_links].qos);
                r = build_link(e, k, k + 1, &p->links[p->n_links++]);
                if (r < 0)
                        return r;
        }
        return 0;
}

static void build_rdma(ProfileErrors *e, const YNode *n, ProfileRdma *rdma) {
        static const char *const keys[] = { "required", "gid", "min-active-mtu", "memlock", "limits",
                                            "modules",  NULL };
        static const char *const gids[] = { "roce-v2", "roce-v1", "ib", NULL };
        static const char *const policies[] = { "check", "manage", NULL };
        char buf[MESSAGE_TEXT_BUF];
        const YNode *v;
        const char *s;
        uint64_t u;
        int i;

        if (ynode_is_null(n))
                return;
        if (!ynode_require_mapping(
                    e, n, "rdma", "a mapping with required:, gid:, min-active-mtu:, memlock:, limits:, modules:"))
                return;
        ynode_check_keys(e, n, "rdma", keys);
        rdma->present = true;

        v = ynode_map_get(n, "required");
        if (v)
                (void) ynode_get_bool(e, v, "rdma.required", &rdma->required);

        v = ynode_map_get(n, "gid");
        if (v && (i = ynode_get_choice(e, v, "rdma.gid", gids, "roce-v2, roce-v1 or ib")) >= 0)
                rdma->gid = (RdmaGidType) i;

        v = ynode_map_get(n, "min-active-mtu");
        if (v &&
            ynode_get_uint(
                    e, v, "rdma.min-active-mtu", RDMA_MTU_MIN, RDMA_MTU_MAX, "an RDMA MTU of " RDMA_MTU_VALUES, &u)) {
                if (!rdma_mtu_is_valid((unsigned) u))
                        profile_error_at(
                                e,
                                v,
                                "rdma.min-active-mtu",
                                "%u is not an RDMA MTU (expected " RDMA_MTU_VALUES ")",
                                (unsigned) u);
                else
                        rdma->min_active_mtu = (uint32_t) u;
        }

        v = ynode_map_get(n, "memlock");
        if (v && ynode_get_string(e, v, "rdma.memlock", "unlimited, or a size like 64M", &s)) {
                if (streq(s, "unlimited"))
                        rdma->memlock = UINT64_MAX;
                else if (parse_size_bytes(s, &u) < 0 || u == 0 || u == UINT64_MAX)
                        profile_error_at(
                                e,
                                v,
                                "rdma.memlock",
                                "'%s' is not a size (expected unlimited, or a number of bytes above 0 with an optional K, M, G or T suffix, like 64M)",
                                text_for_message(s, buf));
                else
                        rdma->memlock = u;
        }

        v = ynode_map_get(n, "limits");
        if (v && (i = ynode_get_choice(e, v, "rdma.limits", policies, "check or manage")) >= 0)
                rdma->limits = (RdmaSetupPolicy) i;
        /* manage writes the limit memlock: names; without one there is nothing to write. */
        if (v && rdma->limits == RDMA_SETUP_MANAGE && rdma->memlock == 0)
                profile_error_at(
                        e,
                        v,
                        "rdma.limits",
                        "manage needs rdma.memlock, the limit to write (expected memlock: unlimited, or a size like "
                        "64M, beside limits: manage)");

        v = ynode_map_get(n, "modules");
        if (v && (i = ynode_get_choice(e, v, "rdma.modules", policies, "check or manage")) >= 0)
                rdma->modules = (RdmaSetupPolicy) i;
}

static int build_kernel(ProfileErrors *e, const YNode *n, Profile *p) {
        static const char *const keys[] = { "cmdline", "boot", NULL };
        static const char *const boot_policies[] = { "check", "manage", NULL };
        char path[KEY_PATH_MAX], buf[MESSAGE_TEXT_BUF];
        const YNode *v;
        const char *s;
        int r, policy;

        if (ynode_is_null(n))
                return 0;
        if (!ynode_require_mapping(e, n, "kernel", "a mapping with cmdline: and boot:"))
                return 0;
        ynode_check_keys(e, n, "kernel", keys);

        v = ynode_map_get(n, "boot");
        if (v && (policy = ynode_get_choice(e, v, "kernel.boot", boot_policies, "check or manage")) >= 0)
                p->kernel_boot = (BootPolicy) policy;

        v = ynode_map_get(n, "cmdline");
        if (!v || ynode_is_null(v))
                return 0;
        if (!ynode_require_sequence(
                    e, v, "kernel.cmdline", "a list of kernel parameters, like [iommu=pt, pcie_aspm=off]"))
                return 0;
        if (v->n_children > PROFILE_LIST_MAX) {
                profile_error_at(
                        e,
                        v,
                        "kernel.cmdline",
                        "%zu parameters is more than the cap of %u (expected at most %u kernel parameters)",
                        v->n_children,
                        PROFILE_LIST_MAX,
                        PROFILE_LIST_MAX);
                return 0;
        }
        for (size_t i = 0; i < v->n_children; i++) {
                const YNode *item = &v->children[i];

                (void) snprintf(path, sizeof(path), "kernel.cmdline[%zu]", i);
                if (!ynode_get_string(e, item, path, "a kernel parameter, name or name=value", &s))
                        continue;
                if (!kernel_parameter_is_valid(s)) {
                        profile_error_at(
                                e,
                                item,
                                path,
                                "'%s' is not a kernel parameter (expected name or name=value without spaces, like iommu=pt; quote a value with spaces as name=\"a b\")",
                                text_for_message(s, buf));
                        continue;
                }
                r = strv_extend(&p->kernel_cmdline, s);
                if (r < 0)
                        return r;
        }
        return 0;
}

static void build_health(ProfileErrors *e, const YNode *n, ProfileHealth *h) {
        static const char *const keys[] = { "interval", "peers",         "port", "prometheus-textfile",
                                            "hosts",    "tcp-bulk-mbit", NULL };
        static const char *const hosts_policies[] = { "check", "manage", NULL };
        char buf[MESSAGE_TEXT_BUF];
        const YNode *v;
        const char *s;
        uint64_t u;
        int i;

        if (ynode_is_null(n))
                return;
        if (!ynode_require_mapping(
                    e,
                    n,
                    "health",
                    "a mapping with interval:, peers:, port:, prometheus-textfile:, hosts:, tcp-bulk-mbit:"))
                return;
        ynode_check_keys(e, n, "health", keys);

        v = ynode_map_get(n, "interval");
        if (v && ynode_get_string(e, v, "health.interval", "a duration from 1s to 24h, like 60s or 5m", &s)) {
                int r = parse_duration_usec(s, &u);

                if (r == -EINVAL)
                        profile_error_at(
                                e,
                                v,
                                "health.interval",
                                "'%s' is not a duration (expected a number with a unit ms, s, m or h, from 1s to 24h, like 60s or 5m)",
                                text_for_message(s, buf));
                else if (r < 0 || u < USEC_PER_SEC || u > 24 * USEC_PER_HOUR)
                        profile_error_at(
                                e,
                                v,
                                "health.interval",
                                "%s is out of range (expected a duration from 1s to 24h)",
                                text_for_message(s, buf));
                else
                        h->interval_usec = u;
        }

        v = ynode_map_get(n, "peers");
        if (v)
                (void) ynode_get_bool(e, v, "health.peers", &h->peers);

        v = ynode_map_get(n, "port");
        /* Below 1024 are the well-known services' ports; the probe port (peer_probe_port()) is the only
         * privileged port halod takes, with the CAP_NET_BIND_SERVICE its unit gives it for that. */
        if (v && ynode_get_uint(e, v, "health.port", 1024, 65535, "a UDP port from 1024 to 65535", &u))
                h->port = (uint16_t) u;

        /* node_exporter's textfile collector reads only *.prom files, and halod's working directory
         * is /: a relative or misnamed path would be written where nothing ever reads it. */
        v = ynode_map_get(n, "prometheus-textfile");
        if (v &&
            ynode_get_string(
                    e,
                    v,
                    "health.prometheus-textfile",
                    "an absolute path ending in .prom, like /var/lib/prometheus/node-exporter/halod.prom",
                    &s)) {
                const char *base = strrchr(s, '/');

                if (s[0] != '/')
                        profile_error_at(
                                e,
                                v,
                                "health.prometheus-textfile",
                                "'%s' is not an absolute path (expected the full path of a file in node_exporter's --collector.textfile.directory, like /var/lib/prometheus/node-exporter/halod.prom)",
                                text_for_message(s, buf));
                else if (strlen(base) <= strlen("/.prom") || !streq(s + strlen(s) - strlen(".prom"), ".prom"))
                        profile_error_at(
                                e,
                                v,
                                "health.prometheus-textfile",
                                "'%s' does not end in .prom (expected a file name like halod.prom: node_exporter's textfile collector reads only *.prom files)",
                                text_for_message(s, buf));
                else if (!(h->prometheus_textfile = strdup(s)))
                        e->oom = true;
        }

        v = ynode_map_get(n, "hosts");
        if (v && (i = ynode_get_choice(e, v, "health.hosts", hosts_policies, "check or manage")) >= 0)
                h->hosts = (HostsPolicy) i;

        /* Whole Mbit/s: the control traffic that must never trip it is well under 1 Mbit/s, and a
         * 100 Gbit/s link is the most a node has. */
        v = ynode_map_get(n, "tcp-bulk-mbit");
        if (v &&
            ynode_get_uint(
                    e, v, "health.tcp-bulk-mbit", 1, 100000, "a rate in Mbit/s from 1 to 100000, like 10", &u))
                h->tcp_bulk_bps = u * 1000ULL * 1000ULL;
}

int profile_build(const YNode *root, ProfileErrors *e, Profile *p) {
        static const char *const keys[] = { "cluster", "mode",       "links", "nic",    "rdma", "kernel",
                                            "gpu",     "memory-min", "nodes", "health", NULL };
        static const char *const modes[] = { "enforce", "verify", NULL };
        char buf[MESSAGE_TEXT_BUF];
        const YNode *v, *links;
        const char *s;
        int r, i;

        p->mode = PROFILE_MODE_ENFORCE;
        p->rdma = (ProfileRdma){ .required = true, .gid = RDMA_GID_ROCE_V2 };
        p->health = (ProfileHealth){ .interval_usec = 60 * USEC_PER_SEC,
                                     .peers = true,
                                     .port = PROFILE_DEFAULT_PEER_PORT,
                                     .tcp_bulk_bps = TRANSPORT_THRESHOLD_BPS_DEFAULT };

        if (root->type == YNODE_INVALID || ynode_is_null(root)) {
                profile_errors_add(
                        e, 1, 1, NULL, "profile is empty (expected a mapping with cluster:, links:, nodes:)");
                return 0;
        }
        if (root->type != YNODE_MAPPING) {
                profile_error_at(
                        e,
                        root,
                        NULL,
                        "the profile is %s (expected a mapping with cluster:, links:, nodes:)",
                        root->type == YNODE_SEQUENCE ? "a list" : "a single value");
                return 0;
        }
        ynode_check_keys(e, root, "", keys);

        v = ynode_map_get(root, "cluster");
        if (!v)
                report_missing(
                        e, root, "cluster", keys, "cluster: NAME at the top level, like cluster: strix-halo");
        else if (ynode_get_string(e, v, "cluster", "a cluster name like strix-halo", &s)) {
                if (!cluster_name_is_valid(s))
                        profile_error_at(
                                e,
                                v,
                                "cluster",
                                "'%s' is not a valid cluster name (expected 1 to 63 letters, digits, '.', '_' or '-', like strix-halo)",
                                text_for_message(s, buf));
                else if (!(p->cluster = strdup(s)))
                        return -ENOMEM;
        }

        v = ynode_map_get(root, "mode");
        if (v && (i = ynode_get_choice(e, v, "mode", modes, "enforce or verify")) >= 0)
                p->mode = (ProfileMode) i;

        links = ynode_map_get(root, "links");
        if (!links)
                report_missing(
                        e,
                        root,
                        "links",
                        keys,
                        "links: with at least one link, like rdma0: { match: { driver: ice } }");
        else {
                r = build_links(e, links, p);
                if (r < 0)
                        return r;
        }

        v = ynode_map_get(root, "nic");
        if (v) {
                r = profile_build_nic(e, v, "nic", &p->nic);
                if (r < 0)
                        return r;
        }

        v = ynode_map_get(root, "rdma");
        if (v)
                build_rdma(e, v, &p->rdma);

        v = ynode_map_get(root, "kernel");
        if (v) {
                r = build_kernel(e, v, p);
                if (r < 0)
                        return r;
        }

        v = ynode_map_get(root, "gpu");
        if (v)
                profile_build_gpu(e, v, &p->gpu);

        v = ynode_map_get(root, "memory-min");
        if (v)
                profile_build_memory_min(e, v, p);

        v = ynode_map_get(root, "health");
        if (v)
                build_health(e, v, &p->health);

        v = ynode_map_get(root, "nodes");
        if (!v)
                report_missing(
                        e,
                        root,
                        "nodes",
                        keys,
                        "nodes: with at least one node, like head: { links: { rdma0: 192.168.100.1/30 } }");
        else {
                /* Without a readable links: section every node link would be reported as undefined. */
                r = profile_build_nodes(v, p->n_links > 0 ? links : NULL, e, p);
                if (r < 0)
                        return r;
        }

        /* After the nodes: a link's MTU rule is that of the NICs of the nodes that use it. */
        profile_check_reachable(e, root, p);
        return 0;
}
