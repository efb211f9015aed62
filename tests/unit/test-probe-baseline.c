/* SPDX-License-Identifier: MIT */
/* haloctl probe's RDMA baseline end to end in one process: the RDMA probe (rdma_probe() against halod's
 * responder on loopback, the queue pairs through the libibverbs double) is recorded by haloctl's own
 * bookkeeping (daemon/haloctl-probe-baseline.c) below a copy of the E810 board's tree (x4 Gen4, 100
 * Gbit/s, MTU 9000): the first probe as the baseline, with the node's state from the tree; the next
 * held against it; --rebaseline; an MTU changed since (re-taken); a file root does not trust (not
 * recorded, left alone). The double's throughput is the host's memcpy: the verdict is asserted to be
 * a verdict on the measurement, never which. */
#include <stdlib.h>
#include <sys/stat.h>

#include "check-test.h"
#include "fake-verbs-pair.h"
#include "haloctl-probe-baseline.h"
#include "netns-test.h"
#include "rdma-probe-peer.h"
#include "rdma/rdma-baseline-file.h"
#include "tests.h"

/* haloctl-output.c's colour switch (haloctl.c's): never. */
int arg_color = 0;

static const char yaml[] =
        "cluster: strix-halo\n"
        "links:\n"
        "  rdma0: { match: { name: enp194s0np0 } }\n"
        "rdma: { required: true, gid: roce-v2 }\n"
        "nodes:\n"
        "  head: { links: { rdma0: 192.168.100.1/30 } }\n"
        "  worker: { links: { rdma0: 192.168.100.2/30 } }\n";

static char root[] = "/tmp/halod-test-probe-baseline-XXXXXX";

static void run(const char *command) {
        ASSERT_INT_EQ(system(command), 0);
}

/* One haloctl probe to head: the file read, one RDMA probe recorded, the file written. Returns what
 * was recorded (-1: nothing); in *ret_summary the verdict's summary, or why nothing was recorded, and
 * in *ret_changes how the node changed since the baseline (NULL: it did not); the caller frees both. */
static int probe_once(
        const NodeContext *c, RdmaDevice *d, uint16_t port, bool rebaseline, char **ret_summary, char **ret_changes) {
        _cleanup_(probe_baseline_done) ProbeBaseline b = {};
        _cleanup_(probe_baseline_row_done) ProbeBaselineRow row = {};
        PeerIdentity self = identity("worker");
        RdmaProbeParams p = params(d, &self, port);
        RdmaProbeResult res;
        RdmaError e = {};

        ASSERT_OK(probe_baseline_open(c, &b));
        ASSERT_OK(rdma_probe(&p, &e, &res));
        ASSERT_INT_EQ(res.peer_status, PEER_RDMA_OK);
        ASSERT_OK(probe_baseline_add(&b, "head", "rdma0", "irdma0", &res, rebaseline, &row));
        ASSERT_OK(probe_baseline_save(&b));
        ASSERT_TRUE(!b.write_error);
        probe_baseline_print_row(&b, &row);
        *ret_changes = row.changes ? strdup(row.changes) : NULL;
        if (row.recorded < 0) {
                *ret_summary = strdup(b.read_error);
                return -1;
        }
        /* A verdict on the measurement (pass, or warn when the double's memcpy falls below a limit). */
        ASSERT_INT_EQ(row.verdict.n_checks, 1);
        ASSERT_STR_EQ(row.verdict.checks[0].id, "fabric.head.baseline");
        ASSERT_TRUE(row.verdict.checks[0].outcome == CHECK_PASS || row.verdict.checks[0].outcome == CHECK_WARN);
        ASSERT_TRUE(startswith(row.verdict.checks[0].summary, "RDMA to head over rdma0"));
        *ret_summary = strdup(row.verdict.checks[0].summary);
        return row.recorded;
}

static const char *at(const char *rel) {
        static char p[512];

        (void) snprintf(p, sizeof(p), "%s%s", root, rel);
        return p;
}

