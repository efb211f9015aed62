/* SPDX-License-Identifier: MIT */
/* The PCI function a netdev belongs to, from sysfs below the host root: the one reader of
 * /sys/class/net/IF/device, for the fabric ports and the RDMA device lookup alike. */
#pragma once

#include <stdbool.h>

#include "basic/host.h"
#include "basic/macro.h"

/* "0000:c2:00.0": domain, bus, slot and function as the kernel names a PCI device. */
bool pci_address_is_valid(const char *s) _pure_;

/* The PCI function of ifname: its device, or for a virtio NIC the PCI device the virtio device hangs
 * off (…/0000:00:03.0/virtio2/net/eth0). Returns 0 with *ret_pci; -ENODEV when the netdev has no
 * device (a virtual interface, or no such netdev); -EXDEV when its device is not a PCI function, with
 * *ret_device (its device's name, "virtio2") and *ret_bus (its bus, "virtio"; NULL when not known)
 * when those are not NULL; -EINVAL for a name that is no netdev's; -ENOMEM. */
int netdev_pci_address(const Host *h, const char *ifname, char **ret_pci, char **ret_device, char **ret_bus);
