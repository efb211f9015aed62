/* SPDX-License-Identifier: MIT */
/* Applying the DCB part of a link's plan (plan/qos-plan-dcb.h) through DCB netlink, whichever network
 * backend runs: neither NetworkManager nor networkd manages DCB. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "plan/plan.h"

/* What apply_qos_dcb_link() changed: exactly what a rollback undoes. */
typedef struct ApplyDcbUndo {
        bool pfc;                    /* PFC was set: lp->dcb->before.pfc goes back */
        bool added[QOS_DSCP_VALUES]; /* lp->dcb->add[i] was added */
        bool removed[DCB_APPS_MAX];  /* lp->dcb->remove[i] was deleted */
        bool trust;                  /* the trust order was set: lp->dcb->before.trust goes back */
} ApplyDcbUndo;

/* Makes the netdev's DCB state what lp->dcb plans: PFC, then the DSCP entries (added, then the same
 * DSCPs' entries with other priorities deleted), then the trust order. On failure puts back what it
 * changed and returns negative errno (net/dcb.h's contract) with a message for the user that names
 * the netdev, what was refused and why. ret_undo: what it changed, for apply_qos_dcb_rollback(). */
int apply_qos_dcb_link(const LinkPlan *lp, ApplyDcbUndo *ret_undo, char **ret_error);
/* Puts back what undo records (when the rest of the link failed after the DCB part). Returns 0, or
 * negative errno with what could not be put back in ret_error. */
int apply_qos_dcb_rollback(const LinkPlan *lp, const ApplyDcbUndo *undo, char **ret_error);
