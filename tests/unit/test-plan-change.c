/* SPDX-License-Identifier: MIT */
/* Tests for the typed change records of the qos parts: what the journal gets (from, to) and the line
 * haloctl shows, both from the plan's values, for each shape a record takes (the DSCP entry with no,
 * one and several priorities before; ECN with both points alike and apart; the RoCE ToS known and
 * before rdma_cm's directory exists). */
#include <linux/dcbnl.h>

#include "plan/plan.h"
#include "plan/qos-plan-host.h"
#include "tests.h"

static void assert_record(const PlanChange *c, const char *from, const char *to, const char *line) {
        _cleanup_(freep) char *s = plan_change_describe(c);

        ASSERT_STR_EQ(c->from, from);
        ASSERT_STR_EQ(c->to, to);
        ASSERT_STR_EQ(s, line);
}

static void test_dscp(void) {
        struct {
                uint8_t before[3]; /* priorities the APP table has for DSCP 26 */
                size_t n;
                const char *from, *line;
        } cases[] = {
                { {}, 0, "26:none", "rdma0 (eth0): dscp-priority 26: none → 3" },
                { { 0 }, 1, "26:0", "rdma0 (eth0): dscp-priority 26: 0 → 3" },
                { { 5, 0 }, 2, "26:5,0", "rdma0 (eth0): dscp-priority 26: 5,0 → 3" },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_(plan_changes_done) PlanChanges l = {};
                LinkPlanDcb d = { .n_add = 1 };
                LinkPlan lp = { .link = (char *) "rdma0", .ifname = (char *) "eth0", .dcb = &d };

                d.add[0] = (struct dcb_app){ .selector = IEEE_8021QAZ_APP_SEL_DSCP,
                                             .protocol = 26,
                                             .priority = 3 };
                /* An entry of another DSCP, which the record leaves out. */
                d.before.apps[d.before.n_apps++] = (struct dcb_app){ .selector = IEEE_8021QAZ_APP_SEL_DSCP,
                                                                     .protocol = 10,
                                                                     .priority = 1 };
                for (size_t k = 0; k < cases[i].n; k++)
                        d.before.apps[d.before.n_apps++] =
                                (struct dcb_app){ .selector = IEEE_8021QAZ_APP_SEL_DSCP,
                                                  .protocol = 26,
                                                  .priority = cases[i].before[k] };
                ASSERT_OK(link_plan_dcb_changes(&lp, &l));
                ASSERT_INT_EQ(l.n_changes, 1);
                ASSERT_INT_EQ(l.changes[0].field, LINK_FIELD_QOS_DSCP);
                assert_record(&l.changes[0], cases[i].from, "26:3", cases[i].line);
        }
}

static void test_ecn_and_tos(void) {
        struct {
                QosEcnChange ecn[2];
                size_t n_ecn;
                int tos_from;
                const char *from, *to, *line;
        } cases[] = {
                /* Both points off before: one word. */
                { { { 3, ROCE_ECN_NP, true }, { 3, ROCE_ECN_RP, true } },
                  2,
                  -2,
                  "3:off/off",
                  "3:on/on",
                  "rdma0 (eth0): ecn off → on (priority 3)" },
                /* Only the reaction point changes: the two points apart. */
                { { { 5, ROCE_ECN_RP, true } },
                  1,
                  -2,
                  "5:on/off",
                  "5:on/on",
                  "rdma0 (eth0): ecn on (notification point), off (reaction point) → on (priority 5)" },
                { {}, 0, 0, "0", "106", "rdma0 (eth0): roce-tos 0 → 106" },
                /* Before rdma_cm's directory exists the kernel's ToS is unknown. */
                { {},
                  0,
                  -1,
                  "",
                  "106",
                  "rdma0 (eth0): roce-tos → 106 (creating rdma_cm's configfs directory for the device first)" },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_(plan_changes_done) PlanChanges l = {};
                LinkPlanQosHost q = { .n_ecn = cases[i].n_ecn, .tos_from = -1, .tos_to = -1 };
                LinkPlan lp = { .link = (char *) "rdma0", .ifname = (char *) "eth0", .qos_host = &q };

                for (size_t k = 0; k < cases[i].n_ecn; k++)
                        q.ecn[k] = cases[i].ecn[k];
                if (cases[i].tos_from > -2) {
                        q.tos_from = cases[i].tos_from;
                        q.tos_to = 106;
                }
                ASSERT_OK(link_plan_qos_host_changes(&lp, &l));
                ASSERT_INT_EQ(l.n_changes, 1);
                assert_record(&l.changes[0], cases[i].from, cases[i].to, cases[i].line);
        }
}

int main(void) {
        test_dscp();
        test_ecn_and_tos();
        return 0;
}
