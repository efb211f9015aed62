/* SPDX-License-Identifier: MIT */
/* haloctl probe: side by side, what the path to each peer gives: UDP round trip and TCP throughput
 * over the fabric NIC, and RC queue-pair round trip and RDMA WRITE bandwidth where both ends have
 * an RDMA device. */
#include <arpa/inet.h>
#include <inttypes.h>
#include <stdio.h>

#include "basic/json-writer.h"
#include "basic/strv.h"
#include "haloctl-probe-baseline.h"
#include "haloctl.h"
#include "peer/peer-profile.h"
#include "peer/peer-rdma-probe.h"
#include "peer/peer.h"
#include "rdma/rdma.h"
#include "snapshot/fabric.h"
#include "snapshot/rdma-node.h"

#define PROBE_ECHO_COUNT 100U

typedef struct ProbeRow {
        const PeerNeighbour *n;
        char local[INET_ADDRSTRLEN];
        char remote[INET_ADDRSTRLEN];
        int udp_error;
        PeerProbeResult udp;
        int tcp_error;
        PeerBulkResult tcp;
        char *rdma_device;       /* NULL: none here, rdma_reason says why */
        const char *rdma_reason; /* why nothing was measured; NULL when it was */
        int rdma_error;
        RdmaError rdma_error_text;
        RdmaProbeResult rdma;
        ProbeBaselineRow baseline; /* the measurement held against the recorded one */
} ProbeRow;

/* An argument is the PROFILE when it looks like a path, else the NODE. */
static bool looks_like_path(const char *s) {
        const char *dot = strrchr(s, '.');

        return strchr(s, '/') || (dot && (streq(dot, ".yaml") || streq(dot, ".yml"))) || access(s, F_OK) >= 0;
}

static const char *tcp_error_text(int r) {
        switch (r) {
        case -ECONNREFUSED:
                return "refused: the peer's halod does not listen for throughput probes";
        case -EBUSY:
                return "busy: the peer is measuring another sender; try again in a few seconds";
        case -ECONNRESET:
                return "closed by the peer: this node is not in its profile (or an older peer was busy)";
        case -ETIMEDOUT:
                return "timed out";
        default:
                return strerror(-r);
        }
}

static bool udp_ok(const ProbeRow *row) {
        return row->udp_error >= 0 && row->udp.answered > 0;
}

static const char *peer_rdma_text(PeerRdmaStatus st) {
        switch (st) {
        case PEER_RDMA_NO_DEVICE:
                return "no RDMA device (or no RoCE GID for its address) on the peer";
        case PEER_RDMA_BUSY:
                return "the peer is busy with another RDMA probe: try again in a few seconds";
        case PEER_RDMA_FAILED:
                return "the peer could not set up its queue pair: its journal says why";
        default:
                return "the peer answered with an unknown status";
        }
}

/* This node's RDMA device on the link, and the RDMA probe to the peer when there is one. */
static void run_rdma(const NodeContext *c, const PeerIdentity *self, uint16_t port, ProbeRow *row) {
        _cleanup_(rdma_device_freep) RdmaDevice *dev = NULL;
        struct in_addr address;
        RdmaProbeParams params;
        int r;

        r = rdma_link_device(c, row->n->link, &dev, &address);
        if (r == -ENOSYS)
                row->rdma_reason = "no RDMA device on this node (the kernel has no RDMA support)";
        else if (r == -EOPNOTSUPP)
                row->rdma_reason = "no RDMA device on this node (haloctl was built without libibverbs)";
        else if (r < 0)
                row->rdma_reason = "no RDMA device on this node";
        if (r < 0)
                return;
        row->rdma_device = strdup(dev->name);
        if (!udp_ok(row)) {
                row->rdma_reason = "not probed: the peer does not answer on the peer channel";
                return;
        }

        params = (RdmaProbeParams){
                .device = dev,
                .gid_type = rdma_node_gid_type(c),
                .local = row->n->local,
                .remote = row->n->remote,
                .port = port,
                .self = self,
        };
        row->rdma_error = rdma_probe(&params, &row->rdma_error_text, &row->rdma);
        if (row->rdma_error < 0)
                row->rdma_reason = row->rdma_error_text.message;
        else if (row->rdma.peer_status != PEER_RDMA_OK)
                row->rdma_reason = peer_rdma_text(row->rdma.peer_status);
}

