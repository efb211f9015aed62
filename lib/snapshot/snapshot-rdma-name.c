/* SPDX-License-Identifier: MIT */
/* Each port's RDMA device by sysfs, found once per snapshot (snapshot-rdma-name.h). */
#include <stdlib.h>

#include "nic/netdev-pci.h"
#include "rdma/rdma-sysfs.h"
#include "snapshot/snapshot-rdma-name.h"

void snapshot_forget_rdma_names(Snapshot *s) {
        for (size_t i = 0; s->rdma_names && i < s->n_ports; i++)
                free(s->rdma_names[i].device);
        s->rdma_names = mfree(s->rdma_names);
}

static int find(const Snapshot *s, size_t i, SnapshotRdmaName *n) {
        const FabricPort *p = &s->ports[i];
        _cleanup_(freep) char *pci = NULL;
        int r;

        /* The located port's PCI function; else its netdev's. Without one, a software RDMA device (rxe)
         * can still sit on the netdev: found by its GID table. */
        if (!p->pci && p->ifname &&
            netdev_pci_address(s->context->host, p->ifname, &pci, NULL, NULL) == -ENOMEM)
                return -ENOMEM;
        r = rdma_sysfs_find_device(s->context->host, p->pci ?: pci, p->ifname, &n->device, &n->port);
        if (r == -ENOMEM)
                return r;
        n->error = r < 0 ? r : 0;
        n->found = true;
        return 0;
}

int snapshot_rdma_name(Snapshot *s, size_t i, const char **ret_device, unsigned *ret_port) {
        SnapshotRdmaName *n;
        int r;

        if (i >= s->n_ports)
                return -EINVAL;
        if (!s->rdma_names) {
                s->rdma_names = calloc(s->n_ports ?: 1, sizeof(SnapshotRdmaName));
                if (!s->rdma_names)
                        return -ENOMEM;
        }
        n = &s->rdma_names[i];
        if (!n->found) {
                r = find(s, i, n);
                if (r < 0)
                        return r;
        }
        if (n->error < 0)
                return n->error;
        *ret_device = n->device;
        *ret_port = n->port;
        return 0;
}
