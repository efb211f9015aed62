/* SPDX-License-Identifier: MIT */
/* Each port's RDMA device and port as sysfs names them (rdma/rdma-sysfs.h's rdma_sysfs_find_device()),
 * found once per snapshot for the parts that read the device's sysfs files: the host's qos state, the
 * counters and the transport sample. Each used to list /sys/class/infiniband again for the same port. */
#pragma once

#include "snapshot/snapshot.h"

struct SnapshotRdmaName {
        bool found;   /* looked for */
        int error;    /* 0, or rdma_sysfs_find_device()'s: -ENODEV when the port has no RDMA device */
        char *device; /* "rxe0", "irdma0"; NULL unless error is 0 */
        unsigned port;
};

/* Port i's RDMA device (borrowed: it lives as long as the snapshot's SNAPSHOT_LINKS) and port. Returns
 * 0, rdma_sysfs_find_device()'s error (-ENODEV: none), or -ENOMEM. */
int snapshot_rdma_name(Snapshot *s, size_t i, const char **ret_device, unsigned *ret_port);
/* With SNAPSHOT_LINKS: rxe's device is found by the GID table, which follows the addresses. */
void snapshot_forget_rdma_names(Snapshot *s);
