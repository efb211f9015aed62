/* SPDX-License-Identifier: MIT */
/* The DCB part of a link's plan: what the link's qos: asks of PFC, the APP trust order and the DSCP
 * entries of the APP table, compared with the driver's DCB state in the snapshot (SNAPSHOT_DCB). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "net/dcb.h"
#include "plan/change-record.h"
#include "profile/profile.h"

typedef struct LinkPlan LinkPlan;
typedef struct SnapshotDcb SnapshotDcb;

typedef struct LinkPlanDcb {
        DcbState before; /* the driver's state the plan compares with: what a rollback puts back */
        bool pfc_change;
        uint8_t pfc_to;    /* pfc_en wanted; pfc_from is before.pfc.pfc_en */
        bool trust_change; /* only where the driver has a trust table */
        uint8_t trust_to[DCB_TRUST_MAX];
        size_t n_trust_to;
        struct dcb_app add[QOS_DSCP_VALUES]; /* the profile's DSCP entries the APP table lacks */
        size_t n_add;
        size_t n_add_for_trust; /* of them, the last ones: not the profile's map but the entry that makes a
                                 * driver without a trust table trust DSCP (plan_trust()) */
        struct dcb_app remove[DCB_APPS_MAX]; /* entries of those DSCPs with other priorities */
        size_t n_remove;
        bool lldp_agent; /* an E810 whose firmware LLDP agent is on: the switch's DCBX settings win */
} LinkPlanDcb;

/* Plans the DCB part of lp (lp->link and lp->ifname set) from what the snapshot read of its netdev
 * (sd; NULL when not read). Sets lp->dcb when the state was read, also when the link cannot be applied
 * (so that the checks report every difference); what keeps DCB from being applied (no DCB support,
 * the firmware LLDP agent, a trust the driver cannot express) goes to lp->error unless it has one.
 * Returns 0 or -ENOMEM. */
int link_plan_dcb_compute(const ProfileLink *pl, const SnapshotDcb *sd, LinkPlan *lp);
LinkPlanDcb *link_plan_dcb_free(LinkPlanDcb *d);
bool link_plan_dcb_is_empty(const LinkPlanDcb *d) _pure_;
/* The change records of the DCB part, in the order apply makes them: PFC, the DSCP entries, trust. */
int link_plan_dcb_changes(const LinkPlan *lp, PlanChanges *l);
/* The line of a LINK_FIELD_QOS_* record after its label: "pfc none → 3", "trust pcp → dscp,pcp",
 * "dscp-priority 26: none → 3"; NULL for another field or without memory. */
char *plan_change_dcb_describe(const PlanChange *c, const char *label);
