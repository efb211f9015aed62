/* SPDX-License-Identifier: MIT */
/* The enforcement decision from the plan (check/enforce-decide.h), as a case table: which part of a
 * link's plan differs, and which checks the verify selected. */
#include "basic/macro.h"
#include "check/enforce-decide.h"
#include "plan/qos-plan-dcb.h"
#include "plan/qos-plan-host.h"
#include "plan/route-plan.h"
#include "tests.h"

typedef enum Drift {
        DRIFT_NONE,
        DRIFT_MTU,
        DRIFT_DOWN,
        DRIFT_ADDRESS,
        DRIFT_ZONE,
        DRIFT_ROUTES,
        DRIFT_ERROR, /* the link cannot be applied: the apply says why */
        DRIFT_PFC,
        DRIFT_ECN,
} Drift;

static void make_plan(
        Drift a, Drift b, Plan *p, LinkPlan links[2], LinkPlanDcb *dcb, LinkPlanQosHost *qh, LinkPlanRoutes *routes) {
        const Drift d[2] = { a, b };

        *dcb = (LinkPlanDcb){ .pfc_change = true, .pfc_to = 1U << 3 };
        *qh = (LinkPlanQosHost){ .n_ecn = 1, .tos_from = -1, .tos_to = -1 };
        *routes = (LinkPlanRoutes){ .enable_forwarding = true };
        for (size_t i = 0; i < 2; i++) {
                LinkPlan *lp = &links[i];

                *lp = (LinkPlan){ .link = (char *) (i == 0 ? "fab0" : "fab1"),
                                  .mtu_from = 9000,
                                  .mtu_to = 9000 };
                switch (d[i]) {
                case DRIFT_NONE:
                        break;
                case DRIFT_MTU:
                        lp->mtu_from = 1500;
                        break;
                case DRIFT_DOWN:
                        lp->set_up = true;
                        break;
                case DRIFT_ADDRESS:
                        lp->add_address = true;
                        break;
                case DRIFT_ZONE:
                        lp->zone_from = (char *) "public";
                        lp->zone_to = (char *) "trusted";
                        break;
                case DRIFT_ROUTES:
                        lp->routes = routes;
                        break;
                case DRIFT_ERROR:
                        lp->error = (char *) "no netdev matches";
                        break;
                case DRIFT_PFC:
                        lp->dcb = dcb;
                        break;
                case DRIFT_ECN:
                        lp->qos_host = qh;
                        break;
                }
        }
        *p = (Plan){ .links = links, .n_links = 2 };
}

static void test_decide(void) {
        static const struct {
                Drift fab0, fab1;
                const char *only;
                bool drifted;
        } table[] = {
                { DRIFT_NONE, DRIFT_NONE, NULL, false },
                /* Every link setting, in a full verify. */
                { DRIFT_MTU, DRIFT_NONE, NULL, true },
                { DRIFT_DOWN, DRIFT_NONE, NULL, true },
                { DRIFT_ADDRESS, DRIFT_NONE, NULL, true },
                { DRIFT_ZONE, DRIFT_NONE, NULL, true },
                { DRIFT_ROUTES, DRIFT_NONE, NULL, true },
                { DRIFT_ERROR, DRIFT_NONE, NULL, true },
                /* QoS alone drifting counts too (it used to be missed when re-applies paused). */
                { DRIFT_PFC, DRIFT_NONE, NULL, true },
                { DRIFT_NONE, DRIFT_ECN, NULL, true },
                /* A re-check of one link: that link's drift, not the other's. */
                { DRIFT_MTU, DRIFT_NONE, "link.fab0.", true },
                { DRIFT_NONE, DRIFT_MTU, "link.fab0.", false },
                { DRIFT_NONE, DRIFT_ADDRESS, "link.fab0.,link.fab1.", true },
                /* A re-check of the link checks does not re-apply for its QoS, which it did not check. */
                { DRIFT_PFC, DRIFT_NONE, "link.fab0.", false },
                { DRIFT_PFC, DRIFT_NONE, "link.", false },
                { DRIFT_PFC, DRIFT_NONE, "qos.", true },
                { DRIFT_NONE, DRIFT_ECN, "qos.fab1.", true },
                /* Nor a QoS selection for the link's settings. */
                { DRIFT_MTU, DRIFT_NONE, "qos.", false },
                /* Checks of other groups: no link is selected. */
                { DRIFT_MTU, DRIFT_PFC, "helper", false },
                { DRIFT_MTU, DRIFT_PFC, "kernel.", false },
                /* A single check id selects its link's group. */
                { DRIFT_ADDRESS, DRIFT_NONE, "link.fab0.address", true },
                /* Another link's selection. */
                { DRIFT_MTU, DRIFT_NONE, "link.fab1.", false },
        };

        for (size_t i = 0; i < ELEMENTSOF(table); i++) {
                LinkPlan links[2];
                LinkPlanDcb dcb;
                LinkPlanQosHost qh;
                LinkPlanRoutes routes;
                Plan p;

                make_plan(table[i].fab0, table[i].fab1, &p, links, &dcb, &qh, &routes);
                if (plan_drifted(&p, table[i].only) != table[i].drifted) {
                        fprintf(stderr, "case %zu: only %s\n", i, table[i].only ?: "(all)");
                        ASSERT_INT_EQ(plan_drifted(&p, table[i].only), table[i].drifted);
                }
        }
}

int main(void) {
        test_decide();
        return 0;
}
