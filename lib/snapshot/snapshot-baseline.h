/* SPDX-License-Identifier: MIT */
/* The snapshot's RDMA baseline part (SNAPSHOT_RDMA_BASELINE): the file haloctl probe keeps
 * (rdma/rdma-baseline.h), read below the host root once, with why it could not be; and each port's
 * state as a measurement records it, from the NIC facts and MTU parts. */
#pragma once

#include "rdma/rdma-baseline.h"
#include "snapshot/snapshot.h"

typedef struct SnapshotRdmaBaseline {
        RdmaBaselineFile file; /* valid when error is 0 */
        int error;             /* -ENOENT: nothing recorded yet; else rdma_baseline_read()'s errno */
        char *message;         /* why, for the person at the terminal: with an error but -ENOENT */
} SnapshotRdmaBaseline;

/* Read and forgotten by snapshot_read() and snapshot_forget(). */
int snapshot_read_rdma_baseline(Snapshot *s);
void snapshot_forget_rdma_baseline(Snapshot *s);

/* Port i's state now, as a measurement records it: the firmware, PCIe link and port speed from the NIC
 * facts, the MTU from the MTU part; what was not read or could not be is unknown (0, ""). */
void snapshot_rdma_node_state(const Snapshot *s, size_t i, RdmaNodeState *ret);
