/* SPDX-License-Identifier: MIT */
/* The NIC checks: the fabric NIC's PCI device, its PCIe link, its driver and its firmware. */
#include <stdio.h>

#include "basic/strv.h"
#include "basic/version.h"
#include "check/check-nic.h"
#include "config.h"
#include "nic/ethtool.h"

#define PCI_ID_FORMAT "%04x:%04x"

static char *pci_ids_describe(const ProfileNic *nic) {
        _cleanup_(strv_freep) char **l = NULL;

        for (size_t i = 0; i < nic->n_pci_ids; i++)
                if (strv_extendf(&l, PCI_ID_FORMAT, nic->pci_ids[i].vendor, nic->pci_ids[i].device) < 0)
                        return NULL;
        return l ? strv_join(l, ", ") : strdup("");
}

static bool nic_ids_contain(const ProfileNic *nic, PciId id) {
        for (size_t i = 0; i < nic->n_pci_ids; i++)
                if (nic->pci_ids[i].vendor == id.vendor && nic->pci_ids[i].device == id.device)
                        return true;
        return nic->n_pci_ids == 0;
}

/* One port as the checks see it: where it is, and its facts from the snapshot. */
typedef struct NicPort {
        const FabricPort *port;
        const NicFacts *facts;
} NicPort;

static int check_nic_pci_port(const NodeContext *c, const NicPort *p, PortCheck *ret) {
        const ProfileNic *nic = node_context_nic(c);
        _cleanup_(freep) char *ids = pci_ids_describe(nic);
        char actual[16];

        if (!ids)
                return -ENOMEM;
        if (!p->port->pci) {
                _cleanup_(strv_freep) char **found = NULL;
                _cleanup_(freep) char *joined = NULL;
                int r;

                /* Say whether devices with the right ids exist: either the match is what is wrong,
                 * or the NIC is not there at all. */
                if (nic->n_pci_ids == 0)
                        return port_check_set(ret, CHECK_FAIL, ids, "", "%s", p->port->problem);
                r = pci_devices_find_ids(c->host, nic->pci_ids, nic->n_pci_ids, &found);
                if (r == -ENOMEM)
                        return r;
                if (r >= 0 && !found)
                        return port_check_set(
                                ret,
                                CHECK_FAIL,
                                ids,
                                "",
                                "no PCI device with nic.pci-ids (%s) on this machine: is the NIC seated, "
                                "and its slot enabled in the BIOS? `lspci -nn` lists what the kernel sees",
                                ids);
                if (r >= 0) {
                        joined = strv_join(found, ", ");
                        if (!joined)
                                return -ENOMEM;
                        return port_check_set(
                                ret,
                                CHECK_FAIL,
                                ids,
                                "",
                                "%s (devices with nic.pci-ids are at %s)",
                                p->port->problem,
                                joined);
                }
                return port_check_set(ret, CHECK_FAIL, ids, "", "%s", p->port->problem);
        }
        if (p->facts->device_error == -ENODEV)
                return port_check_set(
                        ret,
                        CHECK_FAIL,
                        ids,
                        "",
                        "no PCI device at %s: `lspci -D` lists the devices the kernel sees",
                        p->port->pci);
        if (p->facts->device_error == -ELIBACC || p->facts->device_error == -ELIBBAD) {
                _cleanup_(freep) char *why = NULL;

                /* libpci is loaded on first use: say why it could not be, and what to install. */
                if (pci_library_load(&why) == -ENOMEM)
                        return -ENOMEM;
                return port_check_set(ret, CHECK_FAIL, ids, "", "%s", why ?: "libpci.so.3 could not be loaded");
        }
        if (p->facts->device_error < 0)
                return port_check_set(
                        ret,
                        CHECK_FAIL,
                        ids,
                        "",
                        "cannot read PCI device %s through libpci: %s",
                        p->port->pci,
                        strerror(-p->facts->device_error));

        snprintf(actual, sizeof(actual), PCI_ID_FORMAT, p->facts->device->id.vendor, p->facts->device->id.device);
        if (!nic_ids_contain(nic, p->facts->device->id))
                return port_check_set(
                        ret,
                        CHECK_FAIL,
                        ids,
                        actual,
                        "%s at %s is %s, not one of nic.pci-ids (%s): the link's match picks the wrong device, or pci-ids misses it",
                        strna(p->facts->device->name),
                        p->facts->device->address,
                        actual,
                        ids);
        if (p->facts->device->name)
                return port_check_set(
                        ret, CHECK_PASS, ids, actual, "%s at %s", p->facts->device->name, p->facts->device->address);
        return port_check_set(
                ret,
                CHECK_PASS,
                ids,
                actual,
                "PCI device %s (not named in pci.ids) at %s",
                actual,
                p->facts->device->address);
}

