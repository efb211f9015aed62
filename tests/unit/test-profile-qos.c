/* SPDX-License-Identifier: MIT */
/* links.NAME.qos: the values as read, what is left out, the priority of the RoCE ToS, and every error,
 * word for word, with its position and key path. */
#include <stdio.h>

#include "basic/strv.h"
#include "profile/profile.h"
#include "tests.h"

/* A one-link profile whose rdma0 has "qos: " + qos on line 3, column 31 onwards. */
static int load_qos(const char *qos, Profile **ret, char ***ret_errors) {
        _cleanup_(freep) char *text = NULL;

        ASSERT_TRUE(
                asprintf(
                        &text,
                        "cluster: c\n"
                        "links:\n"
                        "  rdma0: { match: { name: fab0 }, qos: %s }\n"
                        "nodes:\n"
                        "  head: { links: { rdma0: 10.0.0.1/24 } }\n",
                        qos) > 0);
        return profile_load_string("q.yaml", text, strlen(text), ret, ret_errors);
}

static Profile *load_good(const char *qos) {
        _cleanup_(strv_freep) char **errors = NULL;
        Profile *p = NULL;
        int r;

        r = load_qos(qos, &p, &errors);
        STRV_FOREACH(e, errors)
                fprintf(stderr, "%s\n", *e);
        ASSERT_OK(r);
        return p;
}

static void test_values(void) {
        _cleanup_(profile_freep) Profile *p = NULL;
        const ProfileQos *q;

        /* The example, as the guide's commands set it. */
        p = load_good("{ pfc: [3], trust: dscp, dscp-priority: { 26: 3 }, ecn: true, roce-tos: 106 }");
        q = &p->links[0].qos;
        ASSERT_TRUE(q->present && q->has_pfc && q->has_dscp_map);
        ASSERT_INT_EQ(q->pfc, 1U << 3);
        ASSERT_INT_EQ(q->trust, QOS_TRUST_DSCP);
        ASSERT_INT_EQ(q->dscp_priority[26], 3);
        ASSERT_INT_EQ(q->dscp_priority[24], -1);
        ASSERT_INT_EQ(q->ecn, 1);
        ASSERT_INT_EQ(q->roce_tos, 106);
        ASSERT_INT_EQ(profile_qos_roce_priority(q), 3);
        p = profile_free(p);

        /* Every key is optional: what is left out stays "not asked". */
        p = load_good("{ ecn: false }");
        q = &p->links[0].qos;
        ASSERT_TRUE(q->present && !q->has_pfc && !q->has_dscp_map);
        ASSERT_INT_EQ(q->trust, _QOS_TRUST_INVALID);
        ASSERT_INT_EQ(q->ecn, 0);
        ASSERT_INT_EQ(q->roce_tos, -1);
        ASSERT_INT_EQ(profile_qos_roce_priority(q), -ENOENT);
        p = profile_free(p);

        /* pfc: [] asks for PFC off on every priority, which is not the same as leaving it out. */
        p = load_good("{ pfc: [] }");
        q = &p->links[0].qos;
        ASSERT_TRUE(q->present && q->has_pfc);
        ASSERT_INT_EQ(q->pfc, 0);
        p = profile_free(p);

        /* Lossy RoCE with ECN only (no PFC): the ToS needs a DSCP mapping under trust dscp, not PFC. */
        p = load_good(
                "{ pfc: [], trust: dscp, dscp-priority: { 26: 2, 63: 7, 0: 0 }, ecn: true, roce-tos: 105 }");
        q = &p->links[0].qos;
        ASSERT_INT_EQ(q->dscp_priority[0], 0);
        ASSERT_INT_EQ(q->dscp_priority[63], 7);
        ASSERT_INT_EQ(profile_qos_roce_priority(q), 2);
        p = profile_free(p);

        /* The guide's switched fabric: trust dscp with no map of its own. Where DSCP 26 lands is the
         * NIC's default map (mlx5 in trust dscp: DSCP >> 3, so 3; ice: priority 0), which validate
         * cannot know: valid, and qos.<link>.trust judges the APP table on the node. */
        static const char *const nic_map[] = {
                "{ pfc: [3], trust: dscp, roce-tos: 106 }",
                "{ pfc: [3], trust: dscp, ecn: true, roce-tos: 106 }",
                "{ pfc: [3, 4], trust: dscp, dscp-priority: { 24: 3 }, roce-tos: 106 }",
                "{ pfc: [0, 3], trust: dscp, roce-tos: 106 }",
                "{ trust: dscp, dscp-priority: {}, roce-tos: 106 }",
        };
        for (size_t i = 0; i < ELEMENTSOF(nic_map); i++) {
                p = load_good(nic_map[i]);
                ASSERT_INT_EQ(profile_qos_roce_priority(&p->links[0].qos), -ENODATA);
                p = profile_free(p);
        }

        /* trust pcp: the VLAN priority classifies; with PFC on exactly one priority that is the one. */
        p = load_good("{ pfc: [5], trust: pcp, roce-tos: 106 }");
        ASSERT_INT_EQ(profile_qos_roce_priority(&p->links[0].qos), 5);
        p = profile_free(p);
        p = load_good("{ pfc: [3, 5], trust: pcp, roce-tos: 106 }");
        ASSERT_INT_EQ(profile_qos_roce_priority(&p->links[0].qos), -ENODATA);
        p = profile_free(p);

        /* A ToS without PFC or trust asks only for the ToS: nothing to tie it to. */
        p = load_good("{ roce-tos: 106 }");
        ASSERT_INT_EQ(profile_qos_roce_priority(&p->links[0].qos), -ENODATA);
        p = profile_free(p);

        /* An empty mapping is there with nothing asked; no value is the same as leaving qos: out. */
        p = load_good("{}");
        ASSERT_TRUE(p->links[0].qos.present && !p->links[0].qos.has_pfc && p->links[0].qos.ecn < 0);
        p = profile_free(p);
        p = load_good("~");
        ASSERT_TRUE(!p->links[0].qos.present);
        ASSERT_INT_EQ(profile_qos_roce_priority(&p->links[0].qos), -ENOENT);
}

