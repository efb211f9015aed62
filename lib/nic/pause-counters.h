/* SPDX-License-Identifier: MIT */
/* Per-priority PFC pause frames from a driver's ethtool statistics, under each driver's names (mlx5:
 * rx_prio3_pause, tx_prio3_pause; ice: rx_priority_3_xoff.nic, tx_priority_3_xoff.nic), and the
 * netdev's packet counters they are judged against. */
#pragma once

#include <stdint.h>

#include "basic/host.h"
#include "basic/qos-values.h"
#include "nic/ethtool.h"

typedef struct PauseCounters {
        uint8_t known;               /* bit p: the driver counts priority p's pause frames */
        uint64_t rx[QOS_PRIORITIES]; /* pause (XOFF) frames received: the peer asked us to stop */
        uint64_t tx[QOS_PRIORITIES]; /* sent: we asked the peer to stop */
} PauseCounters;

/* Picks the pause counters out of the statistics; known 0 when the driver has none (veth). */
void pause_counters_from_stats(const EthtoolStats *s, PauseCounters *ret);
/* All priorities' frames, both directions. */
uint64_t pause_counters_total(const PauseCounters *p) _pure_;

/* rx_packets + tx_packets of /sys/class/net/IF/statistics below the host root. */
int netdev_packets_read(const Host *h, const char *ifname, uint64_t *ret);