static void run_row(const NodeContext *c, const PeerIdentity *self, uint16_t port, ProbeRow *row) {
        PeerProbeParams params = {
                .local = row->n->local,
                .remote = row->n->remote,
                .port = port,
                .self = self,
                .count = PROBE_ECHO_COUNT,
                .timeout_usec = PEER_PROBE_TIMEOUT_USEC_DEFAULT,
        };

        (void) inet_ntop(AF_INET, &row->n->local, row->local, sizeof(row->local));
        (void) inet_ntop(AF_INET, &row->n->remote, row->remote, sizeof(row->remote));

        row->udp_error = peer_probe(&params, &row->udp);
        if (row->udp_error >= 0 && row->udp.answered > 0)
                row->tcp_error = peer_bulk_send(
                        &row->n->local,
                        &row->n->remote,
                        port,
                        PEER_BULK_BYTES_DEFAULT,
                        PEER_BULK_TIME_USEC_DEFAULT,
                        /* privileged= */ true,
                        &row->tcp);
        else
                row->tcp_error = -EHOSTUNREACH;
        run_rdma(c, self, port, row);
}

static bool rdma_measured(const ProbeRow *row) {
        return !row->rdma_reason;
}

static double rdma_gbit_per_sec(const RdmaProbeResult *r) {
        return r->write_nsec > 0 ? (double) r->write_bytes * 8.0 / (double) r->write_nsec : 0.0;
}

static double gbit_per_sec(const PeerBulkResult *r) {
        return r->usec > 0 ? (double) r->bytes * 8.0 / (double) r->usec / 1000.0 : 0.0;
}

static void print_row(const ProbeBaseline *b, const ProbeRow *row) {
        char latency[96], throughput[160];

        if (row->udp_error < 0)
                (void) snprintf(latency, sizeof(latency), "cannot probe: %s", strerror(-row->udp_error));
        else if (row->udp.answered == 0)
                (void) snprintf(
                        latency,
                        sizeof(latency),
                        "%s",
                        row->udp.rate_limited > 0                      ? "rate-limited by the peer"
                                : row->udp.last_error == -ECONNREFUSED ? "no halod listening"
                                                                       : "no answer");
        else
                (void) snprintf(
                        latency,
                        sizeof(latency),
                        "%" PRIu64 " µs / %" PRIu64 " µs",
                        row->udp.rtt_median_usec,
                        row->udp.rtt_p99_usec);

        if (!udp_ok(row))
                (void) snprintf(throughput, sizeof(throughput), "-");
        else if (row->tcp_error < 0)
                (void) snprintf(throughput, sizeof(throughput), "%s", tcp_error_text(row->tcp_error));
        else
                (void) snprintf(
                        throughput,
                        sizeof(throughput),
                        "%.2f Gbit/s (%.2f GB in %.2f s)",
                        gbit_per_sec(&row->tcp),
                        (double) row->tcp.bytes / 1e9,
                        (double) row->tcp.usec / 1e6);

        printf("%s%s%s %s via %s (from %s)\n",
               ansi_bold(),
               row->n->node->name,
               ansi_normal(),
               row->remote,
               row->n->link,
               row->local);
        printf("  %-18s %-28s %s\n", "PATH", "LATENCY median / p99", "THROUGHPUT");
        /* µs is two bytes and one column: pad by hand. */
        printf("  %-18s %-*s %s\n", "fabric, UDP/TCP", (int) (28 + (udp_ok(row) ? 2 : 0)), latency, throughput);
        if (rdma_measured(row)) {
                (void) snprintf(
                        latency,
                        sizeof(latency),
                        "%.1f µs / %.1f µs",
                        (double) row->rdma.rtt_median_nsec / 1000.0,
                        (double) row->rdma.rtt_p99_nsec / 1000.0);
                (void) snprintf(
                        throughput,
                        sizeof(throughput),
                        "%.2f Gbit/s (%.2f GB in %.2f s, %s)",
                        rdma_gbit_per_sec(&row->rdma),
                        (double) row->rdma.write_bytes / 1e9,
                        (double) row->rdma.write_nsec / 1e9,
                        strna(row->rdma_device));
                printf("  %-18s %-*s %s\n", "RDMA, RC QP", 28 + 2, latency, throughput);
                /* Two NICs on one netdev MTU can run different RDMA MTUs (mlx5 takes the RoCE
                 * headers off first, irdma does not): the queue pairs run the smaller. */
                if (row->rdma.active_mtu != row->rdma.peer_active_mtu)
                        printf("  %-18s %u bytes, the smaller active MTU of the two ports (%u on %s, %u here): "
                               "rdma.mtu on each node says why its MTU is what it is\n",
                               "RDMA path MTU",
                               row->rdma.path_mtu,
                               row->rdma.peer_active_mtu,
                               row->n->node->name,
                               row->rdma.active_mtu);
                probe_baseline_print_row(b, &row->baseline);
        } else
                printf("  %-18s %s%s%s\n",
                       "RDMA, RC QP",
                       row->rdma_device ? row->rdma_device : "",
                       row->rdma_device ? ": " : "",
                       row->rdma_reason);
}

