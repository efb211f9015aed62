/* SPDX-License-Identifier: MIT */
/* The qos.<link>.pfc and qos.<link>.trust checks: the driver's DCB state against the link's qos:,
 * reported from the DCB part of the plan (plan/qos-plan-dcb.h). */
#pragma once

#include "check/checks.h"
#include "plan/plan.h"

/* Runs the two checks of every link of c->node from the snapshot s (reading what it lacks: on the
 * running system the kernel's link and DCB state; under --root they skip). */
int check_qos_dcb(
        const NodeContext *c, const Snapshot *s, const CheckHistory *before, CheckHistory *after, CheckList *out);

/* The pure part: the two checks of one link from its plan lp (lp->dcb: the DCB comparison) and what
 * the snapshot read of its DCB state (sd: the error, NULL when not read); state_note, when set, is why
 * nothing was read (both checks then skip with it). */
int check_qos_dcb_evaluate(
        const ProfileLink *pl,
        const NodeLink *nl,
        const LinkPlan *lp,
        const SnapshotDcb *sd,
        const char *state_note,
        CheckList *out);

/* The parts (check-qos-trust.c): qos.<link>.trust of a link whose DCB state was read (lp->dcb), and
 * the words for an E810 whose firmware LLDP agent is on, into buf. */
int check_qos_trust(const ProfileQos *q, const NodeLink *nl, const LinkPlan *lp, CheckList *out);
const char *qos_dcb_lldp_hint(const LinkPlan *lp, char *buf, size_t size);
