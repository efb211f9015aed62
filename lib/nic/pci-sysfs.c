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

int pci_sysfs_aspm(const Host *h, const char *pci, int *ret) {
        static const struct {
                const char *name;
                int bit;
        } files[] = { { "l0s_aspm", PCIE_ASPM_L0S }, { "l1_aspm", PCIE_ASPM_L1 } };
        int aspm = 0, r = -ENOENT;

        for (size_t i = 0; i < ELEMENTSOF(files); i++) {
                _cleanup_(freep) char *path = NULL, *text = NULL;
                int q;

                if (asprintf(&path, "/sys/bus/pci/devices/%s/link/%s", pci, files[i].name) < 0)
                        return -ENOMEM;
                q = host_read_line(h, path, &text);
                if (q == -ENOMEM)
                        return q;
                if (q < 0)
                        continue;
                if (!streq(text, "0") && !streq(text, "1"))
                        return -EBADMSG;
                if (streq(text, "1"))
                        aspm |= files[i].bit;
                r = 0;
        }
        if (r >= 0)
                *ret = aspm;
        return r;
}
