/* SPDX-License-Identifier: MIT */
/* The GID index of each port's address as a metric: the value NCCL_IB_GID_INDEX must have, so that an
 * alert sees it move (addresses coming and going renumber the GID table) before a workload started
 * with the old one falls back to TCP. */
#include <inttypes.h>

#include "export/metrics.h"
#include "rdma/rdma.h"
#include "snapshot/rdma-node.h"
#include "snapshot/snapshot-rdma.h"

void metrics_gids_free(MetricsGid *g, size_t n) {
        for (size_t i = 0; g && i < n; i++) {
                free(g[i].link);
                free(g[i].device);
        }
        free(g);
}

/* Port i's entry of type in its device's live GID table; 0 when there is none to export. */
static int find_gid(const Snapshot *s, size_t i, RdmaGidType type, MetricsGid *ret) {
        const FabricPort *port = &s->ports[i];
        RdmaDevice *dev;
        RdmaGid gid;
        int r;

        /* No device, no libibverbs, a table that keeps moving: rdma.device and rdma.gid say why. */
        dev = snapshot_rdma_device(s, i, /* ret_error= */ NULL);
        if (!port->has_address || !dev)
                return 0;
        r = rdma_device_find_gid(dev, type, port->address, &gid);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return 0;

        ret->link = strdup(port->link);
        ret->device = strdup(dev->name);
        if (!ret->link || !ret->device)
                return -ENOMEM;
        ret->port = dev->port;
        ret->index = gid.index;
        return 1;
}

int metrics_gids_gather(const NodeContext *c, Snapshot *s, MetricsGid **ret, size_t *ret_n) {
        _cleanup_(snapshot_done) Snapshot own = {};
        RdmaGidType type = rdma_node_gid_type(c);
        MetricsGid *g = NULL;
        size_t n = 0;
        int r;

        s = snapshot_or_own(s, &own, c);
        r = snapshot_read(s, SNAPSHOT_RDMA);
        if (r < 0)
                return r;
        if (s->n_ports > 0) {
                g = calloc(s->n_ports, sizeof(MetricsGid));
                if (!g)
                        return -ENOMEM;
        }
        for (size_t i = 0; i < s->n_ports; i++) {
                r = find_gid(s, i, type, &g[n]);
                if (r < 0) {
                        metrics_gids_free(g, n + 1);
                        return r;
                }
                n += r;
        }
        *ret = g;
        *ret_n = n;
        return 0;
}

void metrics_render_gids(FILE *f, const MetricsGid *g, size_t n) {
        if (n == 0)
                return;
        fputs("# HELP halod_rdma_gid_index The GID table index of the port's RoCE GID (the profile's rdma.gid type) for the link's address: the value NCCL_IB_GID_INDEX must have.\n"
              "# TYPE halod_rdma_gid_index gauge\n",
              f);
        for (size_t i = 0; i < n; i++) {
                fputs("halod_rdma_gid_index{link=\"", f);
                metrics_write_label_value(f, g[i].link);
                fputs("\",device=\"", f);
                metrics_write_label_value(f, g[i].device);
                fprintf(f, "\",port=\"%" PRIu32 "\"} %" PRIu32 "\n", g[i].port, g[i].index);
        }
}