static void test_probe_baseline(void) {
        _cleanup_(profile_freep) Profile *profile = test_profile_load(yaml);
        _cleanup_(rdma_device_freep) RdmaDevice *d = NULL;
        _cleanup_(rdma_baseline_file_done) RdmaBaselineFile f = {};
        _cleanup_(freep) char *cmd = NULL, *error = NULL;
        Host h = { .root = root };
        NodeContext c = { .host = &h, .profile = profile, .node = profile_find_node(profile, "worker") };
        RdmaResponder *rr;
        Responder r;
        uint64_t first;
        struct stat st;

        ASSERT_TRUE(mkdtemp(root));
        ASSERT_TRUE(
                asprintf(&cmd, "cp -r %s/hosts/nic-e810-x4/. %s && mkdir -p %s/var/lib", TEST_DATA_DIR, root, root) >
                0);
        run(cmd);

        fake_pair_setup();
        rr = rdma_responder(RDMA_RESPONDER_TIMEOUT_USEC_DEFAULT);
        responder_start(&r, rr);
        d = fake_pair_open(FAKE_PAIR_PROBER_IFINDEX);

        /* The first: the baseline, with the board's state. */
        {
                _cleanup_(freep) char *summary = NULL, *changes = NULL;

                ASSERT_INT_EQ(probe_once(&c, d, r.port, false, &summary, &changes), RDMA_BASELINE_NEW);
                ASSERT_TRUE(!changes);
                ASSERT_TRUE(
                        strstr(summary, "(the baseline, taken ") ||
                        strstr(summary, "well below the ~63 Gbit/s"));
        }
        ASSERT_TRUE(
                stat(at(RDMA_BASELINE_PATH), &st) == 0 && (st.st_mode & 07777) == 0644 &&
                st.st_uid == geteuid());
        ASSERT_OK(rdma_baseline_read(&h, &f, &error));
        ASSERT_INT_EQ(f.n_peers, 1);
        ASSERT_STR_EQ(f.peers[0].node, "head");
        ASSERT_STR_EQ(f.peers[0].baseline.link, "rdma0");
        ASSERT_STR_EQ(f.peers[0].baseline.device, "irdma0");
        ASSERT_INT_EQ(f.peers[0].baseline.pings, 100);
        ASSERT_INT_EQ(f.peers[0].baseline.write_bytes, 4U << 20);
        ASSERT_INT_EQ(f.peers[0].baseline.path_mtu, 1024);
        /* The tree's sysfs: PCIe 16 GT/s x4, 100000 Mbit/s, MTU 9000; no ethtool ioctl below a tree. */
        ASSERT_INT_EQ(f.peers[0].baseline.state.pcie_speed_mts, 16000);
        ASSERT_INT_EQ(f.peers[0].baseline.state.pcie_width, 4);
        ASSERT_INT_EQ(f.peers[0].baseline.state.port_mbit, 100000);
        ASSERT_INT_EQ(f.peers[0].baseline.state.mtu, 9000);
        ASSERT_STR_EQ(f.peers[0].baseline.state.firmware, "");
        first = f.peers[0].baseline.taken_usec;
        rdma_baseline_file_done(&f);
        (void) wait_idle(rr);

        /* The next: held against it; the baseline stays. */
        {
                _cleanup_(freep) char *summary = NULL, *changes = NULL;

                ASSERT_INT_EQ(probe_once(&c, d, r.port, false, &summary, &changes), RDMA_BASELINE_KEPT);
                ASSERT_TRUE(!changes);
        }
        ASSERT_OK(rdma_baseline_read(&h, &f, &error));
        ASSERT_INT_EQ(f.peers[0].baseline.taken_usec, first);
        ASSERT_TRUE(f.peers[0].last.taken_usec > first);
        rdma_baseline_file_done(&f);
        (void) wait_idle(rr);

        /* --rebaseline: the measurement becomes the baseline. */
        {
                _cleanup_(freep) char *summary = NULL, *changes = NULL;

                ASSERT_INT_EQ(probe_once(&c, d, r.port, true, &summary, &changes), RDMA_BASELINE_REPLACED);
        }
        ASSERT_OK(rdma_baseline_read(&h, &f, &error));
        ASSERT_TRUE(f.peers[0].baseline.taken_usec > first);
        ASSERT_INT_EQ(f.peers[0].baseline.taken_usec, f.peers[0].last.taken_usec);
        rdma_baseline_file_done(&f);
        (void) wait_idle(rr);

        /* The MTU changed since: the baseline is re-taken, and the row says how the node changed. */
        cmd = mfree(cmd);
        ASSERT_TRUE(asprintf(&cmd, "echo 1500 >%s/sys/class/net/enp194s0np0/mtu", root) > 0);
        run(cmd);
        {
                _cleanup_(freep) char *summary = NULL, *changes = NULL;

                ASSERT_INT_EQ(probe_once(&c, d, r.port, false, &summary, &changes), RDMA_BASELINE_RETAKEN);
                ASSERT_STR_EQ(changes, "MTU 9000 → 1500");
        }
        (void) wait_idle(rr);

        /* Writable by its group: not trusted, not recorded, left as it is. */
        ASSERT_TRUE(chmod(at(RDMA_BASELINE_PATH), 0664) == 0);
        ASSERT_TRUE(stat(at(RDMA_BASELINE_PATH), &st) == 0);
        {
                _cleanup_(freep) char *summary = NULL, *changes = NULL;
                struct stat after;

                ASSERT_INT_EQ(probe_once(&c, d, r.port, false, &summary, &changes), -1);
                ASSERT_TRUE(strstr(summary, "not trusted") && strstr(summary, "mode 0664"));
                ASSERT_TRUE(stat(at(RDMA_BASELINE_PATH), &after) == 0);
                ASSERT_INT_EQ(after.st_ino, st.st_ino);
                ASSERT_INT_EQ(after.st_mtim.tv_nsec, st.st_mtim.tv_nsec);
        }
        (void) wait_idle(rr);

        responder_stop(&r);
        cmd = mfree(cmd);
        ASSERT_TRUE(asprintf(&cmd, "rm -rf %s", root) > 0);
        run(cmd);
}

int main(void) {
        test_private_netns();
        test_probe_baseline();
        return 0;
}
