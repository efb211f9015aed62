/* SPDX-License-Identifier: MIT */
/* Tests the DCB netlink parser with replies built here as the kernel's dcbnl.c builds them (libmnl,
 * linux/dcbnl.h): an mlx5-like state (PFC on priority 3, an APP table with DSCP 26 → 3 and others, a
 * trust order dscp,pcp), an ice-like one without a trust table, the driver's result of a set, and
 * malformed and truncated replies, which are refused; then the running kernel: a veth in a network
 * namespace of its own has no DCB (EOPNOTSUPP for every request), a missing netdev is ENODEV.
 * `test-dcb --write-corpus DIR` writes the replies as the fuzzer's seeds instead
 * (tests/fuzz/corpus/fuzz-dcb/). */
#include <libmnl/libmnl.h>
#include <linux/rtnetlink.h>
#include <sched.h>

#include "net/dcb.h"
#include "tests.h"

#define EXIT_SKIP 77
#define BUF_SIZE 4096U

typedef enum Variant {
        VARIANT_MLX5,            /* PFC 3, APP table, trust dscp,pcp, DCBX */
        VARIANT_ICE,             /* PFC none, a DSCP entry, no trust table */
        VARIANT_PFC_SHORT,       /* struct ieee_pfc one byte short */
        VARIANT_APP_SHORT,       /* an APP entry of 3 bytes */
        VARIANT_TRUST_MISTYPED,  /* PCP's selector in a DCB_ATTR_IEEE_APP */
        VARIANT_TRUST_DUPLICATE, /* dscp twice */
        VARIANT_NO_IEEE,         /* no DCB_ATTR_IEEE at all */
        VARIANT_WRONG_CMD,       /* DCB_CMD_CEE_GET's command */
        _VARIANT_MAX,
} Variant;

static const char *const variant_names[_VARIANT_MAX] = {
        [VARIANT_MLX5] = "get-mlx5",
        [VARIANT_ICE] = "get-ice",
        [VARIANT_PFC_SHORT] = "get-pfc-short",
        [VARIANT_APP_SHORT] = "get-app-short",
        [VARIANT_TRUST_MISTYPED] = "get-trust-mistyped",
        [VARIANT_TRUST_DUPLICATE] = "get-trust-duplicate",
        [VARIANT_NO_IEEE] = "get-no-ieee",
        [VARIANT_WRONG_CMD] = "get-wrong-cmd",
};

static struct nlmsghdr *header(uint8_t *buf, uint16_t type, uint8_t cmd) {
        struct nlmsghdr *nlh;
        struct dcbmsg *d;

        memset(buf, 0, BUF_SIZE);
        nlh = mnl_nlmsg_put_header(buf);
        nlh->nlmsg_type = type;
        d = mnl_nlmsg_put_extra_header(nlh, sizeof(*d));
        d->dcb_family = AF_UNSPEC;
        d->cmd = cmd;
        mnl_attr_put_strz(nlh, DCB_ATTR_IFNAME, "enp1s0f0np0");
        return nlh;
}

static void put_app(struct nlmsghdr *nlh, uint8_t selector, uint16_t protocol, uint8_t priority) {
        struct dcb_app a = { .selector = selector, .priority = priority, .protocol = protocol };

        mnl_attr_put(
                nlh, selector == DCBNL_APP_SEL_PCP ? DCBNL_ATTR_DCB_APP : DCB_ATTR_IEEE_APP, sizeof(a), &a);
}

static struct nlmsghdr *build_get(uint8_t *buf, Variant v) {
        struct nlmsghdr *nlh = header(
                buf, RTM_GETDCB, v == VARIANT_WRONG_CMD ? DCB_CMD_CEE_GET : DCB_CMD_IEEE_GET);
        struct ieee_ets ets = { .ets_cap = 8 };
        struct ieee_pfc pfc = { .pfc_cap = 8, .pfc_en = v == VARIANT_ICE ? 0 : 1U << 3 };
        struct nlattr *ieee, *table;

