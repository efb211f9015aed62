/* SPDX-License-Identifier: MIT */
/* fabric.<node>.transport across verifies, from samples built by hand (the readers are tested on real
 * sockets in tests/integration/test-daemon-transport.sh): the first verify measures, a sustained 100
 * Mbit/s of TCP with an idle RDMA device warns and is a transition into the fallback once, control
 * traffic passes, leaving the fallback is a transition once, a skip in between does not interrupt it,
 * RDMA carrying the bulk passes naming the QPs' holders, and the profile's threshold is the one used. */
#include <arpa/inet.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/strv.h"
#include "check/check-fabric-transport.h"
#include "export/metrics.h"
#include "tests.h"

static const char profile_text[] =
        "cluster: strix-halo\n"
        "links: { rdma0: { match: { driver: ice } } }\n"
        "nodes:\n"
        "  head: { links: { rdma0: 192.168.100.1/24 } }\n"
        "  worker: { links: { rdma0: 192.168.100.2/24 } }\n"
        "  third: { links: { rdma0: 192.168.100.3/24 } }\n"
        "health: { tcp-bulk-mbit: %u }\n";

#define SEC 1000000ULL
#define MB 1000000ULL

/* A sample at second t: one socket head:40000 → worker:5201 that acknowledged sent bytes so far (its
 * cookie stays), and RDMA's counters at rdma bytes. */
static void sample(FabricTransportSample *s, unsigned t, uint64_t sent, uint64_t rdma, bool holder) {
        *s = (FabricTransportSample){ .at = (usec_t) t * SEC, .rdma_has_bytes = true, .rdma_bytes = rdma };
        s->tcp = calloc(1, sizeof(SockDiagTcp));
        ASSERT_TRUE(s->tcp);
        s->n_tcp = 1;
        inet_pton(AF_INET, "192.168.100.1", &s->tcp[0].local);
        inet_pton(AF_INET, "192.168.100.2", &s->tcp[0].remote);
        s->tcp[0] = (SockDiagTcp){ .local = s->tcp[0].local,
                                   .remote = s->tcp[0].remote,
                                   .local_port = 40000,
                                   .remote_port = 5201,
                                   .state = 1,
                                   .cookie = 42,
                                   .has_bytes = true,
                                   .bytes_acked = sent };
        ASSERT_OK(strv_extend(&s->rdma_devices, "rxe0/1"));
        if (holder) {
                s->holders = calloc(1, sizeof(RdmaQpHolder));
                ASSERT_TRUE(s->holders);
                s->n_holders = 1;
                s->holders[0] = (RdmaQpHolder){ .pid = 4242, .name = "ib_write_bw", .n_qps = 2 };
        }
}

typedef struct Run {
        Profile *profile;
        NodeContext c;
        FabricTransportState state;
        CheckList checks;
        FabricTransportChanges changes;
} Run;

static void run_init(Run *r, unsigned mbit) {
        char text[sizeof(profile_text) + 16];

        *r = (Run){};
        snprintf(text, sizeof(text), profile_text, mbit);
        ASSERT_OK(profile_load_string("t.yaml", text, strlen(text), &r->profile, NULL));
        r->c = (NodeContext){ .profile = r->profile, .node = profile_find_node(r->profile, "head") };
}

static void run_done(Run *r) {
        fabric_transport_state_done(&r->state);
        check_list_done(&r->checks);
        fabric_transport_changes_done(&r->changes);
        profile_free(r->profile);
}

/* As the verify job does: the state is the before, the check writes a copy of it, which becomes the
 * state. */
static int judge(Run *r, FabricTransportSample *s) {
        FabricTransportState after;
        int k;

        ASSERT_OK(fabric_transport_state_dup(&r->state, &after));
        k = check_fabric_transport(&r->c, &r->state, &after, s, &r->checks, &r->changes);
        fabric_transport_state_done(&r->state);
        r->state = after;
        return k;
}

