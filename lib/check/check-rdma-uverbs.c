/* SPDX-License-Identifier: MIT */
/* rdma.memlock's other half: the RDMA user-space devices exist and the workload may open them. */
#include <stdio.h>

#include "basic/etc-group.h"
#include "basic/strv.h"
#include "check/check-rdma.h"
#include "nic/nic-family.h"

int check_rdma_uverbs(const SnapshotHost *h, NicFamily family, char ***problems, char ***ok) {
        gid_t rdma_gid = 0;
        bool have_group;
        int r;

        r = h->etc_group ? etc_group_gid(h->etc_group, "rdma", &rdma_gid) : -ENOENT;
        if (r == -ENOMEM)
                return r;
        have_group = r >= 0;

        for (size_t i = 0; i < h->uverbs.n; i++) {
                const DeviceNode *n = &h->uverbs.nodes[i];

                if (n->error < 0) {
                        if (strv_extendf(problems, "cannot stat %s: %s", n->path, strerror(-n->error)) < 0)
                                return -ENOMEM;
                        continue;
                }
                if ((n->mode & 0006) == 0006) {
                        if (strv_extendf(ok, "%s usable by everyone", n->path) < 0)
                                return -ENOMEM;
                } else if (have_group && n->gid == rdma_gid && (n->mode & 0060) == 0060) {
                        if (strv_extendf(ok, "%s usable by group rdma", n->path) < 0)
                                return -ENOMEM;
                } else if (
                        strv_extendf(
                                problems,
                                "%s (mode %04o, gid %u) is not read-writable by group rdma: install rdma-core's "
                                "udev rules or make it rdma:0660",
                                n->path,
                                (unsigned) (n->mode & 07777),
                                (unsigned) n->gid) < 0)
                        return -ENOMEM;
        }
        if (h->uverbs.n == 0) {
                /* The module of the fabric NIC; when the caller does not know it, of the NIC the host
                 * has (the snapshot's scan of the PCI bus), or of every family when that is unclear. */
                _cleanup_(freep) char *load = nic_family_modprobe(
                        family != NIC_FAMILY_UNKNOWN ? family : h->nic_family, NIC_MODULE_RDMA);

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
