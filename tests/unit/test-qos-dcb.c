/* SPDX-License-Identifier: MIT */
/* Tests the DCB part of the plan and the qos.<link>.pfc/trust checks from DCB states built by hand (an
 * mlx5-like driver without a trust table, one with a trust table, no DCB support, an E810 whose
 * firmware LLDP agent is on): the changes planned, their records and lines, why a link cannot be
 * applied, and what the checks say. No I/O. */
#include "check-test.h"
#include "check/check-qos-dcb.h"
#include "plan/plan.h"

static ProfileLink profile_link(void) {
        ProfileLink pl = { .name = (char *) "rdma0" };

        profile_qos_init(&pl.qos);
        pl.qos.present = true;
        pl.qos.has_pfc = true;
        pl.qos.pfc = 1U << 3;
        pl.qos.trust = QOS_TRUST_DSCP;
        pl.qos.has_dscp_map = true;
        pl.qos.dscp_priority[26] = 3;
        return pl;
}

static void add_app(DcbState *s, uint16_t dscp, uint8_t prio) {
        s->apps[s->n_apps++] = (struct dcb_app){ .selector = IEEE_8021QAZ_APP_SEL_DSCP,
                                                 .priority = prio,
                                                 .protocol = dscp };
}

static LinkPlan plan(const ProfileLink *pl, const SnapshotDcb *sd) {
        LinkPlan lp = { .link = strdup("rdma0"), .ifname = strdup("enp1s0f0np0") };

        ASSERT_TRUE(lp.link && lp.ifname);
        ASSERT_OK(link_plan_dcb_compute(pl, sd, &lp));
        return lp;
}

static char *describe(const LinkPlan *lp) {
        _cleanup_(plan_changes_done) PlanChanges changes = {};
        _cleanup_(strv_freep) char **lines = NULL;
        Plan p = { .links = (LinkPlan *) lp, .n_links = 1 };

        ASSERT_OK(plan_changes(&p, &changes));
        ASSERT_OK(plan_describe(&p, &lines));
        return strv_join(lines, "\n");
}

static void check(
        const ProfileLink *pl, const LinkPlan *lp, const SnapshotDcb *sd, const char *note, const CheckExpect *e) {
        _cleanup_(check_list_done) CheckList l = {};
        NodeLink nl = { .link = (char *) "rdma0" };

        ASSERT_OK(check_qos_dcb_evaluate(pl, &nl, lp, sd, note, &l));
        ASSERT_INT_EQ(l.n_checks, 2);
        ASSERT_STR_EQ(l.checks[0].link, "rdma0");
        for (; e->id; e++)
                assert_check(&l, e, "test-qos-dcb");
}

