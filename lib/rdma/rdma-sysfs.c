/* SPDX-License-Identifier: MIT */
/* Finds an RDMA device and its uverbs device through sysfs. */
#include <limits.h>
#include <stdlib.h>

#include "basic/host.h"
#include "basic/macro.h"
#include "basic/strv.h"
#include "rdma/rdma-sysfs.h"

/* Whether pci is one of the components of the resolved path p. */
static bool path_has_component(const char *p, const char *pci) {
        size_t l = strlen(pci);

        for (const char *s = p; (s = strstr(s, pci)); s += l)
                if (s > p && s[-1] == '/' && (s[l] == '/' || s[l] == '\0'))
                        return true;
        return false;
}

int rdma_sysfs_device_of_pci(const Host *h, const char *pci, char **ret) {
        _cleanup_(strv_freep) char **devices = NULL;
        int r;

        if (isempty(pci))
                return -ENODEV;
        r = host_list_directory(h, "/sys/class/infiniband", &devices);
        if (r == -ENOENT)
                return -ENOSYS;
        if (r < 0)
                return r;

        STRV_FOREACH(d, devices) {
                _cleanup_(freep) char *link = NULL, *path = NULL;
                char resolved[PATH_MAX];

                if (asprintf(&link, "/sys/class/infiniband/%s/device", *d) < 0)
                        return -ENOMEM;
                r = host_path(h, link, &path);
                if (r < 0)
                        return r;
                /* Resolved in full: below a fixture root the relative links stay inside the tree. */
                if (!realpath(path, resolved))
                        continue;
                if (path_has_component(resolved, pci)) {
                        *ret = strdup(*d);
                        return *ret ? 0 : -ENOMEM;
                }
        }
        return -ENODEV;
}

int rdma_sysfs_uverbs_of_device(const Host *h, const char *ibdev, char **ret) {
        _cleanup_(strv_freep) char **entries = NULL;
        int r;

        r = host_list_directory(h, "/sys/class/infiniband_verbs", &entries);
        if (r == -ENOENT)
                return -ENOSYS;
        if (r < 0)
                return r;

        STRV_FOREACH(e, entries) {
                _cleanup_(freep) char *attribute = NULL, *name = NULL;

                /* Beside the uverbsN devices the class holds abi_version. */
                if (!startswith(*e, "uverbs"))
                        continue;
                if (asprintf(&attribute, "/sys/class/infiniband_verbs/%s/ibdev", *e) < 0)
                        return -ENOMEM;
                r = host_read_line(h, attribute, &name);
                if (r == -ENOMEM)
                        return r;
                if (r >= 0 && streq(name, ibdev)) {
                        *ret = strdup(*e);
                        return *ret ? 0 : -ENOMEM;
                }
        }
        return -ENODEV;
}