static const Check *verify(Run *r, unsigned t, uint64_t sent, uint64_t rdma, bool holder) {
        FabricTransportSample s;

        check_list_done(&r->checks);
        fabric_transport_changes_done(&r->changes);
        sample(&s, t, sent, rdma, holder);
        ASSERT_OK(judge(r, &s));
        /* One check per peer, none for the node itself. */
        ASSERT_INT_EQ(r->checks.n_checks, 2);
        ASSERT_TRUE(!check_list_find(&r->checks, "fabric.head.transport"));
        ASSERT_TRUE(check_list_find(&r->checks, "fabric.third.transport"));
        return check_list_find(&r->checks, "fabric.worker.transport");
}

static void test_fallback_into_and_out(void) {
        Run r;
        const Check *c;

        run_init(&r, 10);
        c = verify(&r, 0, 0, 0, false);
        ASSERT_INT_EQ(c->outcome, CHECK_SKIP);
        ASSERT_TRUE(strstr(c->summary, "measuring"));
        ASSERT_INT_EQ(r.changes.n, 0);

        /* 100 Mbit/s for 60 s: 750 MB, RDMA idle. */
        c = verify(&r, 60, 750 * MB, 0, false);
        ASSERT_INT_EQ(c->outcome, CHECK_WARN);
        ASSERT_STR_EQ(c->actual, "fallback");
        ASSERT_TRUE(strstr(c->summary, "fell back to sockets"));
        ASSERT_TRUE(strstr(c->summary, "NET/Socket"));
        ASSERT_INT_EQ(r.changes.n, 1);
        ASSERT_STR_EQ(r.changes.changes[0].node, "worker");
        ASSERT_INT_EQ(r.changes.changes[0].transition, TRANSPORT_TRANSITION_INTO_FALLBACK);
        ASSERT_INT_EQ(check_list_find(&r.checks, "fabric.third.transport")->outcome, CHECK_PASS);

        /* Still falling back: no second transition. */
        c = verify(&r, 120, 1500 * MB, 0, false);
        ASSERT_INT_EQ(c->outcome, CHECK_WARN);
        ASSERT_INT_EQ(r.changes.n, 0);

        /* Control traffic only (100 kB in a minute): idle, out of the fallback once. */
        c = verify(&r, 180, 1500 * MB + 100000, 0, false);
        ASSERT_INT_EQ(c->outcome, CHECK_PASS);
        ASSERT_STR_EQ(c->actual, "idle");
        ASSERT_INT_EQ(r.changes.n, 1);
        ASSERT_INT_EQ(r.changes.changes[0].transition, TRANSPORT_TRANSITION_OUT_OF_FALLBACK);
        ASSERT_TRUE(fabric_transport_state_peer(&r.state, "worker")->tcp_sent_total == 1500 * MB + 100000);

        c = verify(&r, 240, 1500 * MB + 200000, 0, false);
        ASSERT_INT_EQ(c->outcome, CHECK_PASS);
        ASSERT_INT_EQ(r.changes.n, 0);
        run_done(&r);
}

/* The same on rxe, whose counters count packets only (hw_counters sent_pkts, rcvd_pkts): a latency
 * ping-pong's packets beside UCX over TCP (issue 32: 21.1 and 90.1 Mbit/s) warn "cannot-tell" and
 * neither enter nor leave the fallback; packets too few to carry a tenth even when full are it. */
static const Check *verify_packets(Run *r, unsigned t, uint64_t sent, uint64_t packets) {
        FabricTransportSample s;

        check_list_done(&r->checks);
        fabric_transport_changes_done(&r->changes);
        sample(&s, t, sent, 0, false);
        s.rdma_has_bytes = false;
        s.rdma_packets = packets;
        ASSERT_OK(judge(r, &s));
        return check_list_find(&r->checks, "fabric.worker.transport");
}

