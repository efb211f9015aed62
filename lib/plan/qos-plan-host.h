/* SPDX-License-Identifier: MIT */
/* The host's part of a link's qos: that halod sets itself, whatever the backend: RoCE ECN per priority
 * (MLNX_OFED's sysfs, nic/roce-ecn.h) and rdma_cm's default RoCE ToS (its configfs, nic/rdma-cm.h).
 * The snapshot reads them (SNAPSHOT_QOS_HOST, snapshot-qos-host.c), and the counters the metrics and
 * qos.<link>.pause read (SNAPSHOT_QOS_COUNTERS); the plan compares them with the profile
 * (qos-plan-host.c), apply writes the difference (lib/apply/apply-qos-host.c). */
#pragma once

#include "basic/time-util.h"
#include "nic/pause-counters.h"
#include "nic/rdma-cm.h"
#include "nic/rdma-hw-counters.h"
#include "nic/roce-ecn.h"
#include "plan/plan.h"

/* SNAPSHOT_QOS_HOST: one port's ECN and RoCE ToS, below the host root. */
struct SnapshotQosHost {
        int ecn_error; /* 0: ecn holds the switches; -ENOMEDIUM: not asked (the link's qos: sets no ecn,
                        * or it has no netdev); -ENOENT: the netdev has no ECN sysfs; else unreadable */
        RoceEcn ecn;
        char *rdma_device; /* the RDMA device of the netdev (nic/rdma-sysfs.h); NULL: rdma_error says */
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
        uint32_t hw_known; /* bit c: hw[c] was read */
};

/* What the daemon keeps between two verifies for qos.<link>.pause: each netdev's pause frames and
 * packets at the last verify. Set Snapshot.pause_history to it; the check reads and updates it. */
typedef struct PauseSample {
        char *ifname;
        usec_t when;
        uint64_t pause;
        uint64_t packets;
} PauseSample;

struct PauseHistory {
        PauseSample *samples;
        size_t n;
};

void pause_history_done(PauseHistory *h);
const PauseSample *pause_history_find(const PauseHistory *h, const char *ifname) _pure_;
int pause_history_put(PauseHistory *h, const char *ifname, usec_t when, uint64_t pause, uint64_t packets);

/* Reading and forgetting the two parts (snapshot_read() and snapshot_forget() call them). */
int snapshot_read_qos_host(Snapshot *s);
void snapshot_forget_qos_host(Snapshot *s);
int snapshot_read_qos_counters(Snapshot *s);
void snapshot_forget_qos_counters(Snapshot *s);

/* One ECN switch to change: priority, point, from, to. */
typedef struct QosEcnChange {
        unsigned priority;
        RoceEcnPoint point;
        bool on; /* what it becomes */
} QosEcnChange;

/* The host's qos part of a link's plan. */
struct LinkPlanQosHost {
        QosEcnChange ecn[QOS_PRIORITIES * _ROCE_ECN_POINT_MAX];
        size_t n_ecn;
        char *rdma_device; /* set when the ToS changes */
        unsigned rdma_port;
        bool create_cm_device; /* rdma_cm's configfs has no directory for the device: mkdir it first */
        int tos_from;          /* -1: unknown (the directory is not there yet) */
        int tos_to;            /* -1: no change */
};

/* The plan of the host's qos part of one link from what the snapshot read of it (NULL: not read);
 * sets lp->qos_host when something is to change. Returns 0 or -ENOMEM. */
int link_plan_qos_host_compute(const ProfileLink *pl, const SnapshotQosHost *sq, LinkPlan *lp);
void link_plan_qos_host_free(LinkPlanQosHost *q);
bool link_plan_qos_host_is_empty(const LinkPlanQosHost *q) _pure_;
/* Appends its change records: LINK_FIELD_QOS_ECN "3:off/off" → "3:on/on" (priority: notification
 * point/reaction point), LINK_FIELD_QOS_TOS "0" → "106" ("" when unknown, before the directory). */
int link_plan_qos_host_changes(const LinkPlan *lp, PlanChanges *l);
/* "rdma0 (enp1s0f0np0): ecn off → on (priority 3)", "rdma0 (enp1s0f0np0): roce-tos 0 → 106". */
char *plan_change_qos_host_describe(const PlanChange *c, const char *label);
