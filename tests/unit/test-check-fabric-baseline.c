/* SPDX-License-Identifier: MIT */
/* fabric.<NODE>.baseline's verdict: no baseline yet, a file that cannot be used, a measurement within
 * its baseline, below it in throughput or above it in latency, a baseline taken in another state of the
 * node (stale), and the ceiling from a PCIe x4 Gen4 link (63 Gbit/s; the guide's E810 moved 50.6
 * through one) and from the port's speed. */
#include "check/check-fabric-baseline.h"
#include "tests.h"

#define T0 1764295800000000ULL /* 2025-11-28 02:10 UTC */
#define T1 (T0 + 3600ULL * 1000000ULL)

static const RdmaNodeState x4_gen4 = {
        .firmware = "4.91 0x8001a2ff 1.3682.0",
        .pcie_speed_mts = 16000,
        .pcie_width = 4,
        .mtu = 9000,
        .port_mbit = 100000,
};

/* A measurement of gbit Gbit/s (2 s of RDMA WRITE) and a median round trip of rtt_nsec. */
static RdmaMeasurement measured(uint64_t taken_usec, double gbit, uint64_t rtt_nsec, const RdmaNodeState *state) {
        RdmaMeasurement m = {
                .taken_usec = taken_usec,
                .link = "rdma0",
                .device = "irdma0",
                .path_mtu = 4096,
                .pings = 1000,
                .rtt_median_nsec = rtt_nsec,
                .rtt_p99_nsec = rtt_nsec * 2,
                .write_bytes = (uint64_t) (gbit * 2e9 / 8.0),
                .write_nsec = 2000000000ULL,
                .state = *state,
        };
        return m;
}

typedef struct VerdictCase {
        const char *name;
        int file_error;
        const char *file_message;
        bool has_peer;
        RdmaBaselinePeer peer;
        RdmaNodeState now;
        CheckOutcome outcome;
        const char *summary; /* whole, or NULL */
        const char *words;   /* a part of it, or NULL */
        const char *actual;
} VerdictCase;

static void run_case(const VerdictCase *t) {
        _cleanup_(check_list_done) CheckList l = {};
        FabricBaselineFacts f = {
                .node = "node2",
                .file_error = t->file_error,
                .file_message = t->file_message,
                .peer = t->has_peer ? &t->peer : NULL,
                .now = t->now,
        };

        fprintf(stderr, "case: %s\n", t->name);
        ASSERT_OK(check_fabric_baseline_evaluate(&f, &l));
        ASSERT_INT_EQ(l.n_checks, 1);
        ASSERT_STR_EQ(l.checks[0].id, "fabric.node2.baseline");
        if (l.checks[0].outcome != t->outcome)
                fprintf(stderr,
                        "  got %s: %s\n",
                        check_outcome_to_string(l.checks[0].outcome),
                        l.checks[0].summary);
        ASSERT_INT_EQ(l.checks[0].outcome, t->outcome);
        if (t->summary)
                ASSERT_STR_EQ(l.checks[0].summary, t->summary);
        if (t->words && !strstr(l.checks[0].summary, t->words)) {
                fprintf(stderr, "  \"%s\" not in \"%s\"\n", t->words, l.checks[0].summary);
                abort();
        }
        if (t->actual)
                ASSERT_STR_EQ(l.checks[0].actual, t->actual);
}

