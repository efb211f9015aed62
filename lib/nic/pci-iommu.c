/* SPDX-License-Identifier: MIT */
/* A PCI device's IOMMU group type from sysfs. */
#include <stdio.h>

#include "nic/pci-iommu.h"

int pci_iommu_read(const Host *h, const char *pci, PciIommu *ret) {
        _cleanup_(freep) char *path = NULL, *device = NULL, *group = NULL;
        int r;

        *ret = (PciIommu){};
        if (asprintf(&path, IOMMU_TYPE_FORMAT, pci) < 0 ||
            asprintf(&device, "/sys/bus/pci/devices/%s", pci) < 0 ||
            asprintf(&group, "%s/iommu_group", device) < 0)
                return -ENOMEM;
        r = host_read_line(h, path, &ret->type);
        if (r == -ENOMEM)
                return r;
        if (r >= 0)
                return 0;
        ret->error = r;
        ret->no_group = r == -ENOENT && host_path_exists(h, device) && !host_path_exists(h, group);
        return 0;
}

void pci_iommu_done(PciIommu *p) {
        p->type = mfree(p->type);
}
