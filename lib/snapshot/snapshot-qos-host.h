/* SPDX-License-Identifier: MIT */
/* The snapshot's host qos parts: each node link's RoCE ECN switches (nic/roce-ecn.h) and rdma_cm's
 * default RoCE ToS (rdma/rdma-cm.h) where its qos: asks for them (SNAPSHOT_QOS_HOST), and every port's
 * pause frames, packets, RDMA hw_counters and the netdev's error and flap counters
 * (SNAPSHOT_QOS_COUNTERS). The plan compares the first with the profile (plan/qos-plan-host.h); the
 * metrics, qos.<link>.pause and the fabric health checks (check/check-fabric-health.h) read the
 * counters. */
#pragma once

#include "basic/time-util.h"
#include "nic/netdev-errors.h"
#include "nic/pause-counters.h"
#include "nic/roce-ecn.h"
#include "rdma/rdma-cm.h"
#include "rdma/rdma-hw-counters.h"
#include "snapshot/snapshot.h"

/* SNAPSHOT_QOS_HOST: one port's ECN and RoCE ToS, below the host root. */
struct SnapshotQosHost {
        int ecn_error; /* 0: ecn holds the switches; -ENOMEDIUM: not asked (the link's qos: sets no ecn,
                        * or it has no netdev); -ENOENT: the netdev has no ECN sysfs; else unreadable */
        RoceEcn ecn;
        char *rdma_device; /* the RDMA device of the netdev (rdma/rdma-sysfs.h); NULL: rdma_error says */
        unsigned rdma_port;
        int rdma_error; /* -ENOMEDIUM: not asked (no roce-tos); -ENODEV: no RDMA device */
        RdmaCmPort cm;  /* valid when cm_error is 0 */
        int cm_error;   /* -ENOMEDIUM: not asked (no roce-tos, or no RDMA device); else unreadable */
};

/* SNAPSHOT_QOS_COUNTERS: one port's counters at one moment. */
struct SnapshotQosCounters {
        usec_t when;         /* CLOCK_MONOTONIC */
        PauseCounters pause; /* valid when pause_error is 0 (known 0: the driver counts none) */
        int pause_error;     /* -ENOMEDIUM: not asked (no netdev, or a tree below --root: ethtool
                              * answers for the running system only) */
        uint64_t packets;    /* rx + tx packets of the netdev */
        int packets_error;
        char *rdma_device; /* NULL when the netdev has no RDMA device */
        unsigned rdma_port;
        uint64_t hw[_RDMA_HW_COUNTER_MAX];
        uint32_t hw_known;           /* bit c: hw[c] was read */
        RdmaCounterDriver hw_driver; /* whose names the hw_counters carry; valid when hw_error is 0 */
        int hw_error;                /* -ENODEV: no RDMA device; -ENOENT: no hw_counters halod knows */
        NetdevCounters netdev;       /* CRC/frame/missed errors, carrier changes, PHY symbol errors */
        int netdev_error;
};

/* Reading and forgetting the two parts (snapshot_read() and snapshot_forget() call them). */
int snapshot_read_qos_host(Snapshot *s);
void snapshot_forget_qos_host(Snapshot *s);
int snapshot_read_qos_counters(Snapshot *s);
void snapshot_forget_qos_counters(Snapshot *s);
