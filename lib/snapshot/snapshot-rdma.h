/* SPDX-License-Identifier: MIT */
/* The snapshot's RDMA part, each port's RDMA device, port and GID table (libibverbs on the running
 * system, sysfs below any other host root: rdma/rdma-sysfs-read.h), and its MTU
 * part, each port's netdev MTU (the kernel's link dump, or sysfs): read once per verify
 * for the rdma.* checks, the peer round, the environment, the CDI spec and the metrics. */
#pragma once

#include "basic/rdma-mtu.h"
#include "nic/ice-ddp.h"
#include "rdma/rdma.h"
#include "snapshot/snapshot.h"

/* One port's RDMA device. */
typedef struct SnapshotRdma {
        RdmaDevice *device;       /* open (libibverbs): rdma_device_find_gid() looks up its live GID table;
                                   * read from sysfs (a host tree): no context; NULL: error */
        int error;                /* rdma_device_find()'s errno: -ENODEV (also for a port with neither netdev
                                   * nor PCI device), -ENOSYS, -EOPNOTSUPP, -ELIBACC, -ELIBBAD, ... */
        RoceMtuDriver mtu_driver; /* the MTU rule the device follows (basic/rdma-mtu.h), from sysfs */
        char *library_error;      /* with -ELIBACC or -ELIBBAD: why libibverbs could not be loaded, and what
                                   * to install (rdma_library_load()'s message; NULL: it gave none) */
        /* The entry of the profile's rdma.gid type for the port's IPv4 address, looked up in the device's
         * live table (rdma_device_find_gid()); gid_error -ENOMEDIUM: not asked (no device, no address, no
         * rdma: section). */
        RdmaGid gid;
        int gid_error;
        /* For an E810 port without an RDMA device, with the NIC facts read first: ice's DDP state
         * (ice_ddp_state_read(): devlink, else the kernel log), which says whether ice runs it in Safe
         * Mode; ddp_error: its errno (-ENOMEDIUM: not asked). */
        IceDdpState ddp;
        IceDdpSource ddp_source;
        char *ddp_detail;
        int ddp_error;
} SnapshotRdma;

/* Read and forgotten by snapshot_read() and snapshot_forget(). */
int snapshot_read_rdma(Snapshot *s);
void snapshot_forget_rdma(Snapshot *s);
int snapshot_read_mtu(Snapshot *s);
void snapshot_forget_mtu(Snapshot *s);

/* Port i's RDMA device, or NULL with *ret_error (may be NULL) saying why; SNAPSHOT_RDMA must have
 * been read. */
RdmaDevice *snapshot_rdma_device(const Snapshot *s, size_t i, int *ret_error);
/* The netdev MTU of port i; 0 when not known (no netdev, the part not read). */
unsigned snapshot_port_mtu(const Snapshot *s, size_t i) _pure_;
/* The port of the link named link ("rdma0"); -ENOENT when none (SNAPSHOT_PORTS not read, or no such
 * link). */
int snapshot_port_by_link(const Snapshot *s, const char *link, size_t *ret);
