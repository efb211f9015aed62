/* SPDX-License-Identifier: MIT */
/* Reading the snapshot's host qos parts: ECN and the RoCE ToS where a link's qos: asks for them, and
 * every port's pause frames, packets and RDMA hw_counters. */
#include "snapshot/snapshot-qos-host.h"
#include "basic/strv.h"
#include "nic/netdev-pci.h"
#include "rdma/rdma-sysfs.h"
#include "snapshot/snapshot-rdma-name.h"

void snapshot_forget_qos_host(Snapshot *s) {
        for (size_t i = 0; s->qos_host && i < s->n_ports; i++) {
                free(s->qos_host[i].rdma_device);
                rdma_cm_port_done(&s->qos_host[i].cm);
        }
        s->qos_host = mfree(s->qos_host);
        s->parts &= ~SNAPSHOT_QOS_HOST;
}

void snapshot_forget_qos_counters(Snapshot *s) {
        for (size_t i = 0; s->qos_counters && i < s->n_ports; i++)
                free(s->qos_counters[i].rdma_device);
        s->qos_counters = mfree(s->qos_counters);
        s->parts &= ~SNAPSHOT_QOS_COUNTERS;
}

/* A copy of port i's RDMA device, found once per snapshot (snapshot-rdma-name.h). */
static int find_rdma_device(Snapshot *s, size_t i, char **ret_device, unsigned *ret_port) {
        const char *device;
        int r = snapshot_rdma_name(s, i, &device, ret_port);

        if (r < 0)
                return r;
        *ret_device = strdup(device);
        return *ret_device ? 0 : -ENOMEM;
}

static int read_port_qos(Snapshot *s, size_t i, const ProfileQos *q, SnapshotQosHost *ret) {
        const Host *h = s->context->host;
        const char *ifname = s->ports[i].ifname;
        int r;

        *ret = (SnapshotQosHost){ .ecn_error = -ENOMEDIUM, .rdma_error = -ENOMEDIUM, .cm_error = -ENOMEDIUM };
        if (!ifname || !q->present)
                return 0;
        if (q->ecn >= 0) {
                r = roce_ecn_read(h, ifname, &ret->ecn);
                if (r == -ENOMEM)
                        return r;
                ret->ecn_error = r < 0 ? r : 0;
        }
        if (q->roce_tos < 0)
                return 0;
        r = find_rdma_device(s, i, &ret->rdma_device, &ret->rdma_port);
        if (r == -ENOMEM)
                return r;
        ret->rdma_error = r < 0 ? r : 0;
        if (r < 0)
                return 0;
        r = rdma_cm_read(h, ret->rdma_device, ret->rdma_port, &ret->cm);
        if (r == -ENOMEM)
                return r;
        ret->cm_error = r < 0 ? r : 0;
        return 0;
}

int snapshot_read_qos_host(Snapshot *s) {
        const NodeContext *c = s->context;
        int r;

        s->qos_host = calloc(s->n_ports ?: 1, sizeof(SnapshotQosHost));
        if (!s->qos_host)
                return -ENOMEM;
        for (size_t i = 0; i < s->n_ports; i++) {
                const ProfileLink *pl = profile_find_link(c->profile, s->ports[i].link);
                ProfileQos none;

                profile_qos_init(&none);
                r = read_port_qos(s, i, pl ? &pl->qos : &none, &s->qos_host[i]);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* The netdev's packets and error and flap counters from the link the snapshot's rtnetlink dump already
 * holds: no file to open per verify. False where it does not hold them (a tree below --root, the
 * links not read). */
static bool counters_from_kernel_link(const RtnlLink *l, SnapshotQosCounters *ret) {
        if (!l || !l->has_stats)
                return false;
        ret->packets = l->rx_packets + l->tx_packets;
        ret->packets_error = 0;
        ret->netdev = (NetdevCounters){};
        ret->netdev.value[NETDEV_RX_CRC_ERRORS] = l->rx_crc_errors;
        ret->netdev.value[NETDEV_RX_FRAME_ERRORS] = l->rx_frame_errors;
        ret->netdev.value[NETDEV_RX_MISSED_ERRORS] = l->rx_missed_errors;
        ret->netdev.known = 1U << NETDEV_RX_CRC_ERRORS | 1U << NETDEV_RX_FRAME_ERRORS |
                1U << NETDEV_RX_MISSED_ERRORS;
        if (l->has_carrier_down_count) {
                ret->netdev.value[NETDEV_CARRIER_DOWN_COUNT] = l->carrier_down_count;
                ret->netdev.known |= 1U << NETDEV_CARRIER_DOWN_COUNT;
        } else if (l->has_carrier_changes) {
                ret->netdev.value[NETDEV_CARRIER_CHANGES] = l->carrier_changes;
                ret->netdev.known |= 1U << NETDEV_CARRIER_CHANGES;
        }
        ret->netdev_error = 0;
        return true;
}

static int read_netdev_counters(const Host *h, const char *ifname, SnapshotQosCounters *ret) {
        int r;

        r = netdev_packets_read(h, ifname, &ret->packets);
        if (r == -ENOMEM)
                return r;
        ret->packets_error = r < 0 ? r : 0;
        r = netdev_counters_read(h, ifname, &ret->netdev);
        if (r == -ENOMEM)
                return r;
        ret->netdev_error = r < 0 ? r : 0;
        return 0;
}

static int read_port_counters(Snapshot *s, size_t i, SnapshotQosCounters *ret) {
        const Host *h = s->context->host;
        const RtnlLink *link = snapshot_kernel_link(s, i);
        const char *ifname = s->ports[i].ifname;
        _cleanup_(ethtool_stats_done) EthtoolStats stats = {};
        int r;

        *ret = (SnapshotQosCounters){ .when = now(CLOCK_MONOTONIC),
                                      .pause_error = -ENOMEDIUM,
                                      .packets_error = -ENOMEDIUM,
                                      .hw_driver = _RDMA_COUNTER_DRIVER_INVALID,
                                      .hw_error = -ENODEV,
                                      .netdev_error = -ENOMEDIUM };
        if (!ifname)
                return 0;
        if (host_is_running_system(h)) {
                r = ethtool_get_stats(ifname, &stats);
                if (r == -ENOMEM)
                        return r;
                ret->pause_error = r < 0 ? r : 0;
                if (r >= 0)
                        pause_counters_from_stats(&stats, &ret->pause);
        }
        if (!counters_from_kernel_link(link, ret)) {
                r = read_netdev_counters(h, ifname, ret);
                if (r < 0)
                        return r;
        }
        if (ret->netdev_error == 0 && ret->pause_error == 0)
                netdev_counters_from_stats(&stats, &ret->netdev);

        r = find_rdma_device(s, i, &ret->rdma_device, &ret->rdma_port);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return (void) (ret->hw_error = r == -ENOENT ? -ENODEV : r), 0;
        r = rdma_sysfs_read_hw_counters(
                h, ret->rdma_device, ret->rdma_port, &ret->hw_driver, ret->hw, &ret->hw_known);
        if (r == -ENOMEM)
                return r;
        ret->hw_error = r < 0 ? r : 0;
        return 0;
}

int snapshot_read_qos_counters(Snapshot *s) {
        int r;

        s->qos_counters = calloc(s->n_ports ?: 1, sizeof(SnapshotQosCounters));
        if (!s->qos_counters)
                return -ENOMEM;
        for (size_t i = 0; i < s->n_ports; i++) {
                r = read_port_counters(s, i, &s->qos_counters[i]);
                if (r < 0)
                        return r;
        }
        return 0;
}
