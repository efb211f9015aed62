/* SPDX-License-Identifier: MIT */
/* Reading the snapshot's RDMA devices (libibverbs on the running system, sysfs in a host tree), and
 * the ports' netdev MTUs: the kernel's link dump when the snapshot holds it, sysfs below the host root
 * otherwise (--root, the tests' fixture trees). */
#include <stdio.h>
#include <stdlib.h>

#include "nic/nic-family.h"
#include "rdma/rdma-sysfs-read.h"
#include "snapshot/snapshot-rdma.h"

void snapshot_forget_rdma(Snapshot *s) {
        for (size_t i = 0; s->rdma && i < s->n_ports; i++) {
                rdma_device_free(s->rdma[i].device);
                free(s->rdma[i].library_error);
                free(s->rdma[i].ddp_detail);
        }
        s->rdma = mfree(s->rdma);
        s->parts &= ~SNAPSHOT_RDMA;
}

/* The MTU rule the RDMA device follows, from what the kernel says of it: rxe's own sysfs attribute
 * "parent" (rxe_verbs.c), else the driver of the device it sits on (mlx5_core; irdma, bound to ice's
 * auxiliary device), else its name (mlx5_N, irdmaN). */
static RoceMtuDriver read_mtu_driver(const Host *h, const char *device) {
        _cleanup_(freep) char *parent = NULL, *link = NULL, *driver = NULL, *name = NULL;
        RoceMtuDriver d;

        if (asprintf(&parent, "/sys/class/infiniband/%s/parent", device) >= 0 &&
            host_read_line(h, parent, &name) >= 0)
                return ROCE_MTU_DRIVER_RXE;
        if (asprintf(&link, "/sys/class/infiniband/%s/device/driver", device) >= 0 &&
            host_readlink_basename(h, link, &driver) >= 0) {
                d = roce_mtu_driver_from_name(driver);
                if (d != ROCE_MTU_DRIVER_UNKNOWN)
                        return d;
        }
        switch (nic_family_from_rdma_device(device)) {
        case NIC_FAMILY_E810:
                return ROCE_MTU_DRIVER_IRDMA;
        case NIC_FAMILY_CONNECTX:
                return ROCE_MTU_DRIVER_MLX5;
        default:
                return ROCE_MTU_DRIVER_UNKNOWN;
        }
}

/* The running system's devices through libibverbs, which opens them for the live GID lookups and the
 * probe; a host tree's (--root, a fixture, an sosreport) from its sysfs, as every other fact of a tree:
 * libibverbs would describe the running kernel instead. */
static int read_device(const Host *h, const FabricPort *p, RdmaDevice **ret) {
        if (host_is_running_system(h))
                return rdma_device_find(h, p->pci, p->ifindex, ret);
        return rdma_device_read_sysfs(h, p->pci, p->ifname, ret);
}

/* The port's GID entry for the profile's rdma.gid, as rdma.gid judges it. */
static int read_gid(const Snapshot *s, const FabricPort *p, SnapshotRdma *d) {
        const Profile *profile = s->context->profile;

        d->gid_error = -ENOMEDIUM;
        if (!d->device || d->device->node_type == RDMA_NODE_RNIC || !p->has_address || !profile ||
            !profile->rdma.present)
                return 0;
        d->gid_error = rdma_device_find_gid(d->device, profile->rdma.gid, p->address, &d->gid);
        if (d->gid_error > 0)
                d->gid_error = 0;
        return d->gid_error == -ENOMEM ? -ENOMEM : 0;
}

/* Why an E810 may have no RDMA device: only ice has a DDP package to miss, and only without a device
 * is it asked. */
static int read_ddp(const Snapshot *s, size_t i, SnapshotRdma *d) {
        const FabricPort *p = &s->ports[i];

        d->ddp_error = -ENOMEDIUM;
        if (d->device || !p->pci || !s->nics || nic_facts_family(&s->nics[i]) != NIC_FAMILY_E810)
                return 0;
        d->ddp_error = ice_ddp_state_read(s->context->host, p->pci, &d->ddp, &d->ddp_source, &d->ddp_detail);
        if (d->ddp_error > 0)
                d->ddp_error = 0;
        return d->ddp_error == -ENOMEM ? -ENOMEM : 0;
}

int snapshot_read_rdma(Snapshot *s) {
        s->rdma = calloc(s->n_ports ?: 1, sizeof(SnapshotRdma));
        if (!s->rdma)
                return -ENOMEM;
        for (size_t i = 0; i < s->n_ports; i++) {
                const FabricPort *p = &s->ports[i];
                SnapshotRdma *d = &s->rdma[i];

                d->error = -ENODEV;
                if (p->ifname || p->pci)
                        d->error = read_device(s->context->host, p, &d->device);
                if (d->error == -ENOMEM)
                        return -ENOMEM;
                if (d->error > 0)
                        d->error = 0;
                /* libibverbs is loaded on first use: why it could not be, for rdma.device to say. */
                if ((d->error == -ELIBACC || d->error == -ELIBBAD) &&
                    rdma_library_load(&d->library_error) == -ENOMEM)
                        return -ENOMEM;
                if (d->device)
                        d->mtu_driver = read_mtu_driver(s->context->host, d->device->name);
                if (read_gid(s, p, d) < 0 || read_ddp(s, i, d) < 0)
                        return -ENOMEM;
        }
        return 0;
}

void snapshot_forget_mtu(Snapshot *s) {
        s->mtu = mfree(s->mtu);
        s->parts &= ~SNAPSHOT_MTU;
}

int snapshot_read_mtu(Snapshot *s) {
        s->mtu = calloc(s->n_ports ?: 1, sizeof(unsigned));
        if (!s->mtu)
                return -ENOMEM;
        for (size_t i = 0; i < s->n_ports; i++) {
                const RtnlLink *l = snapshot_kernel_link(s, i);

                /* The kernel's link dump when the snapshot has made it (a verify's plan does); else,
                 * and below --root, sysfs says the same dev->mtu. */
                if (l)
                        s->mtu[i] = l->mtu;
                else if (
                        s->ports[i].ifname &&
                        netdev_read_uint(s->context->host, s->ports[i].ifname, "mtu", &s->mtu[i]) == -ENOMEM)
                        return -ENOMEM;
        }
        return 0;
}

RdmaDevice *snapshot_rdma_device(const Snapshot *s, size_t i, int *ret_error) {
        int error = -ENODEV;

        if ((s->parts & SNAPSHOT_RDMA) && i < s->n_ports) {
                error = s->rdma[i].error;
                if (s->rdma[i].device) {
                        if (ret_error)
                                *ret_error = 0;
                        return s->rdma[i].device;
                }
        }
        if (ret_error)
                *ret_error = error;
        return NULL;
}

unsigned snapshot_port_mtu(const Snapshot *s, size_t i) {
        if (!(s->parts & SNAPSHOT_MTU) || i >= s->n_ports)
                return 0;
        return s->mtu[i];
}

int snapshot_port_by_link(const Snapshot *s, const char *link, size_t *ret) {
        for (size_t i = 0; (s->parts & SNAPSHOT_PORTS) && link && i < s->n_ports; i++)
                if (streq(s->ports[i].link, link)) {
                        *ret = i;
                        return 0;
                }
        return -ENOENT;
}
