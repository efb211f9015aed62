/* SPDX-License-Identifier: MIT */
/* The NIC checks: each port's facts from the snapshot handed to the decisions (check-nic-pcie.c,
 * -speed.c, -driver.c, -firmware.c, -roce.c), nic.pci judged here. */
#include <stdio.h>

#include "basic/strv.h"
#include "check/check-nic.h"
#include "config.h"

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

/* No PCI device for the link: say whether devices with the right ids exist, so that either the
 * match is what is wrong, or the NIC is not there at all. */
static int no_pci_device(const NodeContext *c, const NicPort *p, const char *ids, PortCheck *ret) {
        const ProfileNic *nic = node_context_nic(c);
        char **found = p->snapshot->pci_ids_found;
        _cleanup_(freep) char *joined = NULL;

        if (nic->n_pci_ids == 0 || p->snapshot->pci_ids_found_error < 0)
                return port_check_set(ret, CHECK_FAIL, ids, "", "%s", p->port->problem);
        if (!found)
                return port_check_set(
                        ret,
                        CHECK_FAIL,
                        ids,
                        "",
                        "no PCI device with nic.pci-ids (%s) on this machine: is the NIC seated, "
                        "and its slot enabled in the BIOS? `lspci -nn` lists what the kernel sees",
                        ids);
        joined = strv_join(found, ", ");
        if (!joined)
                return -ENOMEM;
        return port_check_set(
                ret, CHECK_FAIL, ids, "", "%s (devices with nic.pci-ids are at %s)", p->port->problem, joined);
}

static int check_nic_pci_port(const NodeContext *c, const NicPort *p, PortCheck *ret) {
        const ProfileNic *nic = node_context_nic(c);
        _cleanup_(freep) char *ids = pci_ids_describe(nic);
        char actual[16];

        if (!ids)
                return -ENOMEM;
        if (!p->port->pci)
                return no_pci_device(c, p, ids, ret);
        if (p->facts->device_error == -ENODEV)
                return port_check_set(
                        ret,
                        CHECK_FAIL,
                        ids,
                        "",
                        "no PCI device at %s: `lspci -D` lists the devices the kernel sees",
                        p->port->pci);
        if (p->facts->device_error == -ELIBACC || p->facts->device_error == -ELIBBAD) {
                /* libpci is loaded on first use: say why it could not be, and what to install. */
                return port_check_set(
                        ret, CHECK_FAIL, ids, "", "%s", p->facts->libpci_error ?: "libpci.so.3 could not be loaded");
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

static int check_nic_pcie_port(const NodeContext *c, const NicPort *p, PortCheck *ret) {
        unsigned nic_gbit = 0;

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
        if (nic_gbit == 0 && p->port->ifname && p->facts->speed_error >= 0 && p->facts->speed_mbit > 0 &&
            p->facts->speed_mbit < 10000000)
                nic_gbit = p->facts->speed_mbit / 1000;
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

static int check_nic_driver_port(const NodeContext *c, const NicPort *p, PortCheck *ret) {
        return check_nic_driver_facts(node_context_nic(c)->driver, p->port, p->facts, ret);
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
                int r = check_list_skip(out, nic_checks[i].id, "%s", reason);
                if (r < 0)
                        return r;
        }
        return 0;
}

int check_nic(
        const NodeContext *c, const Snapshot *s, const CheckHistory *before, CheckHistory *after, CheckList *out) {
        _cleanup_(freep) NicPort *nics = NULL;
        int r = 0;

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

        if (!snapshot_has(s, SNAPSHOT_NICS))
                return 0; /* not selected: its caller did not read it */
        if (s->n_ports == 0)
                return add_skips(out, "the profile names no links, so there is no fabric NIC to check");

        nics = calloc(s->n_ports, sizeof(NicPort));
        if (!nics)
                return -ENOMEM;
        for (size_t i = 0; i < s->n_ports; i++)
                nics[i] = (NicPort){ .port = &s->ports[i], .facts = &s->nics[i], .snapshot = s };

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