static void test_verdicts(void) {
        RdmaNodeState firmware_updated = x4_gen4, port_25g = x4_gen4, x16_gen4 = x4_gen4,
                      virtio = { .mtu = 9000 };

        snprintf(firmware_updated.firmware, sizeof(firmware_updated.firmware), "4.80 0x80015b7c 1.3534.0");
        x16_gen4.pcie_width = 16;
        port_25g = x16_gen4;
        port_25g.port_mbit = 25000;

        const VerdictCase cases[] = {
                { .name = "no baseline file yet",
                  .file_error = -ENOENT,
                  .now = x4_gen4,
                  .outcome = CHECK_SKIP,
                  .summary = "No RDMA baseline for node2 yet: run 'haloctl probe node2' as root to record one "
                             "(halod(8), FILES)" },
                { .name = "a file without this peer",
                  .now = x4_gen4,
                  .outcome = CHECK_SKIP,
                  .words = "No RDMA baseline for node2 yet" },
                { .name = "a file root does not trust",
                  .file_error = -EPERM,
                  .file_message = "/var/lib/halod/rdma-baseline: not trusted: owned by halod (uid 990)",
                  .now = x4_gen4,
                  .outcome = CHECK_WARN,
                  .summary = "Cannot hold the RDMA path to node2 against its baseline: /var/lib/halod/rdma-baseline: "
                             "not trusted: owned by halod (uid 990)",
                  .actual = "not trusted" },
                { .name = "a corrupt file",
                  .file_error = -EBADMSG,
                  .file_message = "/var/lib/halod/rdma-baseline: line 2: unknown key 'speed'; remove it",
                  .now = x4_gen4,
                  .outcome = CHECK_WARN,
                  .words = "line 2: unknown key 'speed'",
                  .actual = "unreadable" },
                { .name = "the baseline just taken, the guide's numbers",
                  .has_peer = true,
                  .peer = { .node = "node2",
                            .baseline = measured(T0, 50.6, 5100, &x4_gen4),
                            .last = measured(T0, 50.6, 5100, &x4_gen4) },
                  .now = x4_gen4,
                  .outcome = CHECK_PASS,
                  .summary = "RDMA to node2 over rdma0: 5.1 µs median round trip, 50.6 Gbit/s RDMA WRITE (the "
                             "baseline, taken 2025-11-28 02:10 UTC); ceiling ~63 Gbit/s from PCIe 16 GT/s x4",
                  .actual = "50.6 Gbit/s, 5.1 µs" },
                { .name = "within the baseline",
                  .has_peer = true,
                  .peer = { .node = "node2",
                            .baseline = measured(T0, 50.6, 5100, &x4_gen4),
                            .last = measured(T1, 48.0, 6000, &x4_gen4) },
                  .now = x4_gen4,
                  .outcome = CHECK_PASS,
                  .summary = "RDMA to node2 over rdma0: 6.0 µs median round trip, 48.0 Gbit/s RDMA WRITE (measured "
                             "2025-11-28 03:10 UTC, within the baseline's 5.1 µs and 50.6 Gbit/s of 2025-11-28 "
                             "02:10 UTC); ceiling ~63 Gbit/s from PCIe 16 GT/s x4" },
                { .name = "throughput well below the baseline",
                  .has_peer = true,
                  .peer = { .node = "node2",
                            .baseline = measured(T0, 95.0, 5100, &x16_gen4),
                            .last = measured(T1, 62.0, 5100, &x16_gen4) },
                  .now = x16_gen4,
                  .outcome = CHECK_WARN,
                  .words = "RDMA to node2 over rdma0, measured 2025-11-28 03:10 UTC: RDMA WRITE 62.0 Gbit/s is 35% "
                           "below the baseline's 95.0 Gbit/s (2025-11-28 02:10 UTC). Look for loss",
                  .actual = "62.0 Gbit/s, 5.1 µs" },
                { .name = "latency well above the baseline",
                  .has_peer = true,
                  .peer = { .node = "node2",
                            .baseline = measured(T0, 50.6, 5100, &x4_gen4),
                            .last = measured(T1, 50.0, 7700, &x4_gen4) },
                  .now = x4_gen4,
                  .outcome = CHECK_WARN,
                  .words = "the RDMA round trip's median 7.7 µs is 1.5× the baseline's 5.1 µs" },
                { .name = "stale: the firmware changed since",
                  .has_peer = true,
                  .peer = { .node = "node2",
                            .baseline = measured(T0, 50.6, 5100, &x4_gen4),
                            .last = measured(T1, 20.0, 5100, &x4_gen4) },
                  .now = firmware_updated,
                  .outcome = CHECK_SKIP,
                  .summary = "Not compared: the RDMA baseline to node2 (2025-11-28 02:10 UTC) was taken before the "
                             "node changed (firmware 4.91 0x8001a2ff 1.3682.0 → 4.80 0x80015b7c 1.3534.0); run "
                             "'haloctl probe node2' as root to re-take the baseline",
                  .actual = "stale" },
                { .name = "stale: the MTU changed since",
                  .has_peer = true,
                  .peer = { .node = "node2",
                            .baseline = measured(T0, 50.6, 5100, &x4_gen4),
                            .last = measured(T0, 50.6, 5100, &x4_gen4) },
                  .now = { .firmware = "4.91 0x8001a2ff 1.3682.0",
                           .pcie_speed_mts = 16000,
                           .pcie_width = 4,
                           .mtu = 1500,
                           .port_mbit = 100000 },
                  .outcome = CHECK_SKIP,
                  .words = "(MTU 9000 → 1500)" },
                { .name = "the ceiling of a PCIe x4 Gen4 link",
                  .has_peer = true,
                  .peer = { .node = "node2",
                            .baseline = measured(T0, 30.0, 5100, &x4_gen4),
                            .last = measured(T0, 30.0, 5100, &x4_gen4) },
                  .now = x4_gen4,
                  .outcome = CHECK_WARN,
                  .words = "RDMA WRITE 30.0 Gbit/s is well below the ~63 Gbit/s that PCIe 16 GT/s x4 allows" },
                { .name = "the ceiling of a port at 25G",
                  .has_peer = true,
                  .peer = { .node = "node2",
                            .baseline = measured(T0, 12.0, 5100, &port_25g),
                            .last = measured(T0, 12.0, 5100, &port_25g) },
                  .now = port_25g,
                  .outcome = CHECK_WARN,
                  .words = "RDMA WRITE 12.0 Gbit/s is well below the ~25 Gbit/s that the port's 25000 Mbit/s allows" },
                { .name = "a port at 25G near its ceiling",
                  .has_peer = true,
                  .peer = { .node = "node2",
                            .baseline = measured(T0, 23.5, 5100, &port_25g),
                            .last = measured(T0, 23.5, 5100, &port_25g) },
                  .now = port_25g,
                  .outcome = CHECK_PASS,
                  .words = "ceiling ~25 Gbit/s from the port's 25000 Mbit/s" },
                /* Soft-RoCE on virtio-net (the vm suite's guests): no PCIe link, no port speed. */
                { .name = "no ceiling known",
                  .has_peer = true,
                  .peer = { .node = "node2",
                            .baseline = measured(T0, 0.1, 1105100, &virtio),
                            .last = measured(T1, 0.1, 1606400, &virtio) },
                  .now = virtio,
                  .outcome = CHECK_PASS,
                  .summary = "RDMA to node2 over rdma0: 1606.4 µs median round trip, 0.1 Gbit/s RDMA WRITE "
                             "(measured 2025-11-28 03:10 UTC, within the baseline's 1105.1 µs and 0.1 Gbit/s of "
                             "2025-11-28 02:10 UTC)" },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++)
                run_case(&cases[i]);
}

static void test_ceiling(void) {
        _cleanup_(freep) char *what = NULL;
        RdmaNodeState none = {}, gen3 = x4_gen4;
        double c;

        /* x4 Gen4: 4 × 16 GT/s after 128b/130b, the guide's "≈ 63 Gbit/s raw". */
        c = rdma_node_state_ceiling(&x4_gen4, &what);
        ASSERT_TRUE(c > 63.0 && c < 63.1);
        ASSERT_STR_EQ(what, "PCIe 16 GT/s x4");
        what = mfree(what);
        gen3.pcie_speed_mts = 8000;
        gen3.port_mbit = 0;
        c = rdma_node_state_ceiling(&gen3, &what);
        ASSERT_TRUE(c > 31.5 && c < 31.6);
        ASSERT_INT_EQ(rdma_node_state_ceiling(&none, NULL), 0);
}

int main(void) {
        test_verdicts();
        test_ceiling();
        return 0;
}
