/* SPDX-License-Identifier: MIT */
/* The "nic." checks: nic.pci, nic.pcie, nic.driver, nic.firmware. */
#pragma once

#include "check/check-ports.h"
#include "check/checks.h"
#include "nic/ice-ddp.h"
#include "nic/nic-family.h"
#include "nic/pci.h"

/* The NIC checks from the snapshot's NIC facts (read into s unless it has them; NULL: a snapshot of
 * its own). */
int check_nic(const NodeContext *c, Snapshot *s, CheckList *out);

/* The pure decisions, exported for the tests, which feed them real-world values. */

/* nic.pcie from a device's link; nic_gbit is the NIC's line rate (0: unknown). */
int check_nic_pcie_evaluate(const PciDevice *d, unsigned pcie_min_width, unsigned nic_gbit, PortCheck *ret);

/* nic.firmware from what ETHTOOL_GDRVINFO said (driver, fw_version) and the profile's minimum. */
int check_nic_firmware_evaluate(
        const char *ifname, const char *driver, const char *fw_version, const char *firmware_min, PortCheck *ret);
