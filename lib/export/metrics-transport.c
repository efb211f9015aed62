/* SPDX-License-Identifier: MIT */
/* The fabric's real use (fabric.<node>.transport, check/check-fabric-transport.h) as metrics: TCP bytes
 * per peer on the fabric since halod started, whether each peer is in the TCP fallback, the RDMA
 * devices' counters as the last verify read them, and the QPs held by each process. */
#include <inttypes.h>

#include "export/metrics.h"

static void family(FILE *f, const char *name, const char *help, const char *type) {
        fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void peer_sample(FILE *f, const char *name, const char *peer, uint64_t value) {
        fprintf(f, "%s{peer=\"", name);
        metrics_write_label_value(f, peer);
        fprintf(f, "\"} %" PRIu64 "\n", value);
}

static void render_peers(FILE *f, const FabricTransportState *t) {
        if (t->n_peers == 0)
                return;
        family(f,
               "halod_fabric_tcp_sent_bytes_total",
               "TCP bytes this node's fabric addresses sent to the peer's that the peer acknowledged, since halod started (fabric.<node>.transport).",
               "counter");
        for (size_t i = 0; i < t->n_peers; i++)
                peer_sample(
                        f, "halod_fabric_tcp_sent_bytes_total", t->peers[i].node, t->peers[i].tcp_sent_total);
        family(f,
               "halod_fabric_tcp_received_bytes_total",
               "TCP bytes this node's fabric addresses received from the peer's, since halod started.",
               "counter");
        for (size_t i = 0; i < t->n_peers; i++)
                peer_sample(
                        f,
                        "halod_fabric_tcp_received_bytes_total",
                        t->peers[i].node,
                        t->peers[i].tcp_received_total);
        family(f,
               "halod_fabric_tcp_fallback",
               "1 when the last verdict of fabric.<node>.transport was bulk traffic to the peer over TCP while RDMA carried almost nothing.",
               "gauge");
        for (size_t i = 0; i < t->n_peers; i++)
                peer_sample(f, "halod_fabric_tcp_fallback", t->peers[i].node, t->peers[i].fallback);
}

static void render_rdma(FILE *f, const FabricTransportSample *s) {
        if (s->rdma_error < 0 || !s->rdma_devices)
                return;
        if (s->rdma_has_bytes) {
                family(f,
                       "halod_fabric_rdma_bytes_total",
                       "Bytes the RDMA devices of the node's links moved, both directions, as their port counters say.",
                       "counter");
                fprintf(f, "halod_fabric_rdma_bytes_total %" PRIu64 "\n", s->rdma_bytes);
        } else {
                family(f,
                       "halod_fabric_rdma_packets_total",
                       "Packets the RDMA devices of the node's links moved, both directions, for devices that count packets only (rxe).",
                       "counter");
                fprintf(f, "halod_fabric_rdma_packets_total %" PRIu64 "\n", s->rdma_packets);
        }
}

static void render_holders(FILE *f, const FabricTransportSample *s) {
        if (s->n_holders == 0)
                return;
        family(f,
               "halod_fabric_qps",
               "QPs a process (thread group: pid is its Tgid, whichever thread made them) holds on the RDMA devices of the node's links (RDMA netlink), at the last verify.",
               "gauge");
        for (size_t i = 0; i < s->n_holders; i++) {
                fputs("halod_fabric_qps{process=\"", f);
                metrics_write_label_value(f, s->holders[i].name);
                fprintf(f, "\",pid=\"%" PRIu32 "\"} %u\n", s->holders[i].pid, s->holders[i].n_qps);
        }
}

void metrics_render_transport(FILE *f, const FabricTransportState *t) {
        if (!t || !t->has_sample)
                return;
        render_peers(f, t);
        render_rdma(f, &t->last);
        render_holders(f, &t->last);
}
