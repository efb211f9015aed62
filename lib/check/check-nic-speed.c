/* SPDX-License-Identifier: MIT */
/* nic.speed's decision: the Ethernet speed and duplex the link negotiated (ETHTOOL_GLINKSETTINGS)
 * against nic.speed-min, or against the NIC's own line rate when the profile sets no minimum. */
#include <stdio.h>

#include "check/check-nic.h"

#define SPEED_STRING_MAX 32U

/* "100 Gbit/s", "2.5 Gbit/s", "100 Mbit/s". */
static const char *format_speed(unsigned mbit, char buf[static SPEED_STRING_MAX]) {
        if (mbit >= 1000 && mbit % 1000 == 0)
                snprintf(buf, SPEED_STRING_MAX, "%u Gbit/s", mbit / 1000);
        else if (mbit >= 1000)
                snprintf(buf, SPEED_STRING_MAX, "%.1f Gbit/s", mbit / 1000.0);
        else
                snprintf(buf, SPEED_STRING_MAX, "%u Mbit/s", mbit);
        return buf;
}

/* ETHTOOL_GLINKSETTINGS did not answer: not asked (--root), not supported, or failed. */
static int speed_not_read(const char *ifname, int link_error, const char *expected, PortCheck *ret) {
        if (link_error == -ENOMEDIUM)
                return port_check_set(
                        ret,
                        CHECK_SKIP,
                        expected,
                        NULL,
                        "the negotiated speed comes from the running kernel (ETHTOOL_GLINKSETTINGS), "
                        "which does not describe the tree given with --root");
        if (link_error == -EOPNOTSUPP)
                return port_check_set(
                        ret,
                        CHECK_SKIP,
                        expected,
                        NULL,
                        "the driver of %s does not report its link settings (ETHTOOL_GLINKSETTINGS)",
                        ifname);
        return port_check_set(
                ret,
                CHECK_FAIL,
                expected,
                NULL,
                "cannot read the link settings of %s (ETHTOOL_GLINKSETTINGS): %s",
                ifname,
                strerror(-link_error));
}

int check_nic_speed_evaluate(
        const char *link_name,
        const char *ifname,
        const EthtoolLinkSettings *link,
        int link_error,
        unsigned speed_min_mbit,
        unsigned nic_gbit,
        PortCheck *ret) {
        char min[SPEED_STRING_MAX], speed[SPEED_STRING_MAX], card[SPEED_STRING_MAX];
        _cleanup_(freep) char *expected = NULL, *actual = NULL;

        if (speed_min_mbit > 0 && asprintf(&expected, "≥ %s", format_speed(speed_min_mbit, min)) < 0)
                return -ENOMEM;

        if (link_error < 0)
                return speed_not_read(ifname, link_error, expected, ret);
        if (link->speed_mbit == 0)
                /* SPEED_UNKNOWN: no carrier (link.<name>.up says so, and is the check to fix first), or a
                 * driver that never knows its speed (virtio_net): not a speed to judge either way. */
                return port_check_set(
                        ret,
                        speed_min_mbit > 0 ? CHECK_FAIL : CHECK_SKIP,
                        expected,
                        "unknown",
                        "%s reports no negotiated speed: its link is down (see link.%s.up), or its driver "
                        "does not know the speed",
                        ifname,
                        link_name);

        format_speed(link->speed_mbit, speed);
        if (asprintf(&actual, "%s %s duplex", speed, ethtool_duplex_to_string(link->duplex)) < 0)
                return -ENOMEM;
        if (link->duplex == DUPLEX_HALF)
                return port_check_set(
                        ret,
                        CHECK_FAIL,
                        expected ?: "full duplex",
                        actual,
                        "%s runs at %s half duplex: RoCE needs full duplex; check `ethtool %s` for a forced "
                        "setting and let the link autonegotiate",
                        ifname,
                        speed,
                        ifname);
        if (speed_min_mbit > 0 && link->speed_mbit < speed_min_mbit)
                return port_check_set(
                        ret,
                        CHECK_FAIL,
                        expected,
                        actual,
                        "%s trained at %s < %s (nic.speed-min): a cable or transceiver rated below %s, a "
                        "breakout cable, or a speed forced with ethtool on either end; `ethtool %s` shows "
                        "what both ends advertise",
                        ifname,
                        speed,
                        min,
                        min,
                        ifname);
        if (speed_min_mbit == 0 && nic_gbit > 0 && link->speed_mbit < nic_gbit * 1000U)
                return port_check_set(
                        ret,
                        CHECK_WARN,
                        format_speed(nic_gbit * 1000U, card),
                        actual,
                        "%s trained at %s, below the NIC's %s: check the cable and `ethtool %s`, or set "
                        "nic.speed-min to accept this speed",
                        ifname,
                        speed,
                        card,
                        ifname);
        if (speed_min_mbit > 0)
                return port_check_set(
                        ret, CHECK_PASS, expected, actual, "%s: %s full duplex ≥ %s", ifname, speed, min);
        return port_check_set(ret, CHECK_PASS, expected, actual, "%s: %s full duplex", ifname, speed);
}
