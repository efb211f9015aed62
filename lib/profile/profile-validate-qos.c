/* SPDX-License-Identifier: MIT */
/* A link's qos: mapping → ProfileQos (PFC priorities, trust, the DSCP → priority map, ECN, the RoCE
 * ToS), and the combinations that would lose the lossless class without an error anywhere else. */
#include <stdio.h>

#include "profile/profile-internal.h"

#define PRIORITY_EXPECTED "a priority from 0 to 7"
#define PFC_EXPECTED \
        "a list of the priorities from 0 to 7 with PFC on, like [3]; [] for PFC off on every priority"
#define DSCP_MAP_EXPECTED "a mapping of DSCP (0 to 63) to priority (0 to 7), like { 26: 3 }"
#define TOS_EXPECTED "a ToS from 0 to 255, DSCP × 4 + ECN bits, like 106 for DSCP 26 with ECT(0)"

#define PATH(key) key_path_join(path, key_path, key)

/* The priorities of mask as the profile writes them: "[0, 3]". buf holds 32 bytes. */
static const char *format_priorities(uint8_t mask, char buf[static 32]) {
        size_t n = 0;

        n += (size_t) snprintf(buf + n, 32 - n, "[");
        for (unsigned p = 0; p < QOS_PRIORITIES; p++)
                if (mask & (1U << p))
                        n += (size_t) snprintf(buf + n, 32 - n, "%s%u", n > 1 ? ", " : "", p);
        (void) snprintf(buf + n, 32 - n, "]");
        return buf;
}

/* Returns false when something in the list was wrong (reported): q is then left alone. */
static bool build_pfc(ProfileErrors *e, const YNode *v, const char *key_path, ProfileQos *q) {
        char path[KEY_PATH_MAX];
        size_t first[QOS_PRIORITIES];
        uint8_t mask = 0;
        bool ok = true;

        if (!ynode_require_sequence(e, v, key_path, PFC_EXPECTED))
                return false;
        for (size_t i = 0; i < v->n_children; i++) {
                const YNode *item = &v->children[i];
                uint64_t u;

                (void) snprintf(path, sizeof(path), "%s", key_path);
                key_path_append_index(path, i);
                if (!ynode_get_uint(e, item, path, 0, QOS_PRIORITIES - 1, PRIORITY_EXPECTED, &u)) {
                        ok = false;
                        continue;
                }
                if (mask & (1U << u)) {
                        profile_error_at(
                                e,
                                item,
                                path,
                                "priority %u is listed twice, first at [%zu] (expected each priority at most once)",
                                (unsigned) u,
                                first[u]);
                        ok = false;
                        continue;
                }
                mask |= (uint8_t) (1U << u);
                first[u] = i;
        }
        if (!ok)
                return false;
        q->has_pfc = true;
        q->pfc = mask;
        return true;
}

static bool build_dscp_priority(ProfileErrors *e, const YNode *v, const char *key_path, ProfileQos *q) {
        int8_t map[QOS_DSCP_VALUES];
        char path[KEY_PATH_MAX];
        bool ok = true;

        if (!ynode_require_mapping(e, v, key_path, DSCP_MAP_EXPECTED))
                return false;
        memset(map, -1, sizeof(map));
        for (size_t i = 0; i + 1 < v->n_children; i += 2) {
                const YNode *k = &v->children[i], *val = k + 1;
                uint64_t dscp, prio;

                if (k->skip) /* a repeated key: reported by the parser */
                        continue;
                if (k->type != YNODE_SCALAR) {
                        ok = false;
                        continue;
                }
                key_path_join(path, key_path, k->scalar);
                if (!ynode_get_uint(
                            e, k, path, 0, QOS_DSCP_VALUES - 1, "a DSCP from 0 to 63 as the key, like 26: 3", &dscp)) {
                        ok = false;
                        continue;
                }
                if (!ynode_get_uint(
                            e, val, path, 0, QOS_PRIORITIES - 1, PRIORITY_EXPECTED ", like 26: 3", &prio)) {
                        ok = false;
                        continue;
                }
                map[dscp] = (int8_t) prio;
        }
        if (!ok)
                return false;
        q->has_dscp_map = true;
        memcpy(q->dscp_priority, map, sizeof(map));
        return true;
}

/* The value node of DSCP dscp in a dscp-priority: mapping that was read without error. */
static const YNode *dscp_entry(const YNode *map, unsigned dscp) {
        char key[16];

        (void) snprintf(key, sizeof(key), "%u", dscp);
        return ynode_map_get(map, key);
}

/* What each part means for the others, checked once every part read without error. The class is
 * lost silently when RoCE traffic does not travel on a priority with PFC on: every piece is valid
 * alone, the NIC accepts it, and packets drop at the first congestion. */
