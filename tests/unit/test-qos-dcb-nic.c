/* SPDX-License-Identifier: MIT */
/* Where the guide's switched fabric (pfc: [3], trust: dscp, roce-tos: 106, no dscp-priority: of its
 * own) really sends RoCE, judged by qos.<link>.trust from the DCB_CMD_IEEE_GET reply the kernel gives
 * for each NIC: replies built here as net/dcb/dcbnl.c's dcbnl_ieee_fill() builds them, holding the APP
 * table each driver leaves in the kernel.
 * - mlx5 (ConnectX, en_dcbnl.c): in trust dscp, mlx5e_dcbnl_dscp_app() puts all 64 entries of the
 *   firmware's DSCP → priority map into the APP table; the firmware's default map is DSCP >> 3
 *   (`mlnx_qos --trust dscp` prints "prio:3 dscp:31,...,24"), so 26 lands on 3. dcb_ieee_setapp()
 *   adds each entry at the head of the kernel's list, so the reply lists DSCP 63 first. mlx5 has no
 *   dcbnl_getapptrust (no trust table) and reports ETS, the maximum rates and PFC.
 * - ice (E810, ice_dcb_nl.c): in DSCP mode the APP table holds only the entries it was given (`dcb
 *   app add dev IF dscp-prio 24:3 46:5`); another DSCP goes to priority 0. ETS and PFC, no trust
 *   table, no maximum rates. */
#include <libmnl/libmnl.h>
#include <linux/rtnetlink.h>

#include "check-test.h"
#include "check/check-qos-dcb.h"
#include "net/dcb.h"
#include "plan/plan.h"

#define BUF_SIZE 8192U

/* The guide's qos:, as a person writes it from the guide's commands. */
static const char guide_yaml[] =
        "cluster: rack\n"
        "links:\n"
        "  rdma0:\n"
        "    match: { name: enp1s0f0np0 }\n"
        "    qos: { pfc: [3], trust: dscp, ecn: true, roce-tos: 106 }\n"
        "nodes:\n"
        "  n1: { links: { rdma0: 10.0.0.1/24 } }\n";

typedef struct App {
        uint16_t dscp;
        uint8_t priority;
} App;

/* One reply to DCB_CMD_IEEE_GET, attributes in dcbnl_ieee_fill()'s order. apps in the kernel's list
 * order; with_maxrate: the driver has ieee_getmaxrate (mlx5). */
static struct nlmsghdr *build_reply(uint8_t *buf, uint8_t pfc_en, bool with_maxrate, const App *apps, size_t n) {
        struct ieee_ets ets = { .ets_cap = 8 };
        struct ieee_maxrate maxrate = {};
        struct ieee_pfc pfc = { .pfc_cap = 8, .pfc_en = pfc_en };
        struct nlattr *ieee, *table;
        struct nlmsghdr *nlh;
        struct dcbmsg *d;

        memset(buf, 0, BUF_SIZE);
        nlh = mnl_nlmsg_put_header(buf);
        nlh->nlmsg_type = RTM_GETDCB;
        d = mnl_nlmsg_put_extra_header(nlh, sizeof(*d));
        d->dcb_family = AF_UNSPEC;
        d->cmd = DCB_CMD_IEEE_GET;
        mnl_attr_put_strz(nlh, DCB_ATTR_IFNAME, "enp1s0f0np0");
        ieee = mnl_attr_nest_start(nlh, DCB_ATTR_IEEE);
        for (unsigned i = 0; i < 8; i++)
                ets.prio_tc[i] = (uint8_t) i;
        mnl_attr_put(nlh, DCB_ATTR_IEEE_ETS, sizeof(ets), &ets);
        if (with_maxrate)
                mnl_attr_put(nlh, DCB_ATTR_IEEE_MAXRATE, sizeof(maxrate), &maxrate);
        mnl_attr_put(nlh, DCB_ATTR_IEEE_PFC, sizeof(pfc), &pfc);
        table = mnl_attr_nest_start(nlh, DCB_ATTR_IEEE_APP_TABLE);
        for (size_t i = 0; i < n; i++) {
                struct dcb_app a = { .selector = IEEE_8021QAZ_APP_SEL_DSCP,
                                     .priority = apps[i].priority,
                                     .protocol = apps[i].dscp };

                mnl_attr_put(nlh, DCB_ATTR_IEEE_APP, sizeof(a), &a);
        }
        mnl_attr_nest_end(nlh, table);
        mnl_attr_nest_end(nlh, mnl_attr_nest_start(nlh, DCBNL_ATTR_REWR_TABLE));
        mnl_attr_nest_end(nlh, ieee);
        mnl_attr_put_u8(nlh, DCB_ATTR_DCBX, DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE);
        return nlh;
}

