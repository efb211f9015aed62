/* SPDX-License-Identifier: MIT */
/* A netdev's own error and flap counters: the link stats64 the kernel keeps for every netdev
 * (rx_crc_errors, rx_frame_errors, rx_missed_errors; net/core/net-sysfs.c shows the same
 * rtnl_link_stats64 fields rtnetlink's IFLA_STATS64 carries, below statistics/), its carrier
 * transitions (carrier_changes, carrier_down_count: IFLA_CARRIER_CHANGES and IFLA_CARRIER_DOWN_COUNT),
 * and the PHY's symbol and FEC counters where the driver puts them among its ethtool statistics
 * (mlx5: rx_pcs_symbol_err_phy, symbols FEC could not correct; rx_corrected_bits_phy, bits it did;
 * en_stats.c's pport_phy_statistical_stats_desc). */
#pragma once

#include <errno.h>
#include <stdint.h>

#include "basic/host.h"
#include "basic/macro.h"
#include "nic/ethtool.h"

typedef enum NetdevCounter {
        NETDEV_RX_CRC_ERRORS,      /* statistics/rx_crc_errors */
        NETDEV_RX_FRAME_ERRORS,    /* statistics/rx_frame_errors */
        NETDEV_RX_MISSED_ERRORS,   /* statistics/rx_missed_errors: the host did not keep up */
        NETDEV_CARRIER_CHANGES,    /* carrier_changes: ups and downs */
        NETDEV_CARRIER_DOWN_COUNT, /* carrier_down_count: downs */
        NETDEV_SYMBOL_ERRORS,      /* ethtool -S: rx_pcs_symbol_err_phy (mlx5) */
        NETDEV_FEC_CORRECTED_BITS, /* ethtool -S: rx_corrected_bits_phy (mlx5) */
        _NETDEV_COUNTER_MAX,
        _NETDEV_COUNTER_INVALID = -EINVAL,
} NetdevCounter;

typedef struct NetdevCounters {
        uint64_t value[_NETDEV_COUNTER_MAX];
        uint32_t known; /* bit c: value[c] was read */
} NetdevCounters;

/* The file or ethtool statistic the counter comes from ("statistics/rx_crc_errors"). */
const char *netdev_counter_to_string(NetdevCounter c) _pure_;
/* In words: "CRC errors". */
const char *netdev_counter_label(NetdevCounter c) _pure_;

/* The sysfs counters of ifname below the host root (carrier_changes only where carrier_down_count is
 * missing); one that cannot be read stays unknown. Returns 0, -EINVAL for a bad name or -ENOMEM. */
int netdev_counters_read(const Host *h, const char *ifname, NetdevCounters *ret);
/* Adds the PHY counters found among a driver's ethtool statistics (read for the pause frames). */
void netdev_counters_from_stats(const EthtoolStats *s, NetdevCounters *c);
