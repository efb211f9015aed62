/* SPDX-License-Identifier: MIT */
/* The "nic." checks: nic.pci, nic.pcie, nic.speed, nic.driver, nic.firmware, nic.roce. */
#pragma once

#include "check/check-ports.h"
#include "check/checks.h"
#include "nic/devlink.h"
#include "nic/ethtool.h"
#include "nic/ice-ddp.h"
#include "nic/nic-facts.h"
#include "nic/nic-family.h"
#include "nic/pci.h"

/* The NIC checks from the snapshot's NIC facts (read into s unless it has them; NULL: a snapshot of
 * its own). */
int check_nic(
        const NodeContext *c, const Snapshot *s, const CheckHistory *before, CheckHistory *after, CheckList *out);

/* One port as the nic. checks see it: where it is, and its facts from the snapshot. */
typedef struct NicPort {
        const FabricPort *port;
        const NicFacts *facts;
        const Snapshot *snapshot; /* its other facts (Snapshot.pci_ids_found); NULL where none are read */
} NicPort;

/* The pure decisions, exported for the tests, which feed them real-world values. */

/* nic.pcie from a device's link; nic_gbit is the NIC's line rate (0: unknown). */
int check_nic_pcie_evaluate(const PciDevice *d, unsigned pcie_min_width, unsigned nic_gbit, PortCheck *ret);

/* nic.driver of one port from its NIC facts and nic.driver (want, may be NULL): the driver, and for
 * ice whether it runs with its DDP package, and which source said so (devlink, the kernel log). */
int check_nic_driver_facts(const char *want, const FabricPort *port, const NicFacts *facts, PortCheck *ret);

/* nic.firmware from what ETHTOOL_GDRVINFO said (driver, fw_version) and the profile's minimum; the
 * summary names the source: "(ethtool)". */
int check_nic_firmware_evaluate(
        const char *ifname, const char *driver, const char *fw_version, const char *firmware_min, PortCheck *ret);
/* nic.firmware from a port's NIC facts: devlink's running version when it reports one, else
 * ETHTOOL_GDRVINFO's fw_version. ifname may be NULL (a PCI device without a netdev). Returns 0 with
 * ret set, or, when neither source could be read, -ENODATA (no netdev to ask ETHTOOL_GDRVINFO) or
 * the ioctl's errno (facts->info_error; -ENOMEDIUM: not asked), for the caller to explain. */
int check_nic_firmware_facts(
        const char *ifname, const char *pci, const NicFacts *facts, const char *firmware_min, PortCheck *ret);

/* nic.speed of the profile's link link_name from what ETHTOOL_GLINKSETTINGS said of ifname (link, or
 * link_error: -ENOMEDIUM when not asked, as below --root) against speed_min_mbit (0: none; then against
 * nic_gbit, the NIC's line rate, 0 when unknown). */
int check_nic_speed_evaluate(
        const char *link_name,
        const char *ifname,
        const EthtoolLinkSettings *link,
        int link_error,
        unsigned speed_min_mbit,
        unsigned nic_gbit,
        PortCheck *ret);

/* The devlink commands that switch RoCE on for the NIC at pci in that mode: iWARP off first where it is on
 * (ice runs one of the two, ice_devlink.c), then enable_roce; a driverinit value takes effect at a
 * reload. nic.roce and rdma.device (an iWARP device) say the same. */
int check_nic_roce_fix(const char *pci, enum devlink_param_cmode cmode, bool iwarp_on, char **ret);

/* nic.roce of the NIC at pci of the given family from devlink's enable_roce and (E810) enable_iwarp
 * parameters and their errors (-ENOMEDIUM: not asked, as below --root). */
int check_nic_roce_evaluate(
        const char *pci,
        NicFamily family,
        const char *driver,
        const DevlinkParam *roce,
        int roce_error,
        const DevlinkParam *iwarp,
        int iwarp_error,
        PortCheck *ret);
