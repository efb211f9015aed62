/* SPDX-License-Identifier: MIT */
/* A nic: section → ProfileNic, for the profile's (nic:) and a node's own (nodes.NAME.nic:) alike. */
#include <inttypes.h>
#include <stdio.h>

#include "profile/profile-internal.h"

#define SPEED_EXPECTED "a whole number of Gbit/s from 1 to 1600 with an optional G, like 100 or 100G"

#define PATH(key) key_path_join(path, key_path, key)

static int build_pci_ids(ProfileErrors *e, const YNode *v, const char *key_path, ProfileNic *nic) {
        char path[KEY_PATH_MAX], buf[MESSAGE_TEXT_BUF];
        const char *s;

        if (!ynode_require_sequence(e, v, key_path, "a list of \"vendor:device\" ids, like [\"8086:1592\"]"))
                return 0;
        if (v->n_children == 0 || v->n_children > PROFILE_LIST_MAX) {
                profile_error_at(
                        e,
                        v,
                        key_path,
                        "%zu ids given (expected 1 to %u \"vendor:device\" ids, like [\"8086:1592\"])",
                        v->n_children,
                        PROFILE_LIST_MAX);
                return 0;
        }

        nic->pci_ids = calloc(v->n_children, sizeof(PciId));
        if (!nic->pci_ids)
                return -ENOMEM;
        for (size_t i = 0; i < v->n_children; i++) {
                const YNode *item = &v->children[i];

                (void) snprintf(path, sizeof(path), "%s", key_path);
                key_path_append_index(path, i);
                if (!ynode_get_string(e, item, path, "a \"vendor:device\" id in hex, like \"8086:1592\"", &s))
                        continue;
                if (pci_id_from_string(s, &nic->pci_ids[nic->n_pci_ids]) < 0)
                        profile_error_at(
                                e,
                                item,
                                path,
                                "'%s' is not a PCI id (expected \"vendor:device\" as two 4-digit hex numbers, like \"8086:1592\")",
                                text_for_message(s, buf));
                else
                        nic->n_pci_ids++;
        }
        return 0;
}

/* speed-min in Gbit/s, as people write a link's speed ("100G"); the common slips get a hint. */
static void build_speed_min(ProfileErrors *e, const YNode *v, const char *key_path, ProfileNic *nic) {
        char buf[MESSAGE_TEXT_BUF];
        const char *s, *end;
        unsigned gbit;
        uint64_t n;
        int r;

        if (!ynode_get_string(e, v, key_path, SPEED_EXPECTED, &s))
                return;
        r = parse_speed_gbit(s, &gbit);
        if (r >= 0) {
                nic->speed_min_mbit = gbit * 1000U;
                return;
        }

        /* "100Gb", "100GbE", "100 Gbit/s", "100g": the number is there, the unit is not ours. */
        for (end = s, n = 0; *end >= '0' && *end <= '9' && n <= PROFILE_NIC_SPEED_MIN_GBIT_MAX; end++)
                n = n * 10 + (uint64_t) (*end - '0');
        if (r == -EINVAL && end > s && s[0] != '0' && n >= 1 && n <= PROFILE_NIC_SPEED_MIN_GBIT_MAX &&
            (*end == 'G' || *end == 'g' || *end == ' '))
                profile_error_at(
                        e,
                        v,
                        key_path,
                        "'%s' is not a speed, did you mean '%" PRIu64 "G'? (expected %s)",
                        text_for_message(s, buf),
                        n,
                        SPEED_EXPECTED);
        else if (r == -EINVAL)
                profile_error_at(
                        e,
                        v,
                        key_path,
                        "'%s' is not a speed (expected %s)",
                        text_for_message(s, buf),
                        SPEED_EXPECTED);
        /* 25000 is what ethtool shows for 25 Gbit/s: Mbit/s. */
        else if (parse_uint64(s, &n) >= 0 && n % 1000 == 0 && n / 1000 >= 1 && n / 1000 <= PROFILE_NIC_SPEED_MIN_GBIT_MAX)
                profile_error_at(
                        e,
                        v,
                        key_path,
                        "%s is out of range, did you mean '%" PRIu64
                        "G'? speed-min is in Gbit/s, not Mbit/s as ethtool shows it (expected %s)",
                        text_for_message(s, buf),
                        n / 1000,
                        SPEED_EXPECTED);
        else
                profile_error_at(
                        e,
                        v,
                        key_path,
                        "%s is out of range (expected %s)",
                        text_for_message(s, buf),
                        SPEED_EXPECTED);
}