/* mlx5 in trust dscp with the firmware's map, one entry changed (or none: changed_dscp < 0). */
static size_t mlx5_apps(App apps[64], int changed_dscp, uint8_t changed_priority) {
        for (unsigned i = 0; i < 64; i++) {
                unsigned dscp = 63 - i;

                apps[i] = (App){ .dscp = (uint16_t) dscp,
                                 .priority = (int) dscp == changed_dscp ? changed_priority
                                                                        : (uint8_t) (dscp >> 3) };
        }
        return 64;
}

/* Parses the reply as the snapshot does, plans and runs the two checks; returns the trust check. */
static void judge(const uint8_t *buf, const CheckExpect *expect) {
        _cleanup_(profile_freep) Profile *p = test_profile_load(guide_yaml);
        _cleanup_(link_plan_done) LinkPlan lp = { .link = strdup("rdma0"), .ifname = strdup("enp1s0f0np0") };
        _cleanup_(check_list_done) CheckList l = {};
        static SnapshotDcb sd;
        NodeLink nl = { .link = (char *) "rdma0" };

        ASSERT_TRUE(p && lp.link && lp.ifname);
        sd = (SnapshotDcb){ .lldp_agent = -ENOMEDIUM };
        ASSERT_OK(dcb_parse_get_reply((const struct nlmsghdr *) buf, &sd.state));
        ASSERT_OK(link_plan_dcb_compute(&p->links[0], &sd, &lp));
        ASSERT_TRUE(!lp.error);
        ASSERT_TRUE(link_plan_dcb_is_empty(lp.dcb)); /* nothing halod would change */
        ASSERT_OK(check_qos_dcb_evaluate(&p->links[0], &nl, &lp, &sd, NULL, &l));
        ASSERT_INT_EQ(l.n_checks, 2);
        for (; expect->id; expect++)
                assert_check(&l, expect, "test-qos-dcb-nic");
}

static void test_mlx5_default_map(void) {
        static uint8_t buf[BUF_SIZE];
        App apps[64];
        size_t n = mlx5_apps(apps, -1, 0);

        build_reply(buf, 1U << 3, true, apps, n);
        judge(buf,
              (const CheckExpect[]){
                      { "qos.rdma0.pfc", CHECK_PASS, "PFC is on priorities 3 of enp1s0f0np0" },
                      { "qos.rdma0.trust",
                        CHECK_PASS,
                        "enp1s0f0np0 trusts dscp and maps dscp-priority 26:3; DSCP 26 of roce-tos 106 lands on "
                        "priority 3 (the APP table's entry), which has PFC" },
                      {} });
}

/* Someone moved DSCP 26 (`dcb app replace dev IF dscp-prio 26:0`: mlx5e_dcbnl_ieee_setapp() changes
 * the firmware's entry and the APP table's). */
static void test_mlx5_map_changed(void) {
        static uint8_t buf[BUF_SIZE];
        App apps[64];
        size_t n = mlx5_apps(apps, 26, 0);

        build_reply(buf, 1U << 3, true, apps, n);
        judge(buf,
              (const CheckExpect[]){
                      { "qos.rdma0.trust",
                        CHECK_FAIL,
                        "DSCP 26 of roce-tos 106 lands on priority 0 (the APP table's entry), which has no PFC "
                        "(pfc 3): RoCE would be dropped at the first congestion; add dscp-priority: { 26: 3 } to "
                        "the link's qos: and haloctl apply sets it" },
                      {} });
}

static void test_ice_dscp_mode(void) {
        static const App without_26[] = { { 46, 5 }, { 24, 3 } };
        static const App with_26[] = { { 26, 3 }, { 46, 5 }, { 24, 3 } };
        static uint8_t buf[BUF_SIZE];

        build_reply(buf, 1U << 3, false, without_26, ELEMENTSOF(without_26));
        judge(buf,
              (const CheckExpect[]){
                      { "qos.rdma0.trust",
                        CHECK_FAIL,
                        "its APP table has DSCP entries but none for DSCP 26 of roce-tos 106, so RoCE leaves on "
                        "the driver's default priority (ice: 0), without PFC (pfc 3); add dscp-priority: { 26: 3 "
                        "} to the link's qos: and haloctl apply sets it" },
                      {} });

        build_reply(buf, 1U << 3, false, with_26, ELEMENTSOF(with_26));
        judge(buf,
              (const CheckExpect[]){
                      { "qos.rdma0.trust",
                        CHECK_PASS,
                        "DSCP 26 of roce-tos 106 lands on priority 3 (the APP table's entry), which has PFC" },
                      {} });
}