        if (v == VARIANT_NO_IEEE) {
                mnl_attr_put_u8(nlh, DCB_ATTR_DCBX, DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE);
                return nlh;
        }
        ieee = mnl_attr_nest_start(nlh, DCB_ATTR_IEEE);
        /* In dcbnl_ieee_fill()'s order: ETS, PFC, the APP table, the rewrite table, the trust table. */
        mnl_attr_put(nlh, DCB_ATTR_IEEE_ETS, sizeof(ets), &ets);
        mnl_attr_put(nlh, DCB_ATTR_IEEE_PFC, sizeof(pfc) - (v == VARIANT_PFC_SHORT), &pfc);
        table = mnl_attr_nest_start(nlh, DCB_ATTR_IEEE_APP_TABLE);
        put_app(nlh, IEEE_8021QAZ_APP_SEL_DSCP, 26, 3);
        if (v != VARIANT_ICE) {
                put_app(nlh, IEEE_8021QAZ_APP_SEL_DSCP, 46, 5);
                put_app(nlh, IEEE_8021QAZ_APP_SEL_DSCP, 0, 0);
                put_app(nlh, IEEE_8021QAZ_APP_SEL_ETHERTYPE, 0x8906, 3); /* FCoE */
                put_app(nlh, IEEE_8021QAZ_APP_SEL_DGRAM, 4791, 3);       /* RoCE v2's UDP port */
        }
        if (v == VARIANT_APP_SHORT) {
                struct dcb_app a = { .selector = IEEE_8021QAZ_APP_SEL_DSCP, .priority = 1, .protocol = 8 };

                mnl_attr_put(nlh, DCB_ATTR_IEEE_APP, 3, &a);
        }
        mnl_attr_nest_end(nlh, table);
        mnl_attr_nest_end(nlh, mnl_attr_nest_start(nlh, DCBNL_ATTR_REWR_TABLE));
        if (v != VARIANT_ICE) {
                table = mnl_attr_nest_start(nlh, DCBNL_ATTR_APP_TRUST_TABLE);
                mnl_attr_put_u8(nlh, DCB_ATTR_IEEE_APP, IEEE_8021QAZ_APP_SEL_DSCP);
                if (v == VARIANT_TRUST_DUPLICATE)
                        mnl_attr_put_u8(nlh, DCB_ATTR_IEEE_APP, IEEE_8021QAZ_APP_SEL_DSCP);
                mnl_attr_put_u8(
                        nlh,
                        v == VARIANT_TRUST_MISTYPED ? DCB_ATTR_IEEE_APP : DCBNL_ATTR_DCB_APP,
                        DCBNL_APP_SEL_PCP);
                mnl_attr_nest_end(nlh, table);
        }
        mnl_attr_nest_end(nlh, ieee);
        mnl_attr_put_u8(nlh, DCB_ATTR_DCBX, DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE);
        return nlh;
}

/* The reply to DCB_CMD_IEEE_SET: the driver's int result put as one byte. */
static struct nlmsghdr *build_set(uint8_t *buf, int result) {
        struct nlmsghdr *nlh = header(buf, RTM_SETDCB, DCB_CMD_IEEE_SET);

        mnl_attr_put_u8(nlh, DCB_ATTR_IEEE, (uint8_t) result);
        return nlh;
}

static void test_mlx5(void) {
        static uint8_t buf[BUF_SIZE];
        static DcbState s;
        char b[DCB_TRUST_STRING_MAX];

        ASSERT_OK(dcb_parse_get_reply(build_get(buf, VARIANT_MLX5), &s));
        ASSERT_TRUE(s.has_pfc);
        ASSERT_INT_EQ(s.pfc.pfc_en, 1U << 3);
        ASSERT_INT_EQ(s.pfc.pfc_cap, 8);
        ASSERT_STR_EQ(dcb_pfc_to_string(s.pfc.pfc_en, b), "3");
        ASSERT_INT_EQ(s.n_apps, 5);
        ASSERT_INT_EQ(dcb_state_app_priority(&s, IEEE_8021QAZ_APP_SEL_DSCP, 26), 3);
        ASSERT_INT_EQ(dcb_state_app_priority(&s, IEEE_8021QAZ_APP_SEL_DSCP, 46), 5);
        ASSERT_INT_EQ(dcb_state_app_priority(&s, IEEE_8021QAZ_APP_SEL_DSCP, 0), 0);
        ASSERT_INT_EQ(dcb_state_app_priority(&s, IEEE_8021QAZ_APP_SEL_DSCP, 10), -ENOENT);
        ASSERT_INT_EQ(dcb_state_app_priority(&s, IEEE_8021QAZ_APP_SEL_DGRAM, 4791), 3);
        ASSERT_INT_EQ(dcb_state_count_selector(&s, IEEE_8021QAZ_APP_SEL_DSCP), 3);
        ASSERT_TRUE(s.has_trust);
        ASSERT_INT_EQ(s.n_trust, 2);
        ASSERT_INT_EQ(s.trust[0], IEEE_8021QAZ_APP_SEL_DSCP);
        ASSERT_INT_EQ(s.trust[1], DCBNL_APP_SEL_PCP);
        ASSERT_STR_EQ(dcb_trust_to_string(s.trust, s.n_trust, b), "dscp,pcp");

        /* Two entries for one DSCP (IEEE allows it): the priority is not unique. */
        s.apps[s.n_apps++] = (struct dcb_app){ .selector = IEEE_8021QAZ_APP_SEL_DSCP,
                                               .priority = 0,
                                               .protocol = 26 };
        ASSERT_INT_EQ(dcb_state_app_priority(&s, IEEE_8021QAZ_APP_SEL_DSCP, 26), -ENOTUNIQ);
}