/* mlx5: no trust table, PFC off, DSCP 26 → 0 from an earlier setup, the others untouched. */
static void test_mlx5_from_scratch(void) {
        static SnapshotDcb sd = { .lldp_agent = -ENOMEDIUM };
        ProfileLink pl = profile_link();
        _cleanup_(link_plan_done) LinkPlan lp = {};
        _cleanup_(freep) char *lines = NULL;

        sd.state = (DcbState){ .has_pfc = true, .pfc = { .pfc_cap = 8 } };
        add_app(&sd.state, 26, 0);
        add_app(&sd.state, 46, 5);
        lp = plan(&pl, &sd);
        ASSERT_TRUE(!lp.error);
        ASSERT_TRUE(lp.dcb && lp.dcb->pfc_change && lp.dcb->pfc_to == 1U << 3);
        ASSERT_INT_EQ(lp.dcb->n_add, 1);
        ASSERT_INT_EQ(lp.dcb->add[0].protocol, 26);
        ASSERT_INT_EQ(lp.dcb->add[0].priority, 3);
        ASSERT_INT_EQ(lp.dcb->n_remove, 1);
        ASSERT_INT_EQ(lp.dcb->remove[0].priority, 0);
        ASSERT_TRUE(!lp.dcb->trust_change); /* no trust table: the DSCP entries make it trust DSCP */
        ASSERT_TRUE(!link_plan_is_empty(&lp));
        ASSERT_TRUE(link_plan_settings_are_empty(&lp));
        lines = describe(&lp);
        ASSERT_STR_EQ(
                lines,
                "rdma0 (enp1s0f0np0): pfc none → 3\n"
                "rdma0 (enp1s0f0np0): dscp-priority 26: 0 → 3");

        check(&pl,
              &lp,
              &sd,
              NULL,
              (const CheckExpect[]){
                      { "qos.rdma0.pfc",
                        CHECK_FAIL,
                        "enp1s0f0np0 has PFC on none, the profile wants 3 (missing: 3); haloctl apply sets it" },
                      { "qos.rdma0.trust",
                        CHECK_FAIL,
                        "its APP table maps dscp-priority 26:0, the profile wants 26:3" },
                      { "qos.rdma0.trust", CHECK_FAIL, "the driver has no APP trust table" },
                      {} });

        /* As the plan wants it: nothing to do, both pass; PFC on an extra priority fails again. */
        sd.state.pfc.pfc_en = 1U << 3;
        sd.state.apps[0].priority = 3;
        link_plan_done(&lp);
        lp = plan(&pl, &sd);
        ASSERT_TRUE(link_plan_is_empty(&lp));
        check(&pl,
              &lp,
              &sd,
              NULL,
              (const CheckExpect[]){
                      { "qos.rdma0.pfc", CHECK_PASS, "PFC is on priorities 3 of enp1s0f0np0" },
                      { "qos.rdma0.trust", CHECK_PASS, "enp1s0f0np0 trusts dscp and maps dscp-priority 26:3" },
                      {} });
        sd.state.pfc.pfc_en = 1U << 3 | 1U << 0;
        link_plan_done(&lp);
        lp = plan(&pl, &sd);
        check(&pl,
              &lp,
              &sd,
              NULL,
              (const CheckExpect[]){
                      { "qos.rdma0.pfc", CHECK_FAIL, "has PFC on 0,3, the profile wants 3 (extra: 0)" }, {} });

        /* trust: dscp without any DSCP entry, on a driver without a trust table: the entry that makes it
         * trust DSCP and changes nothing in the firmware's default map (DSCP >> 3), RoCE's DSCP when the
         * profile has a roce-tos, else DSCP 0; the map check does not count it as the profile's. */
        pl.qos.has_dscp_map = false;
        pl.qos.dscp_priority[26] = -1;
        sd.state.n_apps = 0;
        link_plan_done(&lp);
        lp = plan(&pl, &sd);
        ASSERT_TRUE(!lp.error);
        ASSERT_INT_EQ(lp.dcb->n_add, 1);
        ASSERT_INT_EQ(lp.dcb->add[0].protocol, 0);
        ASSERT_INT_EQ(lp.dcb->add[0].priority, 0);
        free(lines);
        lines = describe(&lp);
        ASSERT_STR_EQ(
                lines,
                "rdma0 (enp1s0f0np0): pfc 0,3 → 3\n"
                "rdma0 (enp1s0f0np0): dscp-priority 0: none → 0");
        pl.qos.roce_tos = 106;
        link_plan_done(&lp);
        lp = plan(&pl, &sd);
        ASSERT_TRUE(!lp.error);
        ASSERT_INT_EQ(lp.dcb->add[0].protocol, 26);
        ASSERT_INT_EQ(lp.dcb->add[0].priority, 3);
        check(&pl,
              &lp,
              &sd,
              NULL,
              (const CheckExpect[]){
                      { "qos.rdma0.trust", CHECK_FAIL, "enp1s0f0np0 trusts pcp first, the profile wants dscp" },
                      {} });
}

/* A driver with a trust table that trusts PCP only: DSCP moves first, PCP stays after it. */
static void test_trust_table(void) {
        static SnapshotDcb sd = { .lldp_agent = -ENOMEDIUM };
        ProfileLink pl = profile_link();
        _cleanup_(link_plan_done) LinkPlan lp = {};
        _cleanup_(freep) char *lines = NULL;
        _cleanup_(plan_changes_done) PlanChanges changes = {};
        Plan p;

        sd.state = (DcbState){ .has_pfc = true,
                               .pfc = { .pfc_cap = 8, .pfc_en = 1U << 3 },
                               .has_trust = true,
                               .trust = { DCBNL_APP_SEL_PCP },
                               .n_trust = 1 };
        add_app(&sd.state, 26, 3);
        lp = plan(&pl, &sd);
        ASSERT_TRUE(!lp.error && lp.dcb->trust_change);
        ASSERT_INT_EQ(lp.dcb->n_trust_to, 2);
        lines = describe(&lp);
        ASSERT_STR_EQ(lines, "rdma0 (enp1s0f0np0): trust pcp → dscp,pcp");
        /* The journal's record: field qos-trust, from and to as the plan line has them. */
        p = (Plan){ .links = &lp, .n_links = 1 };
        ASSERT_OK(plan_changes(&p, &changes));
        ASSERT_INT_EQ(changes.n_changes, 1);
        ASSERT_STR_EQ(link_field_to_string(changes.changes[0].field), "qos-trust");
        ASSERT_STR_EQ(changes.changes[0].from, "pcp");
        ASSERT_STR_EQ(changes.changes[0].to, "dscp,pcp");
        check(&pl,
              &lp,
              &sd,
              NULL,
              (const CheckExpect[]){
                      { "qos.rdma0.pfc", CHECK_PASS, NULL },
                      { "qos.rdma0.trust",
                        CHECK_FAIL,
                        "enp1s0f0np0 trusts pcp first, the profile wants dscp; haloctl apply sets it" },
                      {} });
}