static void test_absent(void) {
        _cleanup_(profile_freep) Profile *p = NULL;
        _cleanup_(strv_freep) char **errors = NULL;
        static const char text[] =
                "cluster: c\n"
                "links: { rdma0: { match: { name: fab0 } } }\n"
                "nodes: { head: { links: { rdma0: 10.0.0.1/24 } } }\n";
        const ProfileQos *q;

        ASSERT_OK(profile_load_string("a.yaml", text, strlen(text), &p, &errors));
        q = &p->links[0].qos;
        ASSERT_TRUE(!q->present && !q->has_pfc && !q->has_dscp_map);
        ASSERT_INT_EQ(q->trust, _QOS_TRUST_INVALID);
        ASSERT_INT_EQ(q->ecn, -1);
        ASSERT_INT_EQ(q->roce_tos, -1);
        for (unsigned d = 0; d < QOS_DSCP_VALUES; d++)
                ASSERT_INT_EQ(q->dscp_priority[d], -1);
}

/* Each case: the qos: value and every error it yields, in file order. The value starts at column 40. */
static void test_errors(void) {
        static const struct {
                const char *qos;
                const char *errors[4];
        } cases[] = {
                { "[3]",
                  { "q.yaml:3:40: links.rdma0.qos: got a list (expected a mapping with pfc:, trust:, dscp-priority:, ecn:, roce-tos:, like { pfc: [3], trust: dscp })" } },
                { "{ pfcs: [3], roce_tos: 106 }",
                  { "q.yaml:3:42: links.rdma0.qos.pfcs: unknown key 'pfcs', did you mean 'pfc'? (expected one of: pfc, trust, dscp-priority, ecn, roce-tos)",
                    "q.yaml:3:53: links.rdma0.qos.roce_tos: unknown key 'roce_tos', did you mean 'roce-tos'? (expected one of: pfc, trust, dscp-priority, ecn, roce-tos)" } },
                { "{ pfc: 3 }",
                  { "q.yaml:3:47: links.rdma0.qos.pfc: got '3' (expected a list of the priorities from 0 to 7 with PFC on, like [3]; [] for PFC off on every priority)" } },
                { "{ pfc: [3, 8, -1, x] }",
                  { "q.yaml:3:51: links.rdma0.qos.pfc[1]: 8 is out of range (expected a priority from 0 to 7)",
                    "q.yaml:3:54: links.rdma0.qos.pfc[2]: '-1' is not a whole number (expected a priority from 0 to 7)",
                    "q.yaml:3:58: links.rdma0.qos.pfc[3]: 'x' is not a whole number (expected a priority from 0 to 7)" } },
                { "{ pfc: [3, 4, 3] }",
                  { "q.yaml:3:54: links.rdma0.qos.pfc[2]: priority 3 is listed twice, first at [0] (expected each priority at most once)" } },
                { "{ trust: DSCP }",
                  { "q.yaml:3:49: links.rdma0.qos.trust: 'DSCP' is not a known value, did you mean 'dscp'? (expected pcp or dscp)" } },
                { "{ trust: dscp, dscp-priority: { 64: 3, 26: 8, af31: 3, 010: 1 } }",
                  { "q.yaml:3:72: links.rdma0.qos.dscp-priority.64: 64 is out of range (expected a DSCP from 0 to 63 as the key, like 26: 3)",
                    "q.yaml:3:83: links.rdma0.qos.dscp-priority.26: 8 is out of range (expected a priority from 0 to 7, like 26: 3)",
                    "q.yaml:3:86: links.rdma0.qos.dscp-priority.af31: 'af31' is not a whole number (expected a DSCP from 0 to 63 as the key, like 26: 3)",
                    "q.yaml:3:95: links.rdma0.qos.dscp-priority.010: '010' is not a whole number (expected a DSCP from 0 to 63 as the key, like 26: 3)" } },
                { "{ ecn: 1, roce-tos: 0x6a }",
                  { "q.yaml:3:47: links.rdma0.qos.ecn: '1' is not a boolean (expected true or false)",
                    "q.yaml:3:60: links.rdma0.qos.roce-tos: '0x6a' is not a whole number (expected a ToS from 0 to 255, DSCP × 4 + ECN bits, like 106 for DSCP 26 with ECT(0))" } },
                /* The lossless class lost without a word: DSCP 26 on a priority without PFC. */
                { "{ pfc: [3], trust: dscp, dscp-priority: { 26: 2 }, roce-tos: 106 }",
                  { "q.yaml:3:86: links.rdma0.qos.dscp-priority.26: roce-tos 106 is DSCP 26, which maps to priority 2, and pfc: [3] leaves priority 2 without PFC: RoCE traffic would be dropped at the first congestion instead of paused (expected 26: 3, or 2 added to pfc)" } },
                { "{ pfc: [3], trust: pcp, dscp-priority: { 26: 3 } }",
                  { "q.yaml:3:79: links.rdma0.qos.dscp-priority: with trust: pcp the NIC classifies by the VLAN priority and ignores this map (expected trust: dscp, or no dscp-priority:)" } },
                { "{ dscp-priority: { 26: 3 } }",
                  { "q.yaml:3:57: links.rdma0.qos.dscp-priority: the map is used only when the NIC trusts DSCP, and trust: is not set: the NICs' default is pcp, which ignores it (expected trust: dscp beside dscp-priority:)" } },
                { "{ pfc: [3, 4], roce-tos: 106 }",
                  { "q.yaml:3:65: links.rdma0.qos.roce-tos: the priority that RoCE traffic with ToS 106 travels on depends on what the NIC trusts, and trust: is not set (expected trust: dscp with dscp-priority: { 26: 3 }, or trust: pcp with the VLAN priority in pfc: [3, 4])" } },
                { "{ ecn: true, roce-tos: 104 }",
                  { "q.yaml:3:63: links.rdma0.qos.roce-tos: roce-tos 104 is DSCP 26 without ECN-capable transport, so no switch can mark it and ecn: true never hears of congestion; 106 marks it ECT(0) (expected DSCP × 4 + 2, like 106)" } },
                { "{ roce-tos: 187 }",
                  { "q.yaml:3:52: links.rdma0.qos.roce-tos: roce-tos 187 is DSCP 46 marked CE (congestion experienced) on every packet: the receiver would answer each with a congestion notification and the sender slow down for nothing (expected DSCP × 4 + 2 for ECT(0), like 186)" } },
                /* Two rules at once: both said. */
                { "{ pfc: [3], trust: dscp, dscp-priority: { 26: 2 }, ecn: true, roce-tos: 104 }",
                  { "q.yaml:3:86: links.rdma0.qos.dscp-priority.26: roce-tos 104 is DSCP 26, which maps to priority 2, and pfc: [3] leaves priority 2 without PFC: RoCE traffic would be dropped at the first congestion instead of paused (expected 26: 3, or 2 added to pfc)",
                    "q.yaml:3:112: links.rdma0.qos.roce-tos: roce-tos 104 is DSCP 26 without ECN-capable transport, so no switch can mark it and ecn: true never hears of congestion; 106 marks it ECT(0) (expected DSCP × 4 + 2, like 106)" } },
                /* A part that is wrong is said once: no rule repeats it in other words. */
                { "{ pfc: [3, 9], trust: dscp, dscp-priority: { 26: 2 }, roce-tos: 106 }",
                  { "q.yaml:3:51: links.rdma0.qos.pfc[1]: 9 is out of range (expected a priority from 0 to 7)" } },
                { "{ pfc: [3], trust: dcsp, dscp-priority: { 26: 3 }, roce-tos: 106 }",
                  { "q.yaml:3:59: links.rdma0.qos.trust: 'dcsp' is not a known value, did you mean 'dscp'? (expected pcp or dscp)" } },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_(profile_freep) Profile *p = NULL;
                _cleanup_(strv_freep) char **errors = NULL;
                size_t n = 0;

                while (n < ELEMENTSOF(cases[i].errors) && cases[i].errors[n])
                        n++;
                ASSERT_INT_EQ(load_qos(cases[i].qos, &p, &errors), -EINVAL);
                ASSERT_TRUE(!p);
                if (strv_length(errors) != n) {
                        fprintf(stderr, "qos: %s\n", cases[i].qos);
                        STRV_FOREACH(e, errors)
                                fprintf(stderr, "  %s\n", *e);
                }
                ASSERT_INT_EQ(strv_length(errors), n);
                for (size_t j = 0; j < n; j++)
                        ASSERT_STR_EQ(errors[j], cases[i].errors[j]);
        }
}

int main(void) {
        test_values();
        test_absent();
        test_errors();
        return EXIT_SUCCESS;
}
