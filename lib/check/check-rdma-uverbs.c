/* SPDX-License-Identifier: MIT */
/* rdma.memlock's other half: the RDMA user-space devices exist and the workload may open them. */
#include <stdio.h>
#include <sys/stat.h>

#include "basic/etc-group.h"
#include "basic/strv.h"
#include "check/check-rdma.h"
#include "nic/nic-family.h"

int check_rdma_uverbs(const Host *h, const char *etc_group, NicFamily family, char ***problems, char ***ok) {
        _cleanup_(strv_freep) char **entries = NULL;
        gid_t rdma_gid = 0;
        bool have_group;
        unsigned count = 0;
        int r;

        r = host_list_directory(h, "/dev/infiniband", &entries);
        if (r == -ENOMEM)
                return r;
        r = etc_group ? etc_group_gid(etc_group, "rdma", &rdma_gid) : -ENOENT;
        if (r == -ENOMEM)
                return r;
        have_group = r >= 0;

        STRV_FOREACH(e, entries) {
                _cleanup_(freep) char *path = NULL, *full = NULL;
                struct stat st;

                if (!startswith(*e, "uverbs"))
                        continue;
                count++;
                if (asprintf(&path, "/dev/infiniband/%s", *e) < 0)
                        return -ENOMEM;
                r = host_path(h, path, &full);
                if (r < 0)
                        return r;
                if (stat(full, &st) < 0) {
                        if (strv_extendf(problems, "cannot stat %s: %m", path) < 0)
                                return -ENOMEM;
                        continue;
                }
                if ((st.st_mode & 0006) == 0006) {
                        if (strv_extendf(ok, "%s usable by everyone", path) < 0)
                                return -ENOMEM;
                } else if (have_group && st.st_gid == rdma_gid && (st.st_mode & 0060) == 0060) {
                        if (strv_extendf(ok, "%s usable by group rdma", path) < 0)
                                return -ENOMEM;
                } else if (
                        strv_extendf(
                                problems,
                                "%s (mode %04o, gid %u) is not read-writable by group rdma: install rdma-core's "
                                "udev rules or make it rdma:0660",
                                path,
                                (unsigned) (st.st_mode & 07777),
                                (unsigned) st.st_gid) < 0)
                        return -ENOMEM;
        }
        if (count == 0) {
                /* The module of the fabric NIC; when the caller does not know it, of the NIC the host
                 * has (a scan of the PCI bus), or of every family when that is unclear. */
                _cleanup_(freep) char *load = nic_family_modprobe(
                        family != NIC_FAMILY_UNKNOWN ? family : nic_family_on_host(h), NIC_MODULE_RDMA);

                if (!load ||
                    strv_extendf(
                            problems,
                            "no /dev/infiniband/uverbs* device: no RDMA driver is loaded (%s), "
                            "or rdma-core's udev rules are missing",
                            load) < 0)
                        return -ENOMEM;
        }
        return 0;
}
