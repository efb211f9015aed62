/* SPDX-License-Identifier: MIT */
/* The normalized profile as JSON: the YAML's shape and key names, with every default filled in. */
#include <arpa/inet.h>
#include <inttypes.h>

#include "profile/profile-internal.h"

static void dump_match(JsonWriter *w, const LinkMatch *m) {
        json_begin_object(w);
        json_kv_string(w, "driver", m->driver);
        json_kv_string(w, "pci", m->pci);
        json_kv_string(w, "mac", m->mac);
        json_kv_string(w, "name", m->name);
        json_end_object(w);
}

/* 0 means "not checked" in the structs: null in JSON. */
static void kv_uint_or_null(JsonWriter *w, const char *key, uint64_t v) {
        json_key(w, key);
        if (v == 0)
                json_null(w);
        else
                json_uint(w, v);
}

/* null for what the profile leaves out (neither checked nor applied). The DSCP map in DSCP order, so
 * that the digest does not depend on the order it was written in. */
static void dump_qos(JsonWriter *w, const ProfileQos *q) {
        json_key(w, "qos");
        if (!q->present) {
                json_null(w);
                return;
        }
        json_begin_object(w);
        json_key(w, "pfc");
        if (q->has_pfc) {
                json_begin_array(w);
                for (unsigned p = 0; p < QOS_PRIORITIES; p++)
                        if (q->pfc & (1U << p))
                                json_uint(w, p);
                json_end_array(w);
        } else
                json_null(w);
        json_kv_string(w, "trust", q->trust >= 0 ? qos_trust_to_string(q->trust) : NULL);
        json_key(w, "dscp-priority");
        if (q->has_dscp_map) {
                json_begin_object(w);
                for (unsigned d = 0; d < QOS_DSCP_VALUES; d++)
                        if (q->dscp_priority[d] >= 0) {
                                char key[16];

                                (void) snprintf(key, sizeof(key), "%u", d);
                                json_kv_uint(w, key, (uint64_t) q->dscp_priority[d]);
                        }
                json_end_object(w);
        } else
                json_null(w);
        json_key(w, "ecn");
        if (q->ecn < 0)
                json_null(w);
        else
                json_bool(w, q->ecn > 0);
        json_key(w, "roce-tos");
        if (q->roce_tos < 0)
                json_null(w);
        else
                json_uint(w, (uint64_t) q->roce_tos);
        json_end_object(w);
}

static void dump_links(JsonWriter *w, const Profile *p) {
        json_key(w, "links");
        json_begin_object(w);
        for (size_t i = 0; i < p->n_links; i++) {
                const ProfileLink *l = &p->links[i];

                json_key(w, l->name);
                json_begin_object(w);
                json_key(w, "match");
                dump_match(w, &l->match);
                kv_uint_or_null(w, "mtu", l->mtu);
                json_kv_string(w, "firewall-zone", l->firewall_zone);
                json_kv_bool(w, "ipv6", l->ipv6);
                dump_qos(w, &l->qos);
                json_end_object(w);
        }
        json_end_object(w);
}

void profile_nic_dump_json(const ProfileNic *nic, JsonWriter *w) {
        json_begin_object(w);
        json_kv_bool(w, "present", nic->present);
        json_key(w, "pci-ids");
        json_begin_array(w);
        for (size_t i = 0; i < nic->n_pci_ids; i++) {
                char id[16];

                (void) snprintf(id, sizeof(id), "%04x:%04x", nic->pci_ids[i].vendor, nic->pci_ids[i].device);
                json_string(w, id);
        }
        json_end_array(w);
        json_kv_string(w, "driver", nic->driver);
        json_kv_string(w, "firmware-min", nic->firmware_min);
        kv_uint_or_null(w, "pcie-min-width", nic->pcie_min_width);
        json_key(w, "speed-min");
        if (nic->speed_min_mbit == 0)
                json_null(w);
        else {
                char speed[16];

                (void) snprintf(speed, sizeof(speed), "%" PRIu32 "G", nic->speed_min_mbit / 1000);
                json_string(w, speed);
        }
        kv_uint_or_null(w, "speed-min-mbit", nic->speed_min_mbit);
        json_kv_string(w, "fw-lldp-agent", nic->has_fw_lldp_agent ? (nic->fw_lldp_agent ? "on" : "off") : NULL);
        json_kv_bool(w, "enable-roce", nic->enable_roce);
        json_end_object(w);
}