static void print_row_json(JsonWriter *w, const ProbeBaseline *b, const ProbeRow *row) {
        json_begin_object(w);
        json_kv_string(w, "node", row->n->node->name);
        json_kv_string(w, "link", row->n->link);
        json_kv_string(w, "address", row->remote);
        json_kv_string(w, "local-address", row->local);

        json_key(w, "udp");
        json_begin_object(w);
        json_kv_bool(w, "reachable", udp_ok(row));
        if (row->udp_error < 0)
                json_kv_string(w, "error", strerror(-row->udp_error));
        else {
                json_kv_uint(w, "sent", row->udp.sent);
                json_kv_uint(w, "answered", row->udp.answered);
                json_kv_uint(w, "rate-limited", row->udp.rate_limited);
                if (row->udp.answered > 0) {
                        json_kv_uint(w, "rtt-min-usec", row->udp.rtt_min_usec);
                        json_kv_uint(w, "rtt-median-usec", row->udp.rtt_median_usec);
                        json_kv_uint(w, "rtt-p99-usec", row->udp.rtt_p99_usec);
                        json_kv_uint(w, "rtt-max-usec", row->udp.rtt_max_usec);
                }
        }
        json_end_object(w);

        json_key(w, "tcp");
        json_begin_object(w);
        json_kv_bool(w, "measured", udp_ok(row) && row->tcp_error >= 0);
        if (udp_ok(row) && row->tcp_error < 0)
                json_kv_string(w, "error", tcp_error_text(row->tcp_error));
        else if (udp_ok(row)) {
                json_kv_uint(w, "bytes", row->tcp.bytes);
                json_kv_uint(w, "usec", row->tcp.usec);
                json_kv_uint(
                        w,
                        "bits-per-second",
                        row->tcp.usec > 0 ? row->tcp.bytes * 8000000ULL / row->tcp.usec : 0);
        }
        json_end_object(w);

        json_key(w, "rdma");
        json_begin_object(w);
        json_kv_bool(w, "measured", rdma_measured(row));
        json_kv_string(w, "device", row->rdma_device);
        if (!rdma_measured(row))
                json_kv_string(w, "reason", row->rdma_reason);
        if (row->rdma_device && row->rdma_error >= 0 && udp_ok(row))
                json_kv_string(w, "peer-status", peer_rdma_status_to_string(row->rdma.peer_status));
        if (rdma_measured(row)) {
                json_kv_uint(w, "gid-index", row->rdma.gid_index);
                json_kv_uint(w, "peer-gid-index", row->rdma.peer_gid_index);
                json_kv_uint(w, "path-mtu", row->rdma.path_mtu);
                json_kv_uint(w, "active-mtu", row->rdma.active_mtu);
                json_kv_uint(w, "peer-active-mtu", row->rdma.peer_active_mtu);
                json_kv_uint(w, "pings", row->rdma.pings);
                json_kv_uint(w, "rtt-min-nsec", row->rdma.rtt_min_nsec);
                json_kv_uint(w, "rtt-median-nsec", row->rdma.rtt_median_nsec);
                json_kv_uint(w, "rtt-p99-nsec", row->rdma.rtt_p99_nsec);
                json_kv_uint(w, "rtt-max-nsec", row->rdma.rtt_max_nsec);
                json_kv_uint(w, "bytes", row->rdma.write_bytes);
                json_kv_uint(w, "nsec", row->rdma.write_nsec);
                json_kv_uint(
                        w,
                        "bits-per-second",
                        row->rdma.write_nsec > 0
                                ? (uint64_t) ((double) row->rdma.write_bytes * 8e9 / (double) row->rdma.write_nsec)
                                : 0);
                probe_baseline_json_row(w, b, &row->baseline);
        }
        json_end_object(w);

        json_end_object(w);
}

