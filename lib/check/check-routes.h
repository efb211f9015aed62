/* SPDX-License-Identifier: MIT */
/* The link.<name>.routes and link.<name>.forwarding checks, reported from the plan (plan/route-plan.h). */
#pragma once

#include "check/checks.h"
#include "plan/plan.h"

/* The two checks of the node's link nl from its plan lp, for a link that has routes in the profile
 * (routes) or a node that asks for forwarding (forwarding); nothing for the others. forwarding_state:
 * the link's switch as the snapshot read it (1, 0, negative errno). skip, when set, is why the
 * kernel's state is not known (the checks then skip with it). */
int check_link_routes(
        const ProfileNode *node,
        const NodeLink *nl,
        const LinkPlan *lp,
        int forwarding_state,
        const char *skip,
        CheckList *out);
