/* SPDX-License-Identifier: MIT */
/* The RDMA devices as sysfs shows them, without libibverbs: the one on a PCI device, and the uverbs
 * character device through which a process (or a container) reaches it. */
#pragma once

#include "basic/host.h"

/* The RDMA device (/sys/class/infiniband/DEV) whose device is the PCI device pci ("0000:c2:00.0") or
 * sits below it (irdma hangs off ice's auxiliary device ice.roce.N, not off the PCI function).
 * -ENODEV when none does, -ENOSYS when there is no /sys/class/infiniband at all. */
int rdma_sysfs_device_of_pci(const Host *h, const char *pci, char **ret);

/* The uverbs device of the RDMA device ibdev ("uverbs0": its /sys/class/infiniband_verbs/uverbsN/ibdev
 * names it); its node is /dev/infiniband/uverbsN. -ENODEV when none names it (ib_uverbs not loaded),
 * -ENOSYS when there is no /sys/class/infiniband_verbs. */
int rdma_sysfs_uverbs_of_device(const Host *h, const char *ibdev, char **ret);