static void test_packets_only(void) {
        const uint64_t tcp = 90100000ULL / 8 * 60, packets = 21100000ULL * 60 / (8 * 4096);
        Run r;
        const Check *c;

        run_init(&r, 10);
        c = verify_packets(&r, 0, 0, 0);
        ASSERT_INT_EQ(c->outcome, CHECK_SKIP);

        c = verify_packets(&r, 60, tcp, packets);
        ASSERT_INT_EQ(c->outcome, CHECK_WARN);
        ASSERT_STR_EQ(c->actual, "cannot-tell");
        ASSERT_TRUE(strstr(c->summary, "at most 21.1 Mbit/s at 4096 bytes each"));
        ASSERT_TRUE(strstr(c->summary, "the counter cannot tell"));
        ASSERT_INT_EQ(r.changes.n, 0);
        ASSERT_TRUE(!fabric_transport_state_peer(&r.state, "worker")->fallback);

        c = verify_packets(&r, 120, 2 * tcp, packets + 100);
        ASSERT_STR_EQ(c->actual, "fallback");
        ASSERT_INT_EQ(r.changes.n, 1);
        ASSERT_INT_EQ(r.changes.changes[0].transition, TRANSPORT_TRANSITION_INTO_FALLBACK);

        c = verify_packets(&r, 180, 3 * tcp, 2 * packets + 100);
        ASSERT_STR_EQ(c->actual, "cannot-tell");
        ASSERT_INT_EQ(r.changes.n, 0);
        ASSERT_TRUE(fabric_transport_state_peer(&r.state, "worker")->fallback);
        run_done(&r);
}

static void test_skip_keeps_fallback(void) {
        FabricTransportSample s;
        Run r;
        const Check *c;

        run_init(&r, 10);
        (void) verify(&r, 0, 0, 0, false);
        c = verify(&r, 60, 750 * MB, 0, false);
        ASSERT_INT_EQ(c->outcome, CHECK_WARN);

        /* A verify that could not dump the sockets says so; the next bulk one is no new transition. */
        check_list_done(&r.checks);
        fabric_transport_changes_done(&r.changes);
        sample(&s, 90, 0, 0, false);
        s.tcp_error = -EPERM;
        ASSERT_OK(judge(&r, &s));
        c = check_list_find(&r.checks, "fabric.worker.transport");
        ASSERT_INT_EQ(c->outcome, CHECK_SKIP);
        ASSERT_TRUE(strstr(c->summary, "sock_diag"));
        ASSERT_INT_EQ(r.changes.n, 0);

        c = verify(&r, 150, 0, 0, false);
        ASSERT_INT_EQ(c->outcome, CHECK_SKIP);
        c = verify(&r, 210, 750 * MB, 0, false);
        ASSERT_INT_EQ(c->outcome, CHECK_WARN);
        ASSERT_INT_EQ(r.changes.n, 0);
        run_done(&r);
}

/* Verifies closer together than the rate window (health.interval 5 s in the vm suite, or a verify
 * asked for): a verdict always covers at least 10 s, in between the last one is repeated, and a
 * steady transfer neither leaves the fallback nor enters it again. */
static void test_short_intervals(void) {
        Run r;
        const Check *c;

        run_init(&r, 10);
        (void) verify(&r, 0, 0, 0, false);
        c = verify(&r, 5, 62 * MB, 0, false);
        ASSERT_INT_EQ(c->outcome, CHECK_SKIP);
        ASSERT_TRUE(strstr(c->summary, "measuring: the verdict needs 10 s"));
        ASSERT_INT_EQ(r.changes.n, 0);

        /* 100 Mbit/s since 0: judged over 12 s. */
        c = verify(&r, 12, 150 * MB, 0, false);
        ASSERT_INT_EQ(c->outcome, CHECK_WARN);
        ASSERT_INT_EQ(r.changes.n, 1);
        ASSERT_TRUE(strstr(c->summary, "(100.0 Mbit/s)"));

        /* 2 s later: the same verdict, no transition, not a rate over 2 s floored to 10. */
        c = verify(&r, 14, 175 * MB, 0, false);
        ASSERT_INT_EQ(c->outcome, CHECK_WARN);
        ASSERT_TRUE(strstr(c->summary, "(100.0 Mbit/s)"));
        ASSERT_INT_EQ(r.changes.n, 0);
        ASSERT_TRUE(fabric_transport_state_peer(&r.state, "worker")->tcp_sent_total == 150 * MB);

        /* 10 s after the verdict, from its sample (12 s), not from the repeated one (14 s). */
        c = verify(&r, 22, 275 * MB, 0, false);
        ASSERT_INT_EQ(c->outcome, CHECK_WARN);
        ASSERT_TRUE(strstr(c->summary, "(100.0 Mbit/s)"));
        ASSERT_INT_EQ(r.changes.n, 0);
        ASSERT_TRUE(fabric_transport_state_peer(&r.state, "worker")->tcp_sent_total == 275 * MB);

        /* The transfer stopped: out of the fallback once, at the next verdict. */
        c = verify(&r, 27, 275 * MB, 0, false);
        ASSERT_INT_EQ(c->outcome, CHECK_WARN);
        ASSERT_INT_EQ(r.changes.n, 0);
        c = verify(&r, 32, 275 * MB, 0, false);
        ASSERT_INT_EQ(c->outcome, CHECK_PASS);
        ASSERT_STR_EQ(c->actual, "idle");
        ASSERT_INT_EQ(r.changes.n, 1);
        ASSERT_INT_EQ(r.changes.changes[0].transition, TRANSPORT_TRANSITION_OUT_OF_FALLBACK);
        c = verify(&r, 35, 275 * MB, 0, false);
        ASSERT_INT_EQ(c->outcome, CHECK_PASS);
        ASSERT_INT_EQ(r.changes.n, 0);
        run_done(&r);
}