int profile_build_nic(ProfileErrors *e, const YNode *n, const char *key_path, ProfileNic *nic) {
        static const char *const keys[] = { "pci-ids",   "driver",        "firmware-min", "pcie-min-width",
                                            "speed-min", "fw-lldp-agent", "enable-roce",  NULL };
        static const char *const on_off[] = { "off", "on", NULL };
        bool b;
        int i;
        char path[KEY_PATH_MAX], buf[MESSAGE_TEXT_BUF];
        const YNode *v;
        const char *s;
        uint64_t u;

        if (ynode_is_null(n)) /* "nic:" with everything below commented out */
                return 0;
        if (!ynode_require_mapping(
                    e,
                    n,
                    key_path,
                    "a mapping with pci-ids:, driver:, firmware-min:, pcie-min-width:, speed-min:, fw-lldp-agent:, "
                    "enable-roce:"))
                return 0;
        ynode_check_keys(e, n, key_path, keys);
        nic->present = true;

        v = ynode_map_get(n, "pci-ids");
        if (v) {
                int r = build_pci_ids(e, v, PATH("pci-ids"), nic);
                if (r < 0)
                        return r;
        }

        v = ynode_map_get(n, "driver");
        if (v && ynode_get_string(e, v, PATH("driver"), "a kernel driver name like ice or mlx5_core", &s)) {
                if (!driver_name_is_valid(s))
                        profile_error_at(
                                e,
                                v,
                                path,
                                "'%s' is not a driver name (expected a kernel driver name like ice or mlx5_core: letters, digits, '.', '_', '-')",
                                text_for_message(s, buf));
                else if (!(nic->driver = strdup(s)))
                        return -ENOMEM;
        }

        /* Taken verbatim: a plain 4.90 must stay "4.90", not become the float 4.9. */
        v = ynode_map_get(n, "firmware-min");
        if (v && ynode_get_string(e, v, PATH("firmware-min"), "a firmware version like \"4.91\"", &s)) {
                if (!firmware_version_is_valid(s))
                        profile_error_at(
                                e,
                                v,
                                path,
                                "'%s' is not a firmware version (expected digits, letters, '.', '_', '+' or '-', like \"4.91\")",
                                text_for_message(s, buf));
                else if (!(nic->firmware_min = strdup(s)))
                        return -ENOMEM;
        }

        v = ynode_map_get(n, "pcie-min-width");
        if (v &&
            ynode_get_uint(e, v, PATH("pcie-min-width"), 1, 16, "a PCIe link width of 1, 2, 4, 8 or 16", &u)) {
                if ((u & (u - 1)) != 0)
                        profile_error_at(
                                e,
                                v,
                                path,
                                "x%u is not a PCIe link width (expected 1, 2, 4, 8 or 16)",
                                (unsigned) u);
                else
                        nic->pcie_min_width = (unsigned) u;
        }

        v = ynode_map_get(n, "speed-min");
        if (v)
                build_speed_min(e, v, PATH("speed-min"), nic);

        v = ynode_map_get(n, "fw-lldp-agent");
        if (v && (i = ynode_get_choice(e, v, PATH("fw-lldp-agent"), on_off, "off or on")) >= 0) {
                nic->fw_lldp_agent = i;
                nic->has_fw_lldp_agent = true;
        }

        /* halod turns RoCE on, never off: false would mean another fabric. */
        v = ynode_map_get(n, "enable-roce");
        if (v && ynode_get_bool(e, v, PATH("enable-roce"), &b)) {
                if (!b)
                        profile_error_at(
                                e,
                                v,
                                path,
                                "halod turns RoCE on, never off (expected true, or leave enable-roce out)");
                else
                        nic->enable_roce = true;
        }
        return 0;
}