/* The guide's qos: on a NIC that still trusts PCP: its APP table has no DSCP entry (a ConnectX that
 * came up in trust pcp; an E810 not yet in DSCP mode). Neither driver has a trust table; each trusts
 * DSCP once an entry is added (mlx5e_dcbnl_ieee_setapp(), ice_dcbnl_setapp()), and the kernel's APP
 * table then holds that entry alone (dcb_ieee_setapp()). validate accepts the profile, so the plan
 * must apply it: the entry of the firmware's default map for RoCE's DSCP (or DSCP 0 without a
 * roce-tos), then the checks pass on what the driver reports after it. */
static void test_trust_from_pcp(void) {
        static const struct {
                const char *qos;
                bool with_maxrate; /* mlx5 */
                App entry;
                const char *after;
        } cases[] = {
                { "{ pfc: [3], trust: dscp, roce-tos: 106 }",
                  true,
                  { 26, 3 },
                  "DSCP 26 of roce-tos 106 lands on priority 3 (the APP table's entry), which has PFC" },
                { "{ pfc: [3], trust: dscp, ecn: true, roce-tos: 106 }", false, { 26, 3 }, "lands on priority 3" },
                { "{ pfc: [3], trust: dscp }",
                  true,
                  { 0, 0 },
                  "enp1s0f0np0 trusts dscp (the driver has no APP trust table" },
        };
        static uint8_t buf[BUF_SIZE];

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_(freep) char *yaml = NULL;
                _cleanup_(profile_freep) Profile *p = NULL;
                static SnapshotDcb sd;
                NodeLink nl = { .link = (char *) "rdma0" };

                ASSERT_TRUE(
                        asprintf(
                                &yaml,
                                "cluster: rack\n"
                                "links:\n"
                                "  rdma0:\n"
                                "    match: { name: enp1s0f0np0 }\n"
                                "    qos: %s\n"
                                "nodes:\n"
                                "  n1: { links: { rdma0: 10.0.0.1/24 } }\n",
                                cases[i].qos) > 0);
                p = test_profile_load(yaml);
                ASSERT_TRUE(p);

                for (int applied = 0; applied <= 1; applied++) {
                        _cleanup_(link_plan_done)
                                LinkPlan lp = { .link = strdup("rdma0"), .ifname = strdup("enp1s0f0np0") };
                        _cleanup_(check_list_done) CheckList l = {};

                        ASSERT_TRUE(lp.link && lp.ifname);
                        build_reply(buf, 1U << 3, cases[i].with_maxrate, &cases[i].entry, applied ? 1 : 0);
                        sd = (SnapshotDcb){ .lldp_agent = -ENOMEDIUM };
                        ASSERT_OK(dcb_parse_get_reply((const struct nlmsghdr *) buf, &sd.state));
                        ASSERT_OK(link_plan_dcb_compute(&p->links[0], &sd, &lp));
                        fprintf(stderr, "case %zu (%s), %s\n", i, cases[i].qos, applied ? "applied" : "before");
                        ASSERT_TRUE(!lp.error); /* nothing keeps the node from being applied */
                        ASSERT_OK(check_qos_dcb_evaluate(&p->links[0], &nl, &lp, &sd, NULL, &l));
                        if (!applied) {
                                ASSERT_INT_EQ(lp.dcb->n_add, 1);
                                ASSERT_INT_EQ(lp.dcb->add[0].protocol, cases[i].entry.dscp);
                                ASSERT_INT_EQ(lp.dcb->add[0].priority, cases[i].entry.priority);
                                assert_check(
                                        &l,
                                        &(const CheckExpect){
                                                "qos.rdma0.trust",
                                                CHECK_FAIL,
                                                "enp1s0f0np0 trusts pcp first, the profile wants "
                                                "dscp (the driver has no APP trust table: it "
                                                "trusts DSCP while its APP table has DSCP entries, "
                                                "which is what is checked); haloctl apply sets it" },
                                        "test-qos-dcb-nic");
                        } else {
                                ASSERT_TRUE(link_plan_dcb_is_empty(lp.dcb));
                                assert_check(
                                        &l,
                                        &(const CheckExpect){ "qos.rdma0.trust", CHECK_PASS, cases[i].after },
                                        "test-qos-dcb-nic");
                        }
                }
        }
}

int main(void) {
        test_trust_from_pcp();
        test_mlx5_default_map();
        test_mlx5_map_changed();
        test_ice_dscp_mode();
        printf("test-qos-dcb-nic: ok\n");
        return EXIT_SUCCESS;
}
