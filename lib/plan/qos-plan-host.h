/* SPDX-License-Identifier: MIT */
/* The host's part of a link's qos: that halod sets itself, whatever the backend: RoCE ECN per priority
 * (MLNX_OFED's sysfs, nic/roce-ecn.h) and rdma_cm's default RoCE ToS (its configfs, rdma/rdma-cm.h).
 * The snapshot reads them (SNAPSHOT_QOS_HOST, snapshot/snapshot-qos-host.h), and the counters the metrics and
 * qos.<link>.pause read (SNAPSHOT_QOS_COUNTERS); the plan compares them with the profile
 * (qos-plan-host.c), apply writes the difference (lib/apply/apply-qos-host.c). */
#pragma once

#include "nic/roce-ecn.h"
#include "plan/plan.h"
#include "rdma/rdma-cm.h"
#include "snapshot/snapshot-qos-host.h"

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