static void check_combination(
        ProfileErrors *e, const YNode *n, const char *key_path, const ProfileQos *q, const YNode *tos_node) {
        const YNode *map_node = ynode_map_get(n, "dscp-priority");
        char path[KEY_PATH_MAX], pfc[32];
        unsigned tos, dscp;
        int prio;

        if (q->has_dscp_map && q->trust == QOS_TRUST_PCP)
                profile_error_at(
                        e,
                        map_node,
                        PATH("dscp-priority"),
                        "with trust: pcp the NIC classifies by the VLAN priority and ignores this map (expected trust: dscp, or no dscp-priority:)");
        else if (q->has_dscp_map && q->trust < 0)
                profile_error_at(
                        e,
                        map_node,
                        PATH("dscp-priority"),
                        "the map is used only when the NIC trusts DSCP, and trust: is not set: the NICs' default is pcp, which ignores it (expected trust: dscp beside dscp-priority:)");

        if (q->roce_tos < 0)
                return;
        tos = (unsigned) q->roce_tos;
        dscp = tos >> 2;

        if ((tos & 3U) == 3U)
                profile_error_at(
                        e,
                        tos_node,
                        PATH("roce-tos"),
                        "roce-tos %u is DSCP %u marked CE (congestion experienced) on every packet: the receiver would answer each with a congestion notification and the sender slow down for nothing (expected DSCP × 4 + 2 for ECT(0), like %u)",
                        tos,
                        dscp,
                        dscp * 4 + 2);
        else if ((tos & 3U) == 0 && q->ecn == 1)
                profile_error_at(
                        e,
                        tos_node,
                        PATH("roce-tos"),
                        "roce-tos %u is DSCP %u without ECN-capable transport, so no switch can mark it and ecn: true never hears of congestion; %u marks it ECT(0) (expected DSCP × 4 + 2, like %u)",
                        tos,
                        dscp,
                        dscp * 4 + 2,
                        dscp * 4 + 2);

        if (q->trust == QOS_TRUST_DSCP) {
                bool lossless = q->has_pfc && q->pfc != 0;

                /* A DSCP the profile leaves unmapped goes where the NIC's own map puts it, which
                 * validate cannot know: mlx5 in trust dscp installs its firmware's map (DSCP >> 3, so
                 * 26 → 3) in the APP table, ice sends such a DSCP on priority 0. qos.<link>.trust
                 * judges it on the node, from the APP table the kernel reports. */
                prio = q->dscp_priority[dscp];
                if (prio < 0)
                        return;
                if (lossless && !(q->pfc & (1U << prio))) {
                        char key[16];

                        (void) snprintf(key, sizeof(key), "%u", dscp);
                        key_path_join(path, key_path, "dscp-priority");
                        key_path_append(path, key);
                        profile_error_at(
                                e,
                                dscp_entry(map_node, dscp) ?: map_node,
                                path,
                                "roce-tos %u is DSCP %u, which maps to priority %d, and pfc: %s leaves priority %d without PFC: RoCE traffic would be dropped at the first congestion instead of paused (expected %u: %u, or %d added to pfc)",
                                tos,
                                dscp,
                                prio,
                                format_priorities(q->pfc, pfc),
                                prio,
                                dscp,
                                qos_suggested_roce_priority(q->pfc),
                                prio);
                }
                return;
        }

        if (q->trust < 0 && q->has_pfc && q->pfc != 0 && !q->has_dscp_map)
                profile_error_at(
                        e,
                        tos_node,
                        PATH("roce-tos"),
                        "the priority that RoCE traffic with ToS %u travels on depends on what the NIC trusts, and trust: is not set (expected trust: dscp with dscp-priority: { %u: %u }, or trust: pcp with the VLAN priority in pfc: %s)",
                        tos,
                        dscp,
                        qos_suggested_roce_priority(q->pfc),
                        format_priorities(q->pfc, pfc));
}

int profile_build_qos(ProfileErrors *e, const YNode *n, const char *key_path, ProfileQos *q) {
        static const char *const keys[] = { "pfc", "trust", "dscp-priority", "ecn", "roce-tos", NULL };
        static const char *const trusts[] = { "pcp", "dscp", NULL };
        char path[KEY_PATH_MAX];
        const YNode *v, *tos_node;
        bool ok = true;
        uint64_t u;
        int i;

        if (ynode_is_null(n)) /* "qos:" with everything below commented out */
                return 0;
        if (!ynode_require_mapping(
                    e,
                    n,
                    key_path,
                    "a mapping with pfc:, trust:, dscp-priority:, ecn:, roce-tos:, like { pfc: [3], trust: dscp }"))
                return 0;
        ynode_check_keys(e, n, key_path, keys);
        q->present = true;

        v = ynode_map_get(n, "pfc");
        if (v)
                ok = build_pfc(e, v, PATH("pfc"), q) && ok;

        v = ynode_map_get(n, "trust");
        if (v) {
                i = ynode_get_choice(e, v, PATH("trust"), trusts, "pcp or dscp");
                if (i >= 0)
                        q->trust = (QosTrust) i;
                else
                        ok = false;
        }

        v = ynode_map_get(n, "dscp-priority");
        if (v)
                ok = build_dscp_priority(e, v, PATH("dscp-priority"), q) && ok;

        v = ynode_map_get(n, "ecn");
        if (v) {
                bool b;

                if (ynode_get_bool(e, v, PATH("ecn"), &b))
                        q->ecn = b;
                else
                        ok = false;
        }

        tos_node = ynode_map_get(n, "roce-tos");
        if (tos_node) {
                if (ynode_get_uint(e, tos_node, PATH("roce-tos"), 0, 255, TOS_EXPECTED, &u))
                        q->roce_tos = (int) u;
                else
                        ok = false;
        }

        /* A part that is wrong was reported: what follows from it would only repeat the error. */
        if (ok)
                check_combination(e, n, key_path, q, tos_node);
        return 0;
}