static void test_rdma_carries_the_bulk(void) {
        Run r;
        const Check *c;

        run_init(&r, 10);
        (void) verify(&r, 0, 0, 0, true);
        /* Bootstrap over TCP at 100 Mbit/s beside 5 GB over RDMA. */
        c = verify(&r, 60, 750 * MB, 5000 * MB, true);
        ASSERT_INT_EQ(c->outcome, CHECK_PASS);
        ASSERT_STR_EQ(c->actual, "rdma");
        ASSERT_TRUE(strstr(c->summary, "ib_write_bw (pid 4242, 2 QPs)"));
        ASSERT_INT_EQ(r.changes.n, 0);
        run_done(&r);
}

static void test_profile_threshold(void) {
        Run r;
        const Check *c;

        /* 100 Mbit/s is under a threshold of 200. */
        run_init(&r, 200);
        (void) verify(&r, 0, 0, 0, false);
        c = verify(&r, 60, 750 * MB, 0, false);
        ASSERT_INT_EQ(c->outcome, CHECK_PASS);
        ASSERT_TRUE(strstr(c->expected, "200 Mbit/s"));
        run_done(&r);
}

/* The metrics of the state after a fallback: TCP bytes and the fallback per peer, RDMA bytes, QPs. */
static void test_metrics(void) {
        _cleanup_(freep) char *text = NULL;
        FabricTransportState copy;
        size_t size;
        FILE *f;
        Run r;

        run_init(&r, 10);
        (void) verify(&r, 0, 0, 0, true);
        (void) verify(&r, 60, 750 * MB, 1000, true);
        ASSERT_OK(fabric_transport_state_copy(&r.state, &copy));
        run_done(&r);

        f = open_memstream(&text, &size);
        ASSERT_TRUE(f);
        metrics_render_transport(f, &copy);
        ASSERT_INT_EQ(fclose(f), 0);
        fabric_transport_state_done(&copy);
        ASSERT_TRUE(strstr(text, "# TYPE halod_fabric_tcp_sent_bytes_total counter\n"));
        ASSERT_TRUE(strstr(text, "\nhalod_fabric_tcp_sent_bytes_total{peer=\"worker\"} 750000000\n"));
        ASSERT_TRUE(strstr(text, "\nhalod_fabric_tcp_received_bytes_total{peer=\"third\"} 0\n"));
        ASSERT_TRUE(strstr(text, "\nhalod_fabric_tcp_fallback{peer=\"worker\"} 1\n"));
        ASSERT_TRUE(strstr(text, "\nhalod_fabric_tcp_fallback{peer=\"third\"} 0\n"));
        ASSERT_TRUE(strstr(text, "\nhalod_fabric_rdma_bytes_total 1000\n"));
        ASSERT_TRUE(!strstr(text, "halod_fabric_rdma_packets_total"));
        ASSERT_TRUE(strstr(text, "\nhalod_fabric_qps{process=\"ib_write_bw\",pid=\"4242\"} 2\n"));

        /* Nothing measured yet: nothing rendered. */
        text = mfree(text);
        f = open_memstream(&text, &size);
        ASSERT_TRUE(f);
        metrics_render_transport(f, &(FabricTransportState){});
        ASSERT_INT_EQ(fclose(f), 0);
        ASSERT_STR_EQ(text, "");
}

