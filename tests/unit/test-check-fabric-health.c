/* SPDX-License-Identifier: MIT */
/* fabric.<link>.loss, fabric.<link>.congestion, link.<link>.flaps and nic.<link>.errors on host trees
 * of each driver (tests/data/rdma/hw-counters, the files as mlx5_ib, irdma on an E810 and rxe name
 * them): the counters read and normalised, then the verdicts between two verifies as the counters
 * move: measuring, idle, warn and fail thresholds, a counter reset, a counter the driver lacks. */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "basic/fileio.h"
#include "check/check-fabric-health.h"
#include "profile/profile.h"
#include "rdma/rdma-sysfs.h"
#include "snapshot/snapshot.h"
#include "tests.h"

#define SEC 1000000ULL

static const char profile_text[] =
        "cluster: strix-halo\n"
        "links: { rdma0: { match: { name: \"%s\" } } }\n"
        "nodes:\n"
        "  head: { links: { rdma0: 192.168.100.1/30 } }\n"
        "  worker: { links: { rdma0: 192.168.100.2/30 } }\n";

typedef struct Run {
        char root[64];
        const char *ifname;
        Profile *profile;
        NodeContext c;
        Host host;
        FabricHealthHistory history;
        CheckList checks;
} Run;

static void run_init(Run *r, const char *tree, const char *ifname) {
        _cleanup_(freep) char *cmd = NULL;
        char text[sizeof(profile_text) + 64];

        *r = (Run){ .ifname = ifname };
        strcpy(r->root, "/tmp/halod-test-fabric-health-XXXXXX");
        ASSERT_TRUE(mkdtemp(r->root));
        ASSERT_TRUE(asprintf(&cmd, "cp -a '%s/rdma/hw-counters/%s/.' '%s'", TEST_DATA_DIR, tree, r->root) > 0);
        ASSERT_INT_EQ(system(cmd), 0);
        snprintf(text, sizeof(text), profile_text, ifname);
        ASSERT_OK(profile_load_string("t.yaml", text, strlen(text), &r->profile, NULL));
        r->host = (Host){ .root = r->root };
        r->c = (NodeContext){ .host = &r->host,
                              .profile = r->profile,
                              .node = profile_find_node(r->profile, "head") };
}

static void run_done(Run *r) {
        _cleanup_(freep) char *cmd = NULL;

        fabric_health_history_done(&r->history);
        check_list_done(&r->checks);
        profile_free(r->profile);
        ASSERT_TRUE(asprintf(&cmd, "rm -rf '%s'", r->root) > 0);
        ASSERT_INT_EQ(system(cmd), 0);
}

/* Sets a counter file below the tree (path from the tree's root) to value. */
static void set(Run *r, const char *path, uint64_t value) {
        _cleanup_(freep) char *p = NULL, *v = NULL;

        ASSERT_TRUE(asprintf(&p, "%s%s", r->root, path) > 0);
        ASSERT_TRUE(asprintf(&v, "%" PRIu64 "\n", value) > 0);
        ASSERT_OK(write_file_atomic(p, v, strlen(v), 0644));
}

static void set_net(Run *r, const char *file, uint64_t value) {
        char path[256];

        snprintf(path, sizeof(path), "/sys/class/net/%s/%s", r->ifname, file);
        set(r, path, value);
}

/* One verify, `seconds` after the one before: reads the counters as the daemon's verify job does and
 * judges them against the history, whose samples are moved back to exactly that long before this
 * one's (the clock's own time between the two reads would make the rates inexact). */
