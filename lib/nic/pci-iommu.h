/* SPDX-License-Identifier: MIT */
/* How the IOMMU treats a PCI device's DMA, as sysfs says (drivers/iommu/iommu.c: the group's "type"
 * attribute, since Linux 5.11), for kernel.iommu. */
#pragma once

#include <stdbool.h>

#include "basic/host.h"

/* Where the kernel says how the IOMMU treats a device's group. */
#define IOMMU_TYPE_FORMAT "/sys/bus/pci/devices/%s/iommu_group/type"

typedef struct PciIommu {
        char *type;    /* "identity", "DMA", "DMA-FQ", ...; NULL: error says why */
        int error;     /* the errno of reading the type */
        bool no_group; /* the device is there and has no iommu_group link: no IOMMU in use */
} PciIommu;

/* Reads the IOMMU type of PCI device pci below the host root into ret. Returns 0 (what could not be
 * read is in ret) or -ENOMEM. */
int pci_iommu_read(const Host *h, const char *pci, PciIommu *ret);
void pci_iommu_done(PciIommu *p);
