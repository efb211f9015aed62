/* SPDX-License-Identifier: MIT */
/* What sysfs below the host root says of a PCI device and of a netdev: shared by the port resolution
 * (snapshot/fabric.c) and the NIC and RDMA checks. */
#pragma once

#include <stdint.h>

#include "basic/host.h"
#include "basic/pci-id.h"

/* The vendor and device id sysfs shows for the PCI device pci ("0000:c2:00.0"). */
int pci_sysfs_id(const Host *h, const char *pci, PciId *ret);
/* The same, of a device directory ("/sys/class/net/X/device", "/sys/bus/pci/devices/A"). */
int pci_sysfs_id_at(const Host *h, const char *dir, PciId *ret);
/* The Link Control register's ASPM Control field, as pci_sysfs_aspm() and libpci (PciDevice.aspm_control)
 * give it. */
#define PCIE_ASPM_L0S 0x1
#define PCIE_ASPM_L1 0x2

/* The kernel's own view of the ASPM states enabled on pci's link, when it manages ASPM (not with
 * pcie_aspm=off, which removes the files): link/l0s_aspm and link/l1_aspm, readable by anyone.
 * -ENOENT when neither exists, -EBADMSG when one holds neither 0 nor 1. */
int pci_sysfs_aspm(const Host *h, const char *pci, int *ret);
/* Reads a decimal sysfs attribute of a netdev ("mtu", "ifindex", "speed"). */
int netdev_read_uint(const Host *h, const char *ifname, const char *attribute, unsigned *ret);