static void verify(Run *r, unsigned seconds) {
        _cleanup_(snapshot_done) Snapshot s = {};
        FabricHealthHistory after = {};
        FabricPort port = { .link = (char *) "rdma0", .ifname = (char *) r->ifname, .has_address = true };

        inet_pton(AF_INET, "192.168.100.1", &port.address);
        snapshot_init(&s, &r->c);
        ASSERT_OK(snapshot_seed_ports(&s, &port, 1));
        ASSERT_OK(snapshot_read(&s, SNAPSHOT_QOS_COUNTERS));
        for (size_t i = 0; i < r->history.n; i++) {
                FabricHealthSample *h = &r->history.samples[i];
                usec_t moved = h->when - (s.qos_counters[0].when - seconds * SEC);

                h->when -= moved;
                for (size_t k = 0; k < h->n_flap_events; k++)
                        h->flap_at[k] -= moved;
        }
        check_list_done(&r->checks);
        ASSERT_OK(check_fabric_health(&r->c, &s, &r->history, &after, &r->checks));
        fabric_health_history_done(&r->history);
        r->history = after;
}

static const Check *check(const Run *r, const char *id) {
        const Check *c = check_list_find(&r->checks, id);

        ASSERT_TRUE(c);
        return c;
}

static void assert_check(const Run *r, const char *id, CheckOutcome o, const char *needle) {
        const Check *c = check(r, id);

        if (c->outcome != o || (needle && !strstr(c->summary, needle) && !strstr(c->actual, needle))) {
                fprintf(stderr,
                        "%s: %s \"%s\" (%s), expected %s with \"%s\"\n",
                        id,
                        check_outcome_to_string(c->outcome),
                        c->summary,
                        c->actual,
                        check_outcome_to_string(o),
                        needle ?: "");
                abort();
        }
}

/* Each driver's files read under one vocabulary, the driver told by its own files. */
static void test_read_drivers(void) {
        static const struct {
                const char *tree, *device;
                RdmaCounterDriver driver;
                uint32_t known;
        } cases[] = {
                { "mlx5", "mlx5_0", RDMA_COUNTER_DRIVER_MLX5_IB, (1U << _RDMA_HW_COUNTER_MAX) - 1 },
                { "irdma-e810",
                  "irdma0",
                  RDMA_COUNTER_DRIVER_IRDMA,
                  1U << RDMA_HW_NP_ECN_MARKED | 1U << RDMA_HW_NP_CNP_SENT | 1U << RDMA_HW_RP_CNP_HANDLED |
                          1U << RDMA_HW_RP_CNP_IGNORED },
                { "rxe",
                  "rxe0",
                  RDMA_COUNTER_DRIVER_RXE,
                  1U << RDMA_HW_OUT_OF_SEQUENCE | 1U << RDMA_HW_PACKET_SEQ_ERR |
                          1U << RDMA_HW_DUPLICATE_REQUEST | 1U << RDMA_HW_RNR_NAK_RETRY_ERR |
                          1U << RDMA_HW_RETRANSMITTED | 1U << RDMA_HW_LINK_DOWNED },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                Run r;
                uint64_t v[_RDMA_HW_COUNTER_MAX];
                RdmaCounterDriver d;
                uint32_t known;

                run_init(&r, cases[i].tree, "x");
                ASSERT_OK(rdma_sysfs_read_hw_counters(&r.host, cases[i].device, 1, &d, v, &known));
                ASSERT_INT_EQ(d, cases[i].driver);
                ASSERT_INT_EQ(known, cases[i].known);
                run_done(&r);
        }
}

/* rxe: the first verify measures; an idle fabric passes as idle; loss warns and fails by its rate,
 * naming the counter; a reset measures again; rxe counts no congestion notification. */
