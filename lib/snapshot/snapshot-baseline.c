/* SPDX-License-Identifier: MIT */
/* SNAPSHOT_RDMA_BASELINE: the RDMA baseline file below the host root, and the state of a port that a
 * measurement is recorded with. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdma/rdma-baseline-file.h"
#include "snapshot/snapshot-baseline.h"
#include "snapshot/snapshot-rdma.h"

int snapshot_read_rdma_baseline(Snapshot *s) {
        _cleanup_(freep) SnapshotRdmaBaseline *b = NULL;

        b = calloc(1, sizeof(SnapshotRdmaBaseline));
        if (!b)
                return -ENOMEM;
        b->error = rdma_baseline_read(s->context->host, &b->file, &b->message);
        if (b->error == -ENOMEM)
                return -ENOMEM;
        s->rdma_baseline = TAKE_PTR(b);
        return 0;
}

void snapshot_forget_rdma_baseline(Snapshot *s) {
        if (!s->rdma_baseline)
                return;
        rdma_baseline_file_done(&s->rdma_baseline->file);
        free(s->rdma_baseline->message);
        s->rdma_baseline = mfree(s->rdma_baseline);
}

void snapshot_rdma_node_state(const Snapshot *s, size_t i, RdmaNodeState *ret) {
        const NicFacts *f = (s->parts & SNAPSHOT_NICS) && i < s->n_ports ? &s->nics[i] : NULL;

        *ret = (RdmaNodeState){ .mtu = snapshot_port_mtu(s, i) };
        if (!f)
                return;
        if (f->info_error >= 0)
                (void) snprintf(ret->firmware, sizeof(ret->firmware), "%s", f->info.fw_version);
        if (f->device && f->device->link_source != PCIE_LINK_UNKNOWN) {
                ret->pcie_speed_mts = f->device->current.speed_mts;
                ret->pcie_width = f->device->current.width;
        }
        if (f->speed_error >= 0)
                ret->port_mbit = f->speed_mbit;
}