static void test_ice(void) {
        static uint8_t buf[BUF_SIZE];
        static DcbState s;
        char b[DCB_TRUST_STRING_MAX];

        ASSERT_OK(dcb_parse_get_reply(build_get(buf, VARIANT_ICE), &s));
        ASSERT_TRUE(s.has_pfc);
        ASSERT_STR_EQ(dcb_pfc_to_string(s.pfc.pfc_en, b), "none");
        ASSERT_INT_EQ(s.n_apps, 1);
        ASSERT_TRUE(!s.has_trust);
        ASSERT_STR_EQ(dcb_trust_to_string(s.trust, s.n_trust, b), "none");
        ASSERT_STR_EQ(dcb_pfc_to_string(0xff, b), "0,1,2,3,4,5,6,7");
}

static void test_malformed(void) {
        static uint8_t buf[BUF_SIZE];
        static DcbState s;
        struct nlmsghdr *nlh;

        for (Variant v = VARIANT_PFC_SHORT; v < _VARIANT_MAX; v++) {
                s.has_pfc = true;
                if (dcb_parse_get_reply(build_get(buf, v), &s) != -EBADMSG) {
                        fprintf(stderr, "%s was not refused\n", variant_names[v]);
                        abort();
                }
        }
        /* A set reply is no get reply, and the other way round. */
        ASSERT_INT_EQ(dcb_parse_get_reply(build_set(buf, 0), &s), -EBADMSG);
        ASSERT_INT_EQ(dcb_parse_set_reply(build_get(buf, VARIANT_MLX5)), -EBADMSG);

        /* Truncated anywhere inside the attributes: the last one runs past the end, or bytes that are
         * no attribute are left over. Never read in part. */
        nlh = build_get(buf, VARIANT_MLX5);
        for (uint32_t cut = 1; cut < nlh->nlmsg_len - NLMSG_HDRLEN - sizeof(struct dcbmsg); cut++) {
                uint32_t len = nlh->nlmsg_len;
                int r;

                nlh->nlmsg_len = len - cut;
                r = dcb_parse_get_reply(nlh, &s);
                nlh->nlmsg_len = len;
                /* Cutting only the last attribute's padding, or exactly the trailing DCBX attribute,
                 * leaves a complete message. */
                if (r != -EBADMSG && !(r == 0 && (cut < 4 || cut == MNL_ALIGN(MNL_ATTR_HDRLEN + 1)))) {
                        fprintf(stderr, "a reply cut by %u bytes gave %d\n", cut, r);
                        abort();
                }
        }
        /* Shorter than its dcbmsg. */
        nlh->nlmsg_len = NLMSG_HDRLEN + 2;
        ASSERT_INT_EQ(dcb_parse_get_reply(nlh, &s), -EBADMSG);
}

static void test_set_reply(void) {
        static uint8_t buf[BUF_SIZE];
        struct nlmsghdr *nlh;

        ASSERT_INT_EQ(dcb_parse_set_reply(build_set(buf, 0)), 0);
        ASSERT_INT_EQ(dcb_parse_set_reply(build_set(buf, -EINVAL)), -EINVAL);
        ASSERT_INT_EQ(dcb_parse_set_reply(build_set(buf, -EOPNOTSUPP)), -EOPNOTSUPP);
        nlh = header(buf, RTM_SETDCB, DCB_CMD_IEEE_DEL);
        ASSERT_INT_EQ(dcb_parse_set_reply(nlh), -EBADMSG); /* no result */
        mnl_attr_put_u16(nlh, DCB_ATTR_IEEE, 0);
        ASSERT_INT_EQ(dcb_parse_set_reply(nlh), -EBADMSG); /* a result of the wrong size */
}

