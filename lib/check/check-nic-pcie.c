/* SPDX-License-Identifier: MIT */
/* nic.pcie's decision: the PCIe link the NIC trained at against its capability, nic.pcie-min-width and
 * what the NIC's line rate needs. */
#include <stdio.h>

#include "check/check-nic.h"

static int describe_link(const PcieLink *l, char **ret) {
        char speed[PCIE_SPEED_STRING_MAX];

        return asprintf(ret, "PCIe %s GT/s x%u", pcie_speed_to_string(l->speed_mts, speed), l->width) < 0
                ? -ENOMEM
                : 0;
}

/* " (capable 16 GT/s x16)": what the card could do beyond the link it trained; "" when nothing. */
static int describe_capable(const PcieLink *cur, const PcieLink *cap, char **ret) {
        bool slower = cur->speed_mts < cap->speed_mts, narrower = cur->width < cap->width;
        char speed[PCIE_SPEED_STRING_MAX];
        int r;

        if (slower && narrower)
                r = asprintf(
                        ret, " (capable %s GT/s x%u)", pcie_speed_to_string(cap->speed_mts, speed), cap->width);
        else if (slower)
                r = asprintf(ret, " (capable %s GT/s)", pcie_speed_to_string(cap->speed_mts, speed));
        else if (narrower)
                r = asprintf(ret, " (capable x%u)", cap->width);
        else
                r = asprintf(ret, "%s", "");
        return r < 0 ? -ENOMEM : 0;
}

/* What the link carries against the NIC's line rate (0: unknown). */
static int describe_bound(double gbit, unsigned nic_gbit, char **ret) {
        int r;

        if (nic_gbit > 0 && gbit < nic_gbit)
                r = asprintf(ret, "at most ~%.0f Gbit/s of the NIC's %u", gbit, nic_gbit);
        else if (nic_gbit > 0)
                r = asprintf(ret, "~%.0f Gbit/s, enough for the NIC's %u", gbit, nic_gbit);
        else
                r = asprintf(ret, "at most ~%.0f Gbit/s", gbit);
        return r < 0 ? -ENOMEM : 0;
}

int check_nic_pcie_evaluate(const PciDevice *d, unsigned pcie_min_width, unsigned nic_gbit, PortCheck *ret) {
        _cleanup_(freep) char *current = NULL, *capable = NULL, *bound = NULL, *expected = NULL;
        const PcieLink *cur = &d->current, *cap = &d->capable;
        bool slower = cur->speed_mts < cap->speed_mts, narrower = cur->width < cap->width;
        double gbit = pcie_link_gbit(cur);
        int r;

        if (d->link_source == PCIE_LINK_UNKNOWN)
                return port_check_set(
                        ret,
                        CHECK_SKIP,
                        NULL,
                        NULL,
                        "the PCIe link of %s is unknown: no PCIe capability readable in config space "
                        "and no current_link_speed in sysfs",
                        d->address);

        r = describe_link(cur, &current);
        if (r < 0)
                return r;
        if (describe_capable(cur, cap, &capable) < 0 || describe_bound(gbit, nic_gbit, &bound) < 0)
                return -ENOMEM;
        if (pcie_min_width > 0)
                r = asprintf(&expected, "x%u or wider", pcie_min_width);
        else
                r = describe_link(cap, &expected);
        if (r < 0)
                return -ENOMEM;

        if (pcie_min_width > 0 && cur->width < pcie_min_width)
                return port_check_set(
                        ret,
                        CHECK_FAIL,
                        expected,
                        current,
                        "%s%s: %s; nic.pcie-min-width is %u: use a slot with at least %u lanes, "
                        "or check the riser and the BIOS slot bifurcation",
                        current,
                        capable,
                        bound,
                        pcie_min_width,
                        pcie_min_width);
        if (slower)
                return port_check_set(
                        ret,
                        CHECK_WARN,
                        expected,
                        current,
                        "%s%s: %s; the link trained below the card's speed: check the slot's PCIe "
                        "generation in the BIOS and the riser, or reseat the card",
                        current,
                        capable,
                        bound);
        /* A narrower link that the profile accepts (pcie-min-width) is how the reference boards are
         * built (an x16 card in an x4 slot): said, but not a warning on every run. */
        if (narrower && pcie_min_width == 0)
                return port_check_set(
                        ret,
                        CHECK_WARN,
                        expected,
                        current,
                        "%s%s: %s; the slot gives fewer lanes than the card has: set "
                        "nic.pcie-min-width to accept this width",
                        current,
                        capable,
                        bound);
        return port_check_set(ret, CHECK_PASS, expected, current, "%s%s: %s", current, capable, bound);
}
