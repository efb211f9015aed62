/* SPDX-License-Identifier: MIT */
/* A netdev's error and flap counters from sysfs, and the PHY's from its ethtool statistics. */
#include <stdio.h>
#include <string.h>

#include "nic/host-attr.h"
#include "nic/netdev-errors.h"

static const char *const netdev_counter_table[_NETDEV_COUNTER_MAX] = {
        [NETDEV_RX_CRC_ERRORS] = "statistics/rx_crc_errors",
        [NETDEV_RX_FRAME_ERRORS] = "statistics/rx_frame_errors",
        [NETDEV_RX_MISSED_ERRORS] = "statistics/rx_missed_errors",
        [NETDEV_CARRIER_CHANGES] = "carrier_changes",
        [NETDEV_CARRIER_DOWN_COUNT] = "carrier_down_count",
        [NETDEV_SYMBOL_ERRORS] = "rx_pcs_symbol_err_phy",
        [NETDEV_FEC_CORRECTED_BITS] = "rx_corrected_bits_phy",
};

DEFINE_STRING_TABLE_LOOKUP_TO_STRING(netdev_counter, NetdevCounter);

static const char *const netdev_counter_label_table[_NETDEV_COUNTER_MAX] = {
        [NETDEV_RX_CRC_ERRORS] = "CRC errors",
        [NETDEV_RX_FRAME_ERRORS] = "frame errors",
        [NETDEV_RX_MISSED_ERRORS] = "missed (ring full)",
        [NETDEV_CARRIER_CHANGES] = "carrier changes",
        [NETDEV_CARRIER_DOWN_COUNT] = "carrier downs",
        [NETDEV_SYMBOL_ERRORS] = "symbol errors",
        [NETDEV_FEC_CORRECTED_BITS] = "FEC corrected bits",
};

const char *netdev_counter_label(NetdevCounter c) {
        if (c < 0 || c >= _NETDEV_COUNTER_MAX)
                return NULL;
        return netdev_counter_label_table[c];
}

int netdev_counters_read(const Host *h, const char *ifname, NetdevCounters *ret) {
        NetdevCounters c = {};

        if (isempty(ifname) || strchr(ifname, '/'))
                return -EINVAL;
        for (NetdevCounter k = 0; k <= NETDEV_CARRIER_DOWN_COUNT; k++) {
                _cleanup_(freep) char *path = NULL;
                int r;

                /* carrier_down_count (Linux 4.16) says what the checks want; carrier_changes, the
                 * downs and ups together, only where it is missing: a file fewer per verify. */
                if (k == NETDEV_CARRIER_CHANGES)
                        continue;

                if (asprintf(&path, "/sys/class/net/%s/%s", ifname, netdev_counter_to_string(k)) < 0)
                        return -ENOMEM;
                r = host_attr_read_u64(h, path, &c.value[k]);
                if (r == -ENOMEM)
                        return r;
                if (r >= 0)
                        c.known |= 1U << k;
        }
        if (!(c.known & (1U << NETDEV_CARRIER_DOWN_COUNT))) {
                _cleanup_(freep) char *path = NULL;
                int r;

                if (asprintf(&path, "/sys/class/net/%s/carrier_changes", ifname) < 0)
                        return -ENOMEM;
                r = host_attr_read_u64(h, path, &c.value[NETDEV_CARRIER_CHANGES]);
                if (r == -ENOMEM)
                        return r;
                if (r >= 0)
                        c.known |= 1U << NETDEV_CARRIER_CHANGES;
        }
        *ret = c;
        return 0;
}

void netdev_counters_from_stats(const EthtoolStats *s, NetdevCounters *c) {
        for (NetdevCounter k = NETDEV_SYMBOL_ERRORS; k < _NETDEV_COUNTER_MAX; k++)
                if (ethtool_stats_find(s, netdev_counter_to_string(k), &c->value[k]) >= 0)
                        c->known |= 1U << k;
}