static int describe_link(const PcieLink *l, char **ret) {
        char speed[PCIE_SPEED_STRING_MAX];

        return asprintf(ret, "PCIe %s GT/s x%u", pcie_speed_to_string(l->speed_mts, speed), l->width) < 0
                ? -ENOMEM
                : 0;
}

int check_nic_pcie_evaluate(const PciDevice *d, unsigned pcie_min_width, unsigned nic_gbit, PortCheck *ret) {
        _cleanup_(freep) char *current = NULL, *capable = NULL, *bound = NULL, *expected = NULL;
        char speed[PCIE_SPEED_STRING_MAX];
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
        if (slower && narrower)
                r = asprintf(
                        &capable,
                        " (capable %s GT/s x%u)",
                        pcie_speed_to_string(cap->speed_mts, speed),
                        cap->width);
        else if (slower)
                r = asprintf(&capable, " (capable %s GT/s)", pcie_speed_to_string(cap->speed_mts, speed));
        else if (narrower)
                r = asprintf(&capable, " (capable x%u)", cap->width);
        else
                r = asprintf(&capable, "%s", "");
        if (r < 0)
                return -ENOMEM;
        if (nic_gbit > 0 && gbit < nic_gbit)
                r = asprintf(&bound, "at most ~%.0f Gbit/s of the NIC's %u", gbit, nic_gbit);
        else if (nic_gbit > 0)
                r = asprintf(&bound, "~%.0f Gbit/s, enough for the NIC's %u", gbit, nic_gbit);
        else
                r = asprintf(&bound, "at most ~%.0f Gbit/s", gbit);
        if (r < 0)
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

static int check_nic_pcie_port(const NodeContext *c, const NicPort *p, PortCheck *ret) {
        unsigned mbit = 0, nic_gbit = 0;

        if (!p->facts->device)
                return port_check_set(ret, CHECK_SKIP, NULL, NULL, "no PCI device to look at (see nic.pci)");
        if (p->facts->device->link_source == PCIE_LINK_UNKNOWN && geteuid() != 0)
                return port_check_set(
                        ret,
                        CHECK_SKIP,
                        NULL,
                        NULL,
                        "could not look at the PCIe link of %s: config space past byte 64 is root's, and sysfs "
                        "has no current_link_speed: `sudo haloctl check --only nic.pcie` reads it",
                        p->facts->device->address);
        /* The card's line rate comes from its PCI id: the negotiated speed may be lower (a cable that
         * trained down, which nic.speed reports), and would make a narrow PCIe link look enough. Only a
         * card halod does not know is taken at the speed its link runs. */
        nic_gbit = nic_line_rate_from_id(p->facts->device->id);
        if (nic_gbit == 0 && p->port->ifname &&
            netdev_read_uint(c->host, p->port->ifname, "speed", &mbit) >= 0 && mbit > 0 && mbit < 10000000)
                nic_gbit = mbit / 1000;
        return check_nic_pcie_evaluate(p->facts->device, node_context_nic(c)->pcie_min_width, nic_gbit, ret);
}

static int check_nic_speed_port(const NodeContext *c, const NicPort *p, PortCheck *ret) {
        if (!p->port->ifname)
                return port_check_set(
                        ret, CHECK_SKIP, NULL, NULL, "no interface for link %s (see nic.pci)", p->port->link);
        return check_nic_speed_evaluate(
                p->port->link,
                p->port->ifname,
                &p->facts->link,
                p->facts->link_error,
                node_context_nic(c)->speed_min_mbit,
                p->facts->device ? nic_line_rate_from_id(p->facts->device->id) : 0,
                ret);
}

/* No driver is bound: name the driver of the family the device is (by its PCI id), else of the
 * family nic.driver names, else nic.driver itself, else every family's. */
static int check_nic_driver_unbound(const char *want, const NicPort *p, const char *where, PortCheck *ret) {
        _cleanup_(freep) char *load = NULL;
        NicFamily f = NIC_FAMILY_UNKNOWN;

        if (p->facts->device)
                f = nic_family_from_pci_id(p->facts->device->id);
        if (f == NIC_FAMILY_UNKNOWN)
                f = nic_family_from_driver(want);
        if (f == NIC_FAMILY_UNKNOWN && want) {
                if (asprintf(&load, "`modprobe %s`", want) < 0)
                        return -ENOMEM;
        } else {
                load = nic_family_modprobe(f, NIC_MODULE_DRIVER);
                if (!load)
                        return -ENOMEM;
        }
        return port_check_set(
                ret,
                CHECK_FAIL,
                want,
                NULL,
                "no driver is bound to %s: load it (%s), then `journalctl -k` says whether it probed",
                where,
                load);
}

/* Safe Mode: no DDP package, so no RDMA. The cause comes from ice's own message, and so does the fix:
 * an NVM too old for the kernel's package needs the NVM updated, not another package. */
static int check_nic_safe_mode(const NicPort *p, const char *where, PortCheck *ret) {
        IceDdpCause cause = ice_ddp_safe_mode_cause(p->facts->ddp_detail);
        _cleanup_(freep) char *seen = NULL;

        if (p->facts->ddp_source == ICE_DDP_SOURCE_DEVLINK && !p->facts->ddp_detail &&
            p->facts->ddp_error < 0) {
                /* The sandbox hides the log that says why: say so, and who can read it. */
                if (asprintf(
                            &seen,
                            "devlink reports no active DDP package: no fw.app.name; the kernel log, which says "
                            "why, could not be read (" ICE_DDP_KMSG ": %s): `sudo haloctl check --only "
                            "nic.driver` reads it",
                            strerror(-p->facts->ddp_error)) < 0)
                        seen = NULL;
        } else if (p->facts->ddp_source == ICE_DDP_SOURCE_DEVLINK && !p->facts->ddp_detail)
                seen = strdup("devlink reports no active DDP package: no fw.app.name");
        else if (
                asprintf(
                        &seen,
                        "%skernel log: \"%s\"",
                        p->facts->ddp_source == ICE_DDP_SOURCE_DEVLINK ? "devlink reports no active package; "
                                                                       : "",
                        strna(p->facts->ddp_detail)) < 0)
                seen = NULL;
        if (!seen)
                return -ENOMEM;
        return port_check_set(
                ret,
                CHECK_FAIL,
                "DDP package loaded",
                "Safe Mode",
                "ice runs %s in Safe Mode: %s (%s), so RDMA and the offloads are off; %s",
                where,
                ice_ddp_cause_to_string(cause),
                seen,
                ice_ddp_cause_fix(cause));
}

static int check_nic_driver_port(const NodeContext *c, const NicPort *p, PortCheck *ret) {
        return check_nic_driver_facts(node_context_nic(c)->driver, p->port, p->facts, ret);
}

int check_nic_driver_facts(const char *want, const FabricPort *port, const NicFacts *facts, PortCheck *ret) {
        const NicPort *p = &(const NicPort){ .port = port, .facts = facts };
        const char *where = p->port->ifname ?: p->port->pci;
        const char *driver = NULL;
        bool from_ethtool = false;

        if (p->facts->info_error >= 0 && !isempty(p->facts->info.driver)) {
                driver = p->facts->info.driver;
                from_ethtool = true;
        } else if (p->facts->devlink_error >= 0 && !isempty(p->facts->devlink.driver))
                driver = p->facts->devlink.driver;
        else if (p->facts->device && p->facts->device->driver)
                driver = p->facts->device->driver;

        if (!where)
                return port_check_set(
                        ret,
                        CHECK_SKIP,
                        want,
                        NULL,
                        "no fabric NIC found for link %s (see nic.pci)",
                        p->port->link);
        if (!driver) {
                if (p->port->ifname && p->facts->info_error < 0 && p->facts->info_error != -ENOMEDIUM)
                        return port_check_set(
                                ret,
                                CHECK_FAIL,
                                want,
                                NULL,
                                "cannot read the driver of %s (ETHTOOL_GDRVINFO): %s",
                                p->port->ifname,
                                strerror(-p->facts->info_error));
                if (p->facts->device_error == -ELIBACC || p->facts->device_error == -ELIBBAD)
                        return port_check_set(
                                ret,
                                CHECK_SKIP,
                                want,
                                NULL,
                                "cannot tell the driver of %s without libpci (see nic.pci)",
                                where);
                return check_nic_driver_unbound(want, p, where, ret);
        }
        if (want && !streq(want, driver))
                return port_check_set(
                        ret,
                        CHECK_FAIL,
                        want,
                        driver,
                        "%s is driven by %s, not %s (nic.driver): unbind %s and load %s, or fix nic.driver",
                        where,
                        driver,
                        want,
                        driver,
                        want);
        if (p->facts->ddp == ICE_DDP_SAFE_MODE)
                return check_nic_safe_mode(p, where, ret);
        if (nic_family_from_driver(driver) == NIC_FAMILY_E810 && p->facts->ddp_error < 0) {
                _cleanup_(freep) char *devlink = NULL;

                /* Neither source said: devlink could not be asked or does not describe the package. */
                if (p->facts->devlink_error != -ENOMEDIUM &&
                    asprintf(
                            &devlink,
                            ", and devlink could not tell (%s)",
                            p->facts->devlink_error < 0 ? devlink_strerror(p->facts->devlink_error)
                                                        : "its info names no package") < 0)
                        return -ENOMEM;
                return port_check_set(
                        ret,
                        CHECK_SKIP,
                        want,
                        driver,
                        "%s drives %s, but could not look at the kernel log (" ICE_DDP_KMSG
                        ": %s), which says whether ice runs it in Safe Mode (no DDP package, no RDMA)%s: "
                        "`sudo haloctl check --only nic.driver` reads it",
                        driver,
                        where,
                        strerror(-p->facts->ddp_error),
                        strempty(devlink));
        }
        if (p->facts->ddp == ICE_DDP_LOADED)
                return port_check_set(
                        ret,
                        CHECK_PASS,
                        want,
                        driver,
                        "%s%s%s drives %s, DDP package %s (%s)",
                        driver,
                        from_ethtool && !isempty(p->facts->info.version) ? " " : "",
                        from_ethtool ? p->facts->info.version : "",
                        where,
                        p->facts->ddp_package ?: "loaded",
                        ice_ddp_source_to_string(p->facts->ddp_source));
        if (from_ethtool && !isempty(p->facts->info.version))
                return port_check_set(
                        ret, CHECK_PASS, want, driver, "%s %s drives %s", driver, p->facts->info.version, where);
        return port_check_set(ret, CHECK_PASS, want, driver, "%s drives %s", driver, where);
}

static int check_nic_firmware_port(const NodeContext *c, const NicPort *p, PortCheck *ret) {
        const char *min = node_context_nic(c)->firmware_min;
        int r;

        if (!p->port->pci && !p->port->ifname)
                return port_check_set(
                        ret, CHECK_SKIP, min, NULL, "no fabric NIC found for link %s (see nic.pci)", p->port->link);

        r = check_nic_firmware_facts(p->port->ifname, p->port->pci, p->facts, min, ret);
        if (r >= 0 || r == -ENOMEM)
                return r;
        if (!p->port->ifname)
                return port_check_set(ret, CHECK_FAIL, min, NULL, "%s", p->port->problem);
        if (r == -ENOMEDIUM)
                return port_check_set(
                        ret,
                        CHECK_SKIP,
                        min,
                        NULL,
                        "the firmware version comes from the running kernel (devlink, ETHTOOL_GDRVINFO), "
                        "which does not describe the tree given with --root");
        return port_check_set(
                ret,
                CHECK_FAIL,
                min,
                NULL,
                "cannot read the firmware version of %s (devlink: %s; ETHTOOL_GDRVINFO: %s)",
                p->port->ifname,
                devlink_strerror(p->facts->devlink_error),
                strerror(-r));
}

static int check_nic_roce_port(const NodeContext *c, const NicPort *p, PortCheck *ret) {
        const char *driver = nic_facts_driver(p->facts);

        if (!p->port->pci)
                return port_check_set(
                        ret,
                        CHECK_SKIP,
                        "RoCE",
                        NULL,
                        "no fabric NIC found for link %s (see nic.pci)",
                        p->port->link);
        return check_nic_roce_evaluate(
                p->port->pci,
                nic_family_from_driver(driver),
                driver,
                &p->facts->roce,
                p->facts->roce_error,
                &p->facts->iwarp,
                p->facts->iwarp_error,
                ret);
}

/* The NIC checks in the order they are reported: each id with what judges it on one port. */
static const struct {
        const char *id;
        int (*check_port)(const NodeContext *c, const NicPort *p, PortCheck *ret);
} nic_checks[] = {
        { "nic.pci", check_nic_pci_port },           { "nic.pcie", check_nic_pcie_port },
        { "nic.speed", check_nic_speed_port },       { "nic.driver", check_nic_driver_port },
        { "nic.firmware", check_nic_firmware_port }, { "nic.roce", check_nic_roce_port },
};

static int add_skips(CheckList *out, const char *reason) {
        for (size_t i = 0; i < ELEMENTSOF(nic_checks); i++) {
                int r = check_list_add(out, nic_checks[i].id, CHECK_SKIP, NULL, NULL, "%s", reason);
                if (r < 0)
                        return r;
        }
        return 0;
}

int check_nic(const NodeContext *c, Snapshot *s, CheckList *out) {
        _cleanup_(snapshot_done) Snapshot own = {};
        _cleanup_(freep) NicPort *nics = NULL;
        int r;

        if (!node_context_nic(c)->present) {
                _cleanup_(freep) char *reason = NULL;

                if (!c->node)
                        return add_skips(out, "the profile has no nic: section");
                if (asprintf(
                            &reason,
                            "the profile has no nic: section, nor has node %s one of its own",
                            c->node->name) < 0)
                        return -ENOMEM;
                return add_skips(out, reason);
        }
        if (!HAVE_LIBPCI)
                return add_skips(
                        out,
                        "halod was built without libpci: rebuild it with libpci (pciutils) to check the NIC");

        s = snapshot_or_own(s, &own, c);
        r = snapshot_read(s, SNAPSHOT_NICS);
        if (r < 0)
                return r;
        if (s->n_ports == 0)
                return add_skips(out, "the profile names no links, so there is no fabric NIC to check");

        nics = calloc(s->n_ports, sizeof(NicPort));
        if (!nics)
                return -ENOMEM;
        for (size_t i = 0; i < s->n_ports; i++)
                nics[i] = (NicPort){ .port = &s->ports[i], .facts = &s->nics[i] };

        for (size_t k = 0; k < ELEMENTSOF(nic_checks) && r >= 0; k++) {
                PortCheck *results = calloc(s->n_ports, sizeof(PortCheck));

                if (!results)
                        return -ENOMEM;
                for (size_t i = 0; i < s->n_ports && r >= 0; i++)
                        r = nic_checks[k].check_port(c, &nics[i], &results[i]);
                if (r >= 0)
                        r = check_list_add_ports(out, nic_checks[k].id, s->ports, results, s->n_ports);
                port_checks_free(results, s->n_ports);
        }
        return r;
}