static void test_rxe_loss(void) {
        Run r;

        run_init(&r, "rxe", "eth1");
        verify(&r, 60);
        assert_check(&r, "fabric.rdma0.loss", CHECK_SKIP, "measuring: first sample");
        assert_check(&r, "link.rdma0.flaps", CHECK_SKIP, "measuring");
        assert_check(&r, "nic.rdma0.errors", CHECK_SKIP, "measuring");

        set_net(&r, "statistics/rx_packets", 200);
        verify(&r, 60);
        assert_check(&r, "fabric.rdma0.loss", CHECK_PASS, "idle");
        assert_check(&r, "nic.rdma0.errors", CHECK_PASS, "idle");
        assert_check(&r, "link.rdma0.flaps", CHECK_PASS, "0 in the last hour");
        assert_check(&r, "fabric.rdma0.congestion", CHECK_SKIP, "not counted by rxe");

        /* 100000 packets in 60 s, 50 out of sequence: 5e-4, over 1e-5. */
        set_net(&r, "statistics/rx_packets", 100200);
        set(&r, "/sys/class/infiniband/rxe0/ports/1/hw_counters/out_of_seq_request", 50);
        verify(&r, 60);
        assert_check(&r, "fabric.rdma0.loss", CHECK_WARN, "out of sequence 0.833/s (out_of_seq_request)");

        /* 4 more: too few to be a rate. */
        set_net(&r, "statistics/rx_packets", 200200);
        set(&r, "/sys/class/infiniband/rxe0/ports/1/hw_counters/out_of_seq_request", 54);
        verify(&r, 60);
        assert_check(&r, "fabric.rdma0.loss", CHECK_PASS, "no loss");

        /* 2000 retransmissions in 100000 packets: 2e-2, over 1e-2. */
        set_net(&r, "statistics/rx_packets", 300200);
        set(&r, "/sys/class/infiniband/rxe0/ports/1/hw_counters/completer_retry_err", 2000);
        verify(&r, 60);
        assert_check(&r, "fabric.rdma0.loss", CHECK_FAIL, "retransmitted 33.3/s (completer_retry_err)");

        /* The driver reloaded: its counters start at 0 again. */
        set(&r, "/sys/class/infiniband/rxe0/ports/1/hw_counters/completer_retry_err", 0);
        set(&r, "/sys/class/infiniband/rxe0/ports/1/hw_counters/out_of_seq_request", 0);
        verify(&r, 60);
        assert_check(&r, "fabric.rdma0.loss", CHECK_SKIP, "started again");
        assert_check(&r, "nic.rdma0.errors", CHECK_SKIP, "started again");
        set_net(&r, "statistics/rx_packets", 300300);
        verify(&r, 60);
        assert_check(&r, "fabric.rdma0.loss", CHECK_PASS, "idle");
        run_done(&r);
}

/* Three downs of the carrier warn, for an hour; rxe's own link_downed counts too. */
static void test_flaps(void) {
        Run r;

        run_init(&r, "rxe", "eth1");
        verify(&r, 60);
        set_net(&r, "carrier_down_count", 1);
        set_net(&r, "carrier_changes", 3);
        verify(&r, 60);
        assert_check(
                &r, "link.rdma0.flaps", CHECK_PASS, "went down 1 time in the last hour (carrier_down_count)");
        set_net(&r, "carrier_down_count", 3);
        set_net(&r, "carrier_changes", 7);
        verify(&r, 60);
        assert_check(&r, "link.rdma0.flaps", CHECK_WARN, "went down 3 times in the last hour");
        verify(&r, 600);
        assert_check(&r, "link.rdma0.flaps", CHECK_WARN, "3 in the last hour");
        /* An hour after the flaps. */
        verify(&r, 3000);
        assert_check(&r, "link.rdma0.flaps", CHECK_PASS, "0 in the last hour");
        /* The RDMA port went down more often than the carrier shows. */
        set(&r, "/sys/class/infiniband/rxe0/ports/1/hw_counters/link_downed", 2);
        verify(&r, 60);
        assert_check(&r, "link.rdma0.flaps", CHECK_WARN, "2 in the last hour (link_downed)");
        run_done(&r);
}

/* A kernel before 4.16 has no carrier_down_count: half the carrier_changes are downs. */
static void test_flaps_carrier_changes(void) {
        _cleanup_(freep) char *path = NULL;
        Run r;

        run_init(&r, "rxe", "eth1");
        ASSERT_TRUE(asprintf(&path, "%s/sys/class/net/eth1/carrier_down_count", r.root) > 0);
        ASSERT_INT_EQ(unlink(path), 0);
        verify(&r, 60);
        set_net(&r, "carrier_changes", 5);
        verify(&r, 60);
        assert_check(
                &r, "link.rdma0.flaps", CHECK_WARN, "went down 2 times in the last hour (carrier_changes)");
        run_done(&r);
}

