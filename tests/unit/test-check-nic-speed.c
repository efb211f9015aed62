/* SPDX-License-Identifier: MIT */
/* Tests nic.speed's decision on the link settings real NICs report: an E810 at 100G, a DAC that
 * trained at 25G, a half-duplex link, no link, and a driver or a tree that cannot say. */
#include "check/check-nic.h"
#include "tests.h"

typedef struct SpeedCase {
        const char *name;
        EthtoolLinkSettings link;
        int link_error;
        unsigned speed_min_mbit;
        unsigned nic_gbit;
        CheckOutcome outcome;
        const char *summary;
        const char *expected;
        const char *actual;
} SpeedCase;

static const SpeedCase cases[] = {
        { "100G as asked",
          { 100000, DUPLEX_FULL, true },
          0,
          100000,
          100,
          CHECK_PASS,
          "enp194s0np0: 100 Gbit/s full duplex ≥ 100 Gbit/s",
          "≥ 100 Gbit/s",
          "100 Gbit/s full duplex" },
        { "a DAC that trained at 25G",
          { 25000, DUPLEX_FULL, true },
          0,
          100000,
          100,
          CHECK_FAIL,
          "enp194s0np0 trained at 25 Gbit/s < 100 Gbit/s (nic.speed-min): a cable or transceiver rated "
          "below 100 Gbit/s, a breakout cable, or a speed forced with ethtool on either end; `ethtool "
          "enp194s0np0` shows what both ends advertise",
          "≥ 100 Gbit/s",
          "25 Gbit/s full duplex" },
        { "no minimum, below the card",
          { 50000, DUPLEX_FULL, true },
          0,
          0,
          100,
          CHECK_WARN,
          "enp194s0np0 trained at 50 Gbit/s, below the NIC's 100 Gbit/s: check the cable and `ethtool "
          "enp194s0np0`, or set nic.speed-min to accept this speed",
          "100 Gbit/s",
          "50 Gbit/s full duplex" },
        { "no minimum, card unknown",
          { 2500, DUPLEX_FULL, true },
          0,
          0,
          0,
          CHECK_PASS,
          "enp194s0np0: 2.5 Gbit/s full duplex",
          NULL,
          "2.5 Gbit/s full duplex" },
        { "a minimum the link exceeds",
          { 200000, DUPLEX_FULL, true },
          0,
          100000,
          0,
          CHECK_PASS,
          "enp194s0np0: 200 Gbit/s full duplex ≥ 100 Gbit/s",
          "≥ 100 Gbit/s",
          "200 Gbit/s full duplex" },
        { "half duplex",
          { 100, DUPLEX_HALF, false },
          0,
          0,
          0,
          CHECK_FAIL,
          "enp194s0np0 runs at 100 Mbit/s half duplex: RoCE needs full duplex; check `ethtool "
          "enp194s0np0` for a forced setting and let the link autonegotiate",
          "full duplex",
          "100 Mbit/s half duplex" },
        { "no link, a minimum",
          { 0, DUPLEX_UNKNOWN, true },
          0,
          100000,
          100,
          CHECK_FAIL,
          "enp194s0np0 reports no negotiated speed: its link is down (see link.rdma0.up), or its driver does "
          "not know the speed",
          "≥ 100 Gbit/s",
          "unknown" },
        { "no link, no minimum",
          { 0, DUPLEX_UNKNOWN, true },
          0,
          0,
          100,
          CHECK_SKIP,
          "enp194s0np0 reports no negotiated speed: its link is down (see link.rdma0.up), or its driver does "
          "not know the speed",
          NULL,
          "unknown" },
        { "a driver that cannot say",
          {},
          -EOPNOTSUPP,
          100000,
          100,
          CHECK_SKIP,
          "the driver of enp194s0np0 does not report its link settings (ETHTOOL_GLINKSETTINGS)",
          "≥ 100 Gbit/s",
          NULL },
        { "a tree below --root",
          {},
          -ENOMEDIUM,
          100000,
          100,
          CHECK_SKIP,
          "the negotiated speed comes from the running kernel (ETHTOOL_GLINKSETTINGS), which does not "
          "describe the tree given with --root",
          "≥ 100 Gbit/s",
          NULL },
        { "the interface went away",
          {},
          -ENODEV,
          0,
          0,
          CHECK_FAIL,
          "cannot read the link settings of enp194s0np0 (ETHTOOL_GLINKSETTINGS): No such device",
          NULL,
          NULL },
};

int main(void) {
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                const SpeedCase *t = &cases[i];
                PortCheck c = {};

                fprintf(stderr, "case: %s\n", t->name);
                ASSERT_OK(check_nic_speed_evaluate(
                        "rdma0", "enp194s0np0", &t->link, t->link_error, t->speed_min_mbit, t->nic_gbit, &c));
                ASSERT_INT_EQ(c.outcome, t->outcome);
                ASSERT_STR_EQ(c.summary, t->summary);
                ASSERT_STR_EQ(strempty(c.expected), strempty(t->expected));
                ASSERT_STR_EQ(strempty(c.actual), strempty(t->actual));
                port_check_done(&c);
        }
        printf("test-check-nic-speed: ok\n");
        return 0;
}