static int skip_or_fail(const char *why) {
        const char *ci = getenv("CI");

        if (ci && streq(ci, "true")) {
                fprintf(stderr, "test-dcb: %s, and CI=true: failing\n", why);
                return EXIT_FAILURE;
        }
        fprintf(stderr, "test-dcb: %s: skipping the running kernel's part\n", why);
        return EXIT_SKIP;
}

static int test_kernel(void) {
        _cleanup_(rtnl_closep) Rtnl *r = NULL;
        static DcbState s;
        struct ieee_pfc pfc = { .pfc_en = 1U << 3 };
        struct dcb_app app = { .selector = IEEE_8021QAZ_APP_SEL_DSCP, .priority = 3, .protocol = 26 };
        uint8_t trust[] = { IEEE_8021QAZ_APP_SEL_DSCP, DCBNL_APP_SEL_PCP };
        char *e = NULL;

        /* A private, anonymous namespace: nothing to name, nothing to clean up, gone with us. */
        if (unshare(CLONE_NEWNET) < 0)
                return skip_or_fail("cannot create a network namespace (not root?)");
        if (system("ip link add dcbv0 type veth peer name dcbv1") != 0)
                return skip_or_fail("cannot create a veth pair with ip(8)");

        ASSERT_OK(rtnl_open(&r));
        /* veth has no dcbnl_ops: the kernel answers EOPNOTSUPP, without an extended ack. */
        ASSERT_INT_EQ(dcb_get(r, "dcbv0", &s, &e), -EOPNOTSUPP);
        ASSERT_TRUE(!e);
        ASSERT_INT_EQ(dcb_set_pfc(r, "dcbv0", &pfc, &e), -EOPNOTSUPP);
        ASSERT_INT_EQ(dcb_add_apps(r, "dcbv0", &app, 1, &e), -EOPNOTSUPP);
        ASSERT_INT_EQ(dcb_delete_apps(r, "dcbv0", &app, 1, &e), -EOPNOTSUPP);
        ASSERT_INT_EQ(dcb_set_trust(r, "dcbv0", trust, ELEMENTSOF(trust), &e), -EOPNOTSUPP);
        ASSERT_INT_EQ(dcb_get(r, "lo", &s, &e), -EOPNOTSUPP);
        ASSERT_INT_EQ(dcb_get(r, "dcbv9", &s, &e), -ENODEV);
        ASSERT_INT_EQ(dcb_get(r, "", &s, &e), -EINVAL);
        ASSERT_INT_EQ(dcb_get(r, "a-name-far-too-long", &s, &e), -EINVAL);
        /* The socket stays in step after refusals. */
        ASSERT_INT_EQ(dcb_get(r, "dcbv1", &s, &e), -EOPNOTSUPP);
        return EXIT_SUCCESS;
}

static int write_corpus(const char *dir) {
        static uint8_t buf[BUF_SIZE];

        for (int i = 0; i <= _VARIANT_MAX + 1; i++) {
                const struct nlmsghdr *nlh = i < _VARIANT_MAX
                        ? build_get(buf, (Variant) i)
                        : build_set(buf, i == _VARIANT_MAX ? 0 : -EINVAL);
                const char *name = i < _VARIANT_MAX ? variant_names[i]
                        : i == _VARIANT_MAX         ? "set-ok"
                                                    : "set-einval";
                _cleanup_(freep) char *path = NULL;
                _cleanup_(fclosep) FILE *f = NULL;

                ASSERT_TRUE(asprintf(&path, "%s/%s", dir, name) > 0);
                f = fopen(path, "we");
                ASSERT_TRUE(f);
                ASSERT_TRUE(fwrite(nlh, 1, nlh->nlmsg_len, f) == nlh->nlmsg_len);
        }
        return EXIT_SUCCESS;
}

int main(int argc, char *argv[]) {
        if (argc == 3 && streq(argv[1], "--write-corpus"))
                return write_corpus(argv[2]);

        test_mlx5();
        test_ice();
        test_malformed();
        test_set_reply();
        if (test_kernel() != EXIT_SUCCESS)
                return getenv("CI") && streq(getenv("CI"), "true") ? EXIT_FAILURE : EXIT_SKIP;
        printf("test-dcb: ok\n");
        return EXIT_SUCCESS;
}
