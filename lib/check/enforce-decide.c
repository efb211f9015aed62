/* SPDX-License-Identifier: MIT */
/* The enforcement decision: one function, from the plan the apply would carry out, for the re-apply
 * and for saying that re-applies pause (tests/unit/test-enforce-decide.c). */
#include <stdio.h>

#include "check/checks.h"
#include "check/enforce-decide.h"
#include "plan/qos-plan-dcb.h"
#include "plan/qos-plan-host.h"
#include "plan/route-plan.h"

/* Whether the group "<group>.<link>." is selected by only; a name too long for the buffer counts as
 * selected (never blind). */
static bool group_selected(const char *group, const char *link, const char *only) {
        char prefix[256];
        int n = snprintf(prefix, sizeof(prefix), "%s.%s.", group, link);

        return n < 0 || (size_t) n >= sizeof(prefix) || checks_group_selected(prefix, only);
}

static bool link_part_drifted(const LinkPlan *lp) {
        return lp->error || !link_plan_settings_are_empty(lp) || !link_plan_routes_is_empty(lp->routes);
}

static bool qos_part_drifted(const LinkPlan *lp) {
        return !link_plan_dcb_is_empty(lp->dcb) || !link_plan_qos_host_is_empty(lp->qos_host);
}

bool plan_drifted(const Plan *p, const char *only) {
        for (size_t i = 0; i < p->n_links; i++) {
                const LinkPlan *lp = &p->links[i];

                if (link_part_drifted(lp) && group_selected("link", lp->link, only))
                        return true;
                if (qos_part_drifted(lp) && group_selected("qos", lp->link, only))
                        return true;
        }
        return false;
}
