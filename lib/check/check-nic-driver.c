/* SPDX-License-Identifier: MIT */
/* nic.driver's decision from a port's NIC facts: the driver bound to the NIC against nic.driver, and
 * for ice whether it loaded its DDP package or runs in Safe Mode. */
#include <stdio.h>

#include "check/check-nic.h"
#include "nic/nic-family.h"

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

/* No driver named by any source: one that could not be asked, no libpci, or none bound. */
static int check_nic_driver_none(const char *want, const NicPort *p, const char *where, PortCheck *ret) {
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

/* ice drives it, and neither source said whether its DDP package loaded: devlink could not be asked
 * or does not describe the package, and the log could not be read. */
static int check_nic_ddp_unknown(
        const char *want, const char *driver, const NicPort *p, const char *where, PortCheck *ret) {
        _cleanup_(freep) char *devlink = NULL;

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
        if (!driver)
                return check_nic_driver_none(want, p, where, ret);
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
        if (nic_family_from_driver(driver) == NIC_FAMILY_E810 && p->facts->ddp_error < 0)
                return check_nic_ddp_unknown(want, driver, p, where, ret);
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
