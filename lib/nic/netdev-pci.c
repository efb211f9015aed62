/* SPDX-License-Identifier: MIT */
/* The PCI function of a netdev, from /sys/class/net/IF/device. */
#include <stdio.h>
#include <stdlib.h>

#include "nic/netdev-pci.h"

bool pci_address_is_valid(const char *s) {
        unsigned domain, bus, slot, function;
        int n = 0;

        return s && sscanf(s, "%4x:%2x:%2x.%1u%n", &domain, &bus, &slot, &function, &n) == 4 &&
                (size_t) n == strlen(s) && strlen(s) == 12 && function < 8;
}

/* The PCI device a virtio device hangs off: the parent directory of its device, as the kernel
 * resolves it. Returns 1 with *ret, 0 when the parent is no PCI device, <0 on failure. */
static int virtio_parent(const Host *h, const char *device, char **ret) {
        _cleanup_(freep) char *path = NULL, *up = NULL, *parent = NULL;
        const char *base;
        int r;

        if (asprintf(&path, "%s/..", device) < 0)
                return -ENOMEM;
        r = host_path(h, path, &up);
        if (r < 0)
                return r;
        parent = realpath(up, NULL);
        if (!parent && errno == ENOMEM)
                return -ENOMEM;
        base = parent ? strrchr(parent, '/') : NULL;
        if (!base || !pci_address_is_valid(base + 1))
                return 0;
        *ret = strdup(base + 1);
        return *ret ? 1 : -ENOMEM;
}

int netdev_pci_address(const Host *h, const char *ifname, char **ret_pci, char **ret_device, char **ret_bus) {
        _cleanup_(freep) char *device = NULL, *name = NULL, *path = NULL, *subsystem = NULL;
        int r;

        if (isempty(ifname) || strchr(ifname, '/'))
                return -EINVAL;
        if (asprintf(&device, "/sys/class/net/%s/device", ifname) < 0)
                return -ENOMEM;
        r = host_readlink_basename(h, device, &name);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return -ENODEV;
        if (pci_address_is_valid(name)) {
                *ret_pci = TAKE_PTR(name);
                return 0;
        }

        if (asprintf(&path, "%s/subsystem", device) < 0)
                return -ENOMEM;
        r = host_readlink_basename(h, path, &subsystem);
        if (r == -ENOMEM)
                return r;
        if (r >= 0 && streq(subsystem, "virtio")) {
                r = virtio_parent(h, device, ret_pci);
                if (r != 0)
                        return r < 0 ? r : 0;
        }
        if (ret_device)
                *ret_device = TAKE_PTR(name);
        if (ret_bus)
                *ret_bus = TAKE_PTR(subsystem);
        return -EXDEV;
}