int verb_probe(int argc, char *argv[]) {
        _cleanup_(profile_freep) Profile *p = NULL;
        _cleanup_(freep) PeerNeighbour *neighbours = NULL;
        _cleanup_(freep) ProbeRow *rows = NULL;
        _cleanup_(probe_baseline_done) ProbeBaseline baseline = {};
        const char *path = PROFILE_DEFAULT_PATH, *node_name = NULL;
        const ProfileNode *self = NULL;
        Host host = { .root = arg_root ?: "" };
        size_t n = 0, n_rows = 0;
        PeerIdentity id;
        NodeContext c;
        int r, ret = EXIT_SUCCESS;

        for (int i = 1; i < argc; i++) {
                if (!node_name && !looks_like_path(argv[i]))
                        node_name = argv[i];
                else if (streq(path, PROFILE_DEFAULT_PATH))
                        path = argv[i];
                else {
                        fprintf(stderr,
                                "probe takes [NODE] [PROFILE], got '%s' too. Try 'haloctl --help'.\n",
                                argv[i]);
                        return EX_USAGE;
                }
        }

        r = load_profile_and_node(path, &p, &self);
        if (r != 0)
                return r;

        if (peer_neighbours(p, self, &neighbours, &n) < 0 ||
            !(rows = calloc(n > 0 ? n : 1, sizeof(ProbeRow)))) {
                fprintf(stderr, "Out of memory.\n");
                return EX_OSERR;
        }
        if (node_name) {
                PeerNeighbour *nb = peer_neighbour_find(neighbours, n, node_name);

                if (!nb) {
                        _cleanup_(strv_freep) char **names = NULL;
                        _cleanup_(freep) char *list = NULL;

                        for (size_t i = 0; i < n; i++)
                                if (strv_extend(&names, neighbours[i].node->name) < 0) {
                                        fprintf(stderr, "Out of memory.\n");
                                        return EX_OSERR;
                                }
                        list = names ? strv_join(names, ", ") : strdup("none");
                        if (!list) {
                                fprintf(stderr, "Out of memory.\n");
                                return EX_OSERR;
                        }
                        fprintf(stderr,
                                "%s: %s is %s; the nodes %s can probe: %s.\n",
                                path,
                                node_name,
                                profile_find_node(p, node_name)
                                        ? "neither on a link this node shares nor reached by its routes"
                                        : "not a node of the profile",
                                self->name,
                                list);
                        return EX_USAGE;
                }
                rows[n_rows++].n = nb;
        } else
                for (size_t i = 0; i < n; i++)
                        rows[n_rows++].n = &neighbours[i];
        if (n_rows == 0) {
                fprintf(stderr,
                        "%s: node %s shares no link with another node: nothing to probe.\n",
                        path,
                        self->name);
                return EX_CONFIG;
        }

        r = peer_identity_from_profile(p, self, HEALTH_STARTING, &id);
        if (r < 0) {
                fprintf(stderr,
                        "%s: cannot probe: the cluster and node names must be 1-%u printable characters "
                        "without spaces (%s).\n",
                        path,
                        PEER_NAME_MAX,
                        strerror(-r));
                return EX_CONFIG;
        }

        c = (NodeContext){ .host = &host, .profile = p, .node = self };
        if (probe_baseline_open(&c, &baseline) < 0) {
                fprintf(stderr, "Out of memory.\n");
                return EX_OSERR;
        }
        for (size_t i = 0; i < n_rows; i++) {
                run_row(&c, &id, peer_port(p), &rows[i]);
                if (rdma_measured(&rows[i]) &&
                    probe_baseline_add(
                            &baseline,
                            rows[i].n->node->name,
                            rows[i].n->link,
                            strempty(rows[i].rdma_device),
                            &rows[i].rdma,
                            arg_rebaseline,
                            &rows[i].baseline) < 0) {
                        fprintf(stderr, "Out of memory.\n");
                        return EX_OSERR;
                }
                if (!udp_ok(&rows[i]))
                        ret = EXIT_CHECK_FAIL;
                else if (
                        (rows[i].tcp_error < 0 || rows[i].rdma_error < 0 ||
                         check_list_worst(&rows[i].baseline.verdict) == CHECK_WARN) &&
                        ret == EXIT_SUCCESS)
                        ret = EXIT_CHECK_WARN;
        }
        if (probe_baseline_save(&baseline) < 0) {
                fprintf(stderr, "Out of memory.\n");
                return EX_OSERR;
        }

        if (arg_json) {
                JsonWriter w;

                json_writer_init(&w, stdout, true);
                json_begin_object(&w);
                json_kv_string(&w, "node", self->name);
                json_key(&w, "peers");
                json_begin_array(&w);
                for (size_t i = 0; i < n_rows; i++)
                        print_row_json(&w, &baseline, &rows[i]);
                json_end_array(&w);
                json_end_object(&w);
                json_writer_finish(&w);
        } else
                for (size_t i = 0; i < n_rows; i++) {
                        if (i > 0)
                                putchar('\n');
                        print_row(&baseline, &rows[i]);
                }

        for (size_t i = 0; i < n_rows; i++) {
                free(rows[i].rdma_device);
                probe_baseline_row_done(&rows[i].baseline);
        }
        return ret;
}