/* irdma on an E810 counts no retransmission: not counted, never a pass; its CNPs judge congestion. */
static void test_irdma(void) {
        Run r;

        run_init(&r, "irdma-e810", "enp194s0");
        verify(&r, 60);
        set_net(&r, "statistics/rx_packets", 100000);
        set(&r, "/sys/class/infiniband/irdma0/ports/1/hw_counters/cnpHandled", 3000);
        verify(&r, 60);
        assert_check(&r, "fabric.rdma0.loss", CHECK_SKIP, "not counted by irdma");
        assert_check(&r, "fabric.rdma0.congestion", CHECK_WARN, "CNP handled 50/s (cnpHandled)");
        set_net(&r, "statistics/rx_packets", 200000);
        set(&r, "/sys/class/infiniband/irdma0/ports/1/hw_counters/cnpHandled", 3010);
        verify(&r, 60);
        assert_check(&r, "fabric.rdma0.congestion", CHECK_PASS, "no congestion");
        run_done(&r);
}

/* mlx5: loss with no congestion signal says PFC or ECN is missing on one side; CRC errors warn and
 * fail by their rate; the host's missed packets warn on their own. */
static void test_mlx5(void) {
        Run r;

        run_init(&r, "mlx5", "enp1s0f0np0");
        verify(&r, 60);
        set_net(&r, "statistics/rx_packets", 1000000);
        set(&r, "/sys/class/infiniband/mlx5_0/ports/1/hw_counters/out_of_sequence", 100);
        verify(&r, 60);
        assert_check(&r, "fabric.rdma0.loss", CHECK_WARN, "out_of_sequence");
        assert_check(&r, "fabric.rdma0.congestion", CHECK_WARN, "PFC or ECN is not in force");

        set_net(&r, "statistics/rx_packets", 2000000);
        set_net(&r, "statistics/rx_crc_errors", 1);
        verify(&r, 60);
        assert_check(&r, "nic.rdma0.errors", CHECK_WARN, "CRC errors");
        set_net(&r, "statistics/rx_packets", 3000000);
        set_net(&r, "statistics/rx_crc_errors", 1001);
        verify(&r, 60);
        assert_check(&r, "nic.rdma0.errors", CHECK_FAIL, "reseat or replace");
        /* One CRC error among few packets: a warning, not a failure. */
        set_net(&r, "statistics/rx_packets", 3001000);
        set_net(&r, "statistics/rx_crc_errors", 1002);
        verify(&r, 60);
        assert_check(&r, "nic.rdma0.errors", CHECK_WARN, "CRC errors");
        set_net(&r, "statistics/rx_packets", 4000000);
        set_net(&r, "statistics/rx_missed_errors", 5000);
        verify(&r, 60);
        assert_check(&r, "nic.rdma0.errors", CHECK_WARN, "ethtool -G");
        set_net(&r, "statistics/rx_packets", 5000000);
        verify(&r, 60);
        assert_check(&r, "nic.rdma0.errors", CHECK_PASS, "no errors");
        /* mlx5_ib's link_downed is a PMA counter. */
        set(&r, "/sys/class/infiniband/mlx5_0/ports/1/counters/link_downed", 4);
        verify(&r, 60);
        assert_check(&r, "link.rdma0.flaps", CHECK_WARN, "link_downed");
        run_done(&r);
}

/* A link whose netdev is gone skips all four, saying why; no counters read: likewise. */
static void test_no_netdev(void) {
        Run r;

        run_init(&r, "rxe", "eth9");
        verify(&r, 60);
        verify(&r, 60);
        assert_check(&r, "fabric.rdma0.loss", CHECK_SKIP, "cannot be read");
        assert_check(&r, "nic.rdma0.errors", CHECK_SKIP, "cannot be read");
        run_done(&r);
}

int main(void) {
        test_read_drivers();
        test_rxe_loss();
        test_flaps();
        test_flaps_carrier_changes();
        test_irdma();
        test_mlx5();
        test_no_netdev();
        return 0;
}
