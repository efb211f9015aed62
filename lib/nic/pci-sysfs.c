/* SPDX-License-Identifier: MIT */
/* Reading a PCI device's ids and a netdev's numeric attributes from sysfs. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "nic/pci-sysfs.h"

int netdev_read_uint(const Host *h, const char *ifname, const char *attribute, unsigned *ret) {
        _cleanup_(freep) char *path = NULL, *s = NULL;
        unsigned long v;
        char *end;
        int r;

        if (asprintf(&path, "/sys/class/net/%s/%s", ifname, attribute) < 0)
                return -ENOMEM;
        r = host_read_line(h, path, &s);
        if (r < 0)
                return r;
        errno = 0;
        v = strtoul(s, &end, 10);
        if (errno != 0 || end == s || *end != '\0' || s[0] == '-' || v > UINT_MAX)
                return -EBADMSG;
        *ret = (unsigned) v;
        return 0;
}

/* sysfs writes the ids as "0x8086". */
static int read_hex_attribute(const Host *h, const char *dir, const char *name, unsigned *ret) {
        _cleanup_(freep) char *path = NULL, *s = NULL;
        unsigned long v;
        char *end;
        int r;

        if (asprintf(&path, "%s/%s", dir, name) < 0)
                return -ENOMEM;
        r = host_read_line(h, path, &s);
        if (r < 0)
                return r;
        errno = 0;
        v = strtoul(s, &end, 16);
        if (errno != 0 || end == s || *end != '\0' || v > 0xffff)
                return -EBADMSG;
        *ret = (unsigned) v;
        return 0;
}

int pci_sysfs_id_at(const Host *h, const char *dir, PciId *ret) {
        unsigned vendor, device;
        int r;

        r = read_hex_attribute(h, dir, "vendor", &vendor);
        if (r < 0)
                return r;
        r = read_hex_attribute(h, dir, "device", &device);
        if (r < 0)
                return r;
        *ret = (PciId){ .vendor = vendor, .device = device };
        return 0;
}

int pci_sysfs_id(const Host *h, const char *pci, PciId *ret) {
        _cleanup_(freep) char *dir = NULL;

        if (asprintf(&dir, "/sys/bus/pci/devices/%s", pci) < 0)
                return -ENOMEM;
        return pci_sysfs_id_at(h, dir, ret);
}