static void test_no_dcb_and_skips(void) {
        static SnapshotDcb sd = { .error = -EOPNOTSUPP, .lldp_agent = -ENOMEDIUM };
        ProfileLink pl = profile_link();
        _cleanup_(link_plan_done) LinkPlan lp = {};
        _cleanup_(freep) char *lines = NULL;

        lp = plan(&pl, &sd);
        ASSERT_TRUE(!lp.dcb);
        ASSERT_TRUE(
                lp.error &&
                strstr(lp.error,
                       "the driver of enp1s0f0np0 has no DCB support (the kernel answered EOPNOTSUPP)"));
        lines = describe(&lp);
        ASSERT_TRUE(strstr(
                lines, "rdma0 (enp1s0f0np0): cannot apply: the driver of enp1s0f0np0 has no DCB support"));
        check(&pl,
              &lp,
              &sd,
              NULL,
              (const CheckExpect[]){
                      { "qos.rdma0.pfc",
                        CHECK_SKIP,
                        "the driver of enp1s0f0np0 has no DCB support (the kernel answered EOPNOTSUPP)" },
                      { "qos.rdma0.trust",
                        CHECK_SKIP,
                        "the driver of enp1s0f0np0 has no DCB support (the kernel answered EOPNOTSUPP)" },
                      {} });
        check(&pl,
              &lp,
              &sd,
              "DCB is not read under --root (DCB netlink shows the running kernel only)",
              (const CheckExpect[]){ { "qos.rdma0.pfc", CHECK_SKIP, "under --root" }, {} });

        /* No qos: at all, or a qos: with only ECN and the ToS: nothing planned, both skip. */
        profile_qos_init(&pl.qos);
        link_plan_done(&lp);
        lp = plan(&pl, &sd);
        ASSERT_TRUE(!lp.dcb && !lp.error);
        check(&pl,
              &lp,
              &sd,
              NULL,
              (const CheckExpect[]){ { "qos.rdma0.trust", CHECK_SKIP, "the profile sets no qos: for rdma0" },
                                     {} });
        pl.qos.present = true;
        pl.qos.ecn = 1;
        check(&pl,
              &lp,
              &sd,
              NULL,
              (const CheckExpect[]){ { "qos.rdma0.pfc", CHECK_SKIP, "sets no pfc, trust or dscp-priority" },
                                     {} });
}

/* An E810 whose firmware LLDP agent is on: a matching state warns, a change cannot be planned. */
static void test_lldp_agent(void) {
        static SnapshotDcb sd = { .lldp_agent = 1 };
        ProfileLink pl = profile_link();
        _cleanup_(link_plan_done) LinkPlan lp = {};

        pl.qos.trust = _QOS_TRUST_INVALID;
        sd.state = (DcbState){ .has_pfc = true, .pfc = { .pfc_cap = 8, .pfc_en = 1U << 3 } };
        add_app(&sd.state, 26, 3);
        lp = plan(&pl, &sd);
        ASSERT_TRUE(!lp.error && link_plan_is_empty(&lp));
        check(&pl,
              &lp,
              &sd,
              NULL,
              (const CheckExpect[]){
                      { "qos.rdma0.pfc", CHECK_WARN, "ethtool --set-priv-flags enp1s0f0np0 fw-lldp-agent off" },
                      { "qos.rdma0.trust", CHECK_WARN, "the switch's DCBX settings win over the host's" },
                      {} });

        sd.state.pfc.pfc_en = 0;
        link_plan_done(&lp);
        lp = plan(&pl, &sd);
        ASSERT_TRUE(lp.error && strstr(lp.error, "the firmware LLDP agent of enp1s0f0np0 is on"));
        ASSERT_TRUE(strstr(lp.error, "ethtool --set-priv-flags enp1s0f0np0 fw-lldp-agent off"));
        check(&pl,
              &lp,
              &sd,
              NULL,
              (const CheckExpect[]){ { "qos.rdma0.pfc",
                                       CHECK_FAIL,
                                       "(missing: 3); the firmware LLDP agent of enp1s0f0np0 is on" },
                                     {} });
}

/* An E810 whose agent could not be read (an AF_INET socket refused by a sandbox): no change is
 * planned as if the agent were off. */
static void test_lldp_agent_unknown(void) {
        static const int unknown[] = { -EAFNOSUPPORT, -EPERM, -EOPNOTSUPP };
        ProfileLink pl = profile_link();

        pl.qos.trust = _QOS_TRUST_INVALID;
        for (size_t i = 0; i < ELEMENTSOF(unknown); i++) {
                _cleanup_(link_plan_done) LinkPlan lp = {};
                static SnapshotDcb sd;

                sd = (SnapshotDcb){ .lldp_agent = unknown[i] };
                sd.state = (DcbState){ .has_pfc = true, .pfc = { .pfc_cap = 8 } };
                lp = plan(&pl, &sd);
                ASSERT_TRUE(lp.error && strstr(lp.error, "cannot tell whether the firmware LLDP agent"));
                ASSERT_TRUE(!lp.dcb || link_plan_dcb_is_empty(lp.dcb));
        }
}

int main(void) {
        test_mlx5_from_scratch();
        test_trust_table();
        test_no_dcb_and_skips();
        test_lldp_agent();
        test_lldp_agent_unknown();
        printf("test-qos-dcb: ok\n");
        return EXIT_SUCCESS;
}