static void dump_rdma(JsonWriter *w, const ProfileRdma *rdma) {
        json_key(w, "rdma");
        json_begin_object(w);
        json_kv_bool(w, "present", rdma->present);
        json_kv_bool(w, "required", rdma->required);
        json_kv_string(w, "gid", rdma_gid_type_to_string(rdma->gid));
        kv_uint_or_null(w, "min-active-mtu", rdma->min_active_mtu);
        json_key(w, "memlock");
        if (rdma->memlock == UINT64_MAX)
                json_string(w, "unlimited");
        else if (rdma->memlock == 0)
                json_null(w);
        else
                json_uint(w, rdma->memlock);
        json_kv_string(w, "limits", rdma_setup_policy_to_string(rdma->limits));
        json_kv_string(w, "modules", rdma_setup_policy_to_string(rdma->modules));
        json_end_object(w);
}

static void dump_nodes(JsonWriter *w, const Profile *p) {
        json_key(w, "nodes");
        json_begin_object(w);
        for (size_t i = 0; i < p->n_nodes; i++) {
                const ProfileNode *n = &p->nodes[i];

                json_key(w, n->name);
                json_begin_object(w);
                json_kv_string(w, "hostname", n->hostname);
                json_key(w, "links");
                json_begin_object(w);
                for (size_t j = 0; j < n->n_links; j++) {
                        const NodeLink *nl = &n->links[j];
                        char a[IPV4_PREFIX_STRING_MAX];

                        json_key(w, nl->link);
                        json_begin_object(w);
                        json_kv_string(w, "address", ipv4_prefix_to_string(&nl->address, a));
                        json_key(w, "match");
                        if (link_match_is_empty(&nl->match))
                                json_null(w);
                        else
                                dump_match(w, &nl->match);
                        json_end_object(w);
                }
                json_end_object(w);
                json_key(w, "routes");
                json_begin_array(w);
                for (size_t j = 0; j < n->n_routes; j++) {
                        const NodeRoute *rt = &n->routes[j];
                        char t[IPV4_PREFIX_STRING_MAX], v[INET_ADDRSTRLEN];

                        json_begin_object(w);
                        json_kv_string(w, "to", ipv4_prefix_to_string(&rt->to, t));
                        json_kv_string(w, "via", inet_ntop(AF_INET, &rt->via, v, sizeof(v)));
                        json_kv_string(w, "link", rt->link);
                        json_key(w, "metric");
                        if (rt->has_metric)
                                json_uint(w, rt->metric);
                        else
                                json_null(w);
                        json_end_object(w);
                }
                json_end_array(w);
                json_kv_bool(w, "forwarding", n->forwarding);
                /* null: the node takes the profile's nic: (see profile_node_nic()). */
                json_key(w, "nic");
                if (n->nic.present)
                        profile_nic_dump_json(&n->nic, w);
                else
                        json_null(w);
                json_end_object(w);
        }
        json_end_object(w);
}

void profile_dump_json(const Profile *p, JsonWriter *w) {
        char d[32];

        json_begin_object(w);
        json_kv_string(w, "path", p->path);
        json_kv_string(w, "cluster", p->cluster);
        json_kv_string(w, "mode", profile_mode_to_string(p->mode));
        dump_links(w, p);
        json_key(w, "nic");
        profile_nic_dump_json(&p->nic, w);
        dump_rdma(w, &p->rdma);

        json_key(w, "kernel");
        json_begin_object(w);
        json_kv_string(w, "boot", boot_policy_to_string(p->kernel_boot));
        json_key(w, "cmdline");
        json_begin_array(w);
        for (char **s = p->kernel_cmdline; s && *s; s++)
                json_string(w, *s);
        json_end_array(w);
        json_end_object(w);

        /* Sizes in bytes; null: not checked. */
        json_key(w, "gpu");
        json_begin_object(w);
        json_kv_bool(w, "present", p->gpu.present);
        kv_uint_or_null(w, "vram-max", p->gpu.vram_max);
        json_end_object(w);
        kv_uint_or_null(w, "memory-min", p->memory_min);

        dump_nodes(w, p);

        json_key(w, "health");
        json_begin_object(w);
        json_kv_string(w, "interval", format_duration(p->health.interval_usec, d));
        json_kv_uint(w, "interval-usec", p->health.interval_usec);
        json_kv_bool(w, "peers", p->health.peers);
        json_kv_uint(w, "port", p->health.port);
        json_kv_string(w, "prometheus-textfile", p->health.prometheus_textfile);
        json_kv_string(w, "hosts", hosts_policy_to_string(p->health.hosts));
        json_kv_uint(w, "tcp-bulk-mbit", p->health.tcp_bulk_bps / (1000ULL * 1000ULL));
        json_end_object(w);
        json_end_object(w);
}