static void put(const char *root, const char *path, const char *value) {
        _cleanup_(freep) char *full = NULL;
        FILE *f;

        ASSERT_TRUE(asprintf(&full, "%s%s", root, path) > 0);
        for (char *p = strchr(full + strlen(root) + 1, '/'); p; p = strchr(p + 1, '/')) {
                *p = '\0';
                (void) mkdir(full, 0755);
                *p = '/';
        }
        f = fopen(full, "we");
        ASSERT_TRUE(f);
        fprintf(f, "%s\n", value);
        ASSERT_INT_EQ(fclose(f), 0);
}

static int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw) {
        return remove(path);
}

/* The RDMA volume from each driver's counters, in a scratch sysfs tree: mlx5's PMA counters (4-byte
 * words), irdma's octets, rxe's packets, and a device that counts none of them. */
static void test_port_volume(void) {
        char root[] = "/tmp/test-fabric-transport-XXXXXX";
        FabricTransportSample s = {};
        Host h;
        bool bytes;

        ASSERT_TRUE(mkdtemp(root));
        h = (Host){ .root = root };
        put(root, "/sys/class/infiniband/mlx5_0/ports/1/counters/port_xmit_data", "100");
        put(root, "/sys/class/infiniband/mlx5_0/ports/1/counters/port_rcv_data", "50");
        /* Its hw_counters are not volumes: only the PMA counters are added. */
        put(root, "/sys/class/infiniband/mlx5_0/ports/1/hw_counters/out_of_sequence", "9");
        put(root, "/sys/class/infiniband/irdma0/ports/1/hw_counters/ip4InOctets", "1000");
        put(root, "/sys/class/infiniband/irdma0/ports/1/hw_counters/ip4OutOctets", "2000");
        put(root, "/sys/class/infiniband/irdma0/ports/1/hw_counters/ip6InOctets", "0");
        put(root, "/sys/class/infiniband/rxe0/ports/1/hw_counters/sent_pkts", "7");
        put(root, "/sys/class/infiniband/rxe0/ports/1/hw_counters/rcvd_pkts", "3");
        put(root, "/sys/class/infiniband/other0/ports/1/hw_counters/whatever", "1");

        ASSERT_OK(fabric_transport_add_port_volume(&h, "mlx5_0", 1, &s, &bytes));
        ASSERT_TRUE(bytes);
        ASSERT_TRUE(s.rdma_bytes == 600);
        ASSERT_OK(fabric_transport_add_port_volume(&h, "irdma0", 1, &s, &bytes));
        ASSERT_TRUE(bytes);
        ASSERT_TRUE(s.rdma_bytes == 3600);
        ASSERT_OK(fabric_transport_add_port_volume(&h, "rxe0", 1, &s, &bytes));
        ASSERT_TRUE(!bytes);
        ASSERT_TRUE(s.rdma_packets == 10);
        ASSERT_INT_EQ(fabric_transport_add_port_volume(&h, "other0", 1, &s, &bytes), -ENOENT);
        ASSERT_INT_EQ(fabric_transport_add_port_volume(&h, "gone0", 1, &s, &bytes), -ENOENT);
        ASSERT_TRUE(s.rdma_bytes == 3600 && s.rdma_packets == 10);

        put(root, "/sys/class/infiniband/bad0/ports/1/counters/port_xmit_data", "lots");
        ASSERT_INT_EQ(fabric_transport_add_port_volume(&h, "bad0", 1, &s, &bytes), -EBADMSG);
        ASSERT_INT_EQ(nftw(root, remove_one, 16, FTW_DEPTH | FTW_PHYS), 0);
}

int main(void) {
        test_packets_only();
        test_fallback_into_and_out();
        test_short_intervals();
        test_skip_keeps_fallback();
        test_rdma_carries_the_bulk();
        test_profile_threshold();
        test_metrics();
        test_port_volume();
        return 0;
}
