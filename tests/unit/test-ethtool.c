/* SPDX-License-Identifier: MIT */
/* Tests ETHTOOL_GDRVINFO, ETHTOOL_GLINKSETTINGS, the private flags and ETHTOOL_GSTATS for real: a veth
 * pair in a network namespace of its own, and lo. Needs root (CAP_NET_ADMIN, CAP_SYS_ADMIN): skipped (77)
 * without it, failed when CI=true. */
#include <net/if.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "basic/macro.h"
#include "nic/ethtool.h"
#include "nic/pause-counters.h"
#include "tests.h"

#define EXIT_SKIP 77

static int skip_or_fail(const char *why) {
        const char *ci = getenv("CI");

        if (ci && streq(ci, "true")) {
                fprintf(stderr, "test-ethtool: %s, and CI=true: failing\n", why);
                return EXIT_FAILURE;
        }
        fprintf(stderr, "test-ethtool: %s: skipping\n", why);
        return EXIT_SKIP;
}

int main(void) {
        EthtoolDriverInfo info;
        EthtoolLinkSettings link;
        int r;

        /* A private, anonymous namespace: nothing to name, nothing to clean up, gone with us. */
        if (unshare(CLONE_NEWNET) < 0)
                return skip_or_fail("cannot create a network namespace (not root?)");
        r = system(
                "ip link add nicv0 type veth peer name nicv1 && ip link set nicv0 up && ip link set nicv1 up");
        if (r != 0)
                return skip_or_fail("cannot create a veth pair with ip(8)");

        ASSERT_OK(ethtool_get_driver_info("nicv0", &info));
        ASSERT_STR_EQ(info.driver, "veth");
        ASSERT_STR_EQ(info.fw_version, ""); /* veth has no firmware: the empty string */
        ASSERT_STR_EQ(info.bus_info, "");
        ASSERT_TRUE(!isempty(info.version));

        /* veth answers ETHTOOL_GLINKSETTINGS with a fixed 10 Gbit/s full duplex, link or not. */
        ASSERT_OK(ethtool_get_link_settings("nicv0", &link));
        ASSERT_INT_EQ(link.speed_mbit, 10000);
        ASSERT_INT_EQ(link.duplex, DUPLEX_FULL);
        ASSERT_STR_EQ(ethtool_duplex_to_string(link.duplex), "full");
        ASSERT_INT_EQ(ethtool_get_link_settings("nicv9", &link), -ENODEV);
        ASSERT_INT_EQ(ethtool_get_link_settings("", &link), -EINVAL);
        ASSERT_INT_EQ(ethtool_get_link_settings("../lo", &link), -EINVAL);
        /* lo's driver has no get_link_ksettings: the kernel says so, nothing is made up. */
        ASSERT_INT_EQ(ethtool_get_link_settings("lo", &link), -EOPNOTSUPP);

        /* ETHTOOL_GSTATS: veth's own statistics, peer_ifindex among them, and no pause counters. */
        {
                _cleanup_(ethtool_stats_done) EthtoolStats st = {};
                PauseCounters pause;
                uint64_t v;

                ASSERT_OK(ethtool_get_stats("nicv0", &st));
                ASSERT_TRUE(st.n > 0);
                ASSERT_OK(ethtool_stats_find(&st, "peer_ifindex", &v));
                ASSERT_INT_EQ(v, if_nametoindex("nicv1"));
                ASSERT_INT_EQ(ethtool_stats_find(&st, "rx_prio3_pause", &v), -ENOENT);
                pause_counters_from_stats(&st, &pause);
                ASSERT_INT_EQ(pause.known, 0);
                ethtool_stats_done(&st);
                /* lo has no statistics set: none, not an error. */
                ASSERT_OK(ethtool_get_stats("lo", &st));
                ASSERT_INT_EQ(st.n, 0);
                ASSERT_INT_EQ(ethtool_get_stats("nicv9", &st), -ENODEV);
                ASSERT_INT_EQ(ethtool_get_stats("../lo", &st), -EINVAL);
        }

        /* lo has no ethtool driver info at all. */
        ASSERT_INT_EQ(ethtool_get_driver_info("lo", &info), -EOPNOTSUPP);
        ASSERT_INT_EQ(ethtool_get_driver_info("nicv9", &info), -ENODEV);
        ASSERT_INT_EQ(ethtool_get_driver_info("", &info), -EINVAL);
        ASSERT_INT_EQ(ethtool_get_driver_info("a-name-far-too-long", &info), -EINVAL);
        ASSERT_INT_EQ(ethtool_get_driver_info("../lo", &info), -EINVAL);
        ASSERT_INT_EQ(ethtool_get_driver_info(NULL, &info), -EINVAL);

        /* Private flags: veth has none (its driver answers no ETH_SS_PRIV_FLAGS set), so ice's
         * fw-lldp-agent is "no such flag", not "off"; lo has no ethtool ops for it either. */
        {
                bool on = true;

                ASSERT_INT_EQ(ethtool_get_private_flag("nicv0", "fw-lldp-agent", &on), -ENOENT);
                ASSERT_TRUE(on); /* untouched */
                ASSERT_INT_EQ(ethtool_get_private_flag("lo", "fw-lldp-agent", &on), -ENOENT);
                ASSERT_INT_EQ(ethtool_get_private_flag("nicv9", "fw-lldp-agent", &on), -ENODEV);
                ASSERT_INT_EQ(ethtool_get_private_flag("../lo", "fw-lldp-agent", &on), -EINVAL);
                ASSERT_INT_EQ(ethtool_get_private_flag("nicv0", NULL, &on), -EINVAL);
                /* Setting one: veth has no private flags, so there is no fw-lldp-agent to turn off. */
                ASSERT_INT_EQ(ethtool_set_private_flag("nicv0", "fw-lldp-agent", false), -ENOENT);
                ASSERT_INT_EQ(ethtool_set_private_flag("nicv9", "fw-lldp-agent", false), -ENODEV);
                ASSERT_INT_EQ(ethtool_set_private_flag("../lo", "fw-lldp-agent", false), -EINVAL);
                ASSERT_INT_EQ(ethtool_set_private_flag("nicv0", NULL, false), -EINVAL);
        }

        printf("test-ethtool: ok\n");
        return EXIT_SUCCESS;
}
