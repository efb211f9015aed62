/* SPDX-License-Identifier: MIT */
/* transport-cost-tool PROFILE NODE N: the CPU the transport watch of fabric.<node>.transport costs one
 * verify, measured in the caller's network namespace as halod's verify job runs it. N times: read the
 * sample (lib/check/fabric-transport-read.c: the sock_diag dump, the RDMA ports' counters, the RDMA
 * netlink QP dump) and judge it against the one before (check_fabric_transport()), on one thread,
 * timed with CLOCK_THREAD_CPUTIME_ID. The snapshot's ports are read once before, as the verify has read
 * them for its link checks by then. Prints one line:
 *   "samples N sockets K cpu_us min MIN median MED max MAX dump_us min MIN median MED"
 * where K is the sockets the last sample kept (the fabric's) and dump_us times sock_diag_dump_tcp()
 * alone on the node's first address, N times. For bench/cost.sh. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "check/check-fabric-transport.h"
#include "net/sock-diag.h"
#include "profile/profile.h"

static uint64_t thread_cpu_ns(void) {
        struct timespec ts;

        if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) < 0)
                abort();
        return (uint64_t) ts.tv_sec * 1000000000ULL + (uint64_t) ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b) {
        uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;

        return (x > y) - (x < y);
}

/* The watch of one verify: sample, then judge. */
static int watch_once(const NodeContext *c, Snapshot *snap, FabricTransportState *state, size_t *ret_n_tcp) {
        _cleanup_(fabric_transport_sample_done) FabricTransportSample s = {};
        _cleanup_(check_list_done) CheckList checks = {};
        _cleanup_(fabric_transport_changes_done) FabricTransportChanges changes = {};
        FabricTransportState after;
        int r;

        /* A verify reads the snapshot's transport part anew, and the state takes the sample over. */
        snapshot_forget(snap, SNAPSHOT_TRANSPORT);
        r = snapshot_read(snap, SNAPSHOT_TRANSPORT);
        if (r < 0)
                return r;
        s = *snap->transport;
        *snap->transport = (FabricTransportSample){};
        if (s.tcp_error < 0)
                return s.tcp_error;
        *ret_n_tcp = s.n_tcp;
        /* The verify job's history: the state is the before, a copy of it the after that replaces it. */
        r = fabric_transport_state_dup(state, &after);
        if (r < 0)
                return r;
        r = check_fabric_transport(c, state, &after, &s, &checks, &changes);
        fabric_transport_state_done(state);
        *state = after;
        return r;
}

static int dump_once(const NodeContext *c) {
        _cleanup_(netlink_socket_closep) NetlinkSocket *nl = NULL;
        _cleanup_(freep) SockDiagTcp *tcp = NULL;
        size_t n;
        int r;

        r = netlink_socket_open(NETLINK_SOCK_DIAG, &nl);
        if (r < 0)
                return r;
        return sock_diag_dump_tcp(nl, &c->node->links[0].address.address, 1, &tcp, &n, NULL);
}

int main(int argc, char *argv[]) {
        _cleanup_(fabric_transport_state_done) FabricTransportState state = {};
        _cleanup_(freep) uint64_t *watch = NULL, *dump = NULL;
        _cleanup_(snapshot_done) Snapshot snap = {};
        Host host = HOST_SYSTEM;
        Profile *p = NULL;
        NodeContext c;
        size_t n, n_tcp = 0;
        int r;

        if (argc != 4 || (n = strtoul(argv[3], NULL, 10)) == 0) {
                fprintf(stderr, "usage: transport-cost-tool PROFILE NODE N\n");
                return 2;
        }
        r = profile_load_file(argv[1], &p, NULL);
        if (r < 0) {
                fprintf(stderr, "%s: %s\n", argv[1], strerror(-r));
                return 1;
        }
        c = (NodeContext){ .host = &host, .profile = p, .node = profile_find_node(p, argv[2]) };
        if (!c.node || c.node->n_links == 0) {
                fprintf(stderr, "%s: no node %s with links\n", argv[1], argv[2]);
                profile_free(p);
                return 1;
        }
        watch = calloc(n, sizeof(uint64_t));
        dump = calloc(n, sizeof(uint64_t));
        if (!watch || !dump)
                return 1;
        snapshot_init(&snap, &c);
        r = snapshot_read(&snap, SNAPSHOT_LOCATED);
        for (size_t i = 0; r >= 0 && i < n; i++) {
                uint64_t t = thread_cpu_ns();

                r = watch_once(&c, &snap, &state, &n_tcp);
                watch[i] = thread_cpu_ns() - t;
        }
        for (size_t i = 0; r >= 0 && i < n; i++) {
                uint64_t t = thread_cpu_ns();

                r = dump_once(&c);
                dump[i] = thread_cpu_ns() - t;
        }
        snapshot_done(&snap);
        profile_free(p);
        if (r < 0) {
                fprintf(stderr, "transport watch: %s\n", strerror(-r));
                return 1;
        }
        qsort(watch, n, sizeof(uint64_t), cmp_u64);
        qsort(dump, n, sizeof(uint64_t), cmp_u64);
        printf("samples %zu sockets %zu cpu_us min %.0f median %.0f max %.0f dump_us min %.0f median %.0f\n",
               n,
               n_tcp,
               watch[0] / 1e3,
               watch[n / 2] / 1e3,
               watch[n - 1] / 1e3,
               dump[0] / 1e3,
               dump[n / 2] / 1e3);
        return 0;
}
