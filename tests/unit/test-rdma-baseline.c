/* SPDX-License-Identifier: MIT */
/* The RDMA baseline file (lib/rdma/rdma-baseline*.c): a file written and read back is the same; each
 * kind of corruption is an error naming the line; a file or directory someone other than root (or the
 * reader) could write is not trusted; a new measurement is recorded as the baseline when there is
 * none or the node's state changed, and as the latest otherwise. Cases that need another owner run as
 * root only (as in CI); the modes are tested as any user. */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/fileio.h"
#include "rdma/rdma-baseline-file.h"
#include "tests.h"

#define NOBODY 65534

static const RdmaNodeState reference_state = {
        .firmware = "4.91 0x8001a2ff 1.3682.0",
        .pcie_speed_mts = 16000,
        .pcie_width = 4,
        .mtu = 9000,
        .port_mbit = 100000,
};

/* The guide's E810 over a DAC: about 5 µs, 50.6 Gbit/s. */
static RdmaMeasurement reference(uint64_t taken_usec) {
        RdmaMeasurement m = {
                .taken_usec = taken_usec,
                .link = "rdma0",
                .device = "irdma0",
                .path_mtu = 4096,
                .pings = 1000,
                .rtt_median_nsec = 5100,
                .rtt_p99_nsec = 6900,
                .write_bytes = 12650000000ULL,
                .write_nsec = 2000000000ULL,
                .state = reference_state,
        };
        return m;
}

static void assert_same_measurement(const RdmaMeasurement *a, const RdmaMeasurement *b) {
        ASSERT_INT_EQ(a->taken_usec, b->taken_usec);
        ASSERT_STR_EQ(a->link, b->link);
        ASSERT_STR_EQ(a->device, b->device);
        ASSERT_INT_EQ(a->path_mtu, b->path_mtu);
        ASSERT_INT_EQ(a->pings, b->pings);
        ASSERT_INT_EQ(a->rtt_median_nsec, b->rtt_median_nsec);
        ASSERT_INT_EQ(a->rtt_p99_nsec, b->rtt_p99_nsec);
        ASSERT_INT_EQ(a->write_bytes, b->write_bytes);
        ASSERT_INT_EQ(a->write_nsec, b->write_nsec);
        ASSERT_STR_EQ(a->state.firmware, b->state.firmware);
        ASSERT_INT_EQ(a->state.pcie_speed_mts, b->state.pcie_speed_mts);
        ASSERT_INT_EQ(a->state.pcie_width, b->state.pcie_width);
        ASSERT_INT_EQ(a->state.mtu, b->state.mtu);
        ASSERT_INT_EQ(a->state.port_mbit, b->state.port_mbit);
}

static void test_record(void) {
        _cleanup_(rdma_baseline_file_done) RdmaBaselineFile f = {};
        RdmaMeasurement m = reference(1000000), slower = reference(2000000), other = reference(3000000);
        _cleanup_(freep) char *changes = NULL;

        slower.write_nsec *= 2;
        ASSERT_INT_EQ(rdma_baseline_record(&f, "node2", &m, false), RDMA_BASELINE_NEW);
        ASSERT_INT_EQ(rdma_baseline_record(&f, "node2", &slower, false), RDMA_BASELINE_KEPT);
        ASSERT_INT_EQ(f.n_peers, 1);
        ASSERT_INT_EQ(f.peers[0].baseline.taken_usec, 1000000);
        ASSERT_INT_EQ(f.peers[0].last.taken_usec, 2000000);

        /* A firmware update and a PCIe link that trained down: the baseline says nothing of them. */
        snprintf(other.state.firmware, sizeof(other.state.firmware), "4.80 0x80015b7c 1.3534.0");
        other.state.pcie_speed_mts = 8000;
        ASSERT_INT_EQ(rdma_node_state_differs(&m.state, &other.state, &changes), 1);
        ASSERT_STR_EQ(
                changes,
                "firmware 4.91 0x8001a2ff 1.3682.0 → 4.80 0x80015b7c 1.3534.0, PCIe 16 GT/s x4 → PCIe 8 GT/s x4");
        ASSERT_INT_EQ(rdma_baseline_record(&f, "node2", &other, false), RDMA_BASELINE_RETAKEN);
        ASSERT_INT_EQ(f.peers[0].baseline.taken_usec, 3000000);
        ASSERT_INT_EQ(rdma_baseline_record(&f, "node2", &m, true), RDMA_BASELINE_REPLACED);
        ASSERT_INT_EQ(f.peers[0].baseline.taken_usec, 1000000);

        /* What a reader cannot know (0, "") is not a change. */
        other = m;
        other.state.firmware[0] = '\0';
        other.state.port_mbit = 0;
        ASSERT_INT_EQ(rdma_node_state_differs(&m.state, &other.state, NULL), 0);
        ASSERT_INT_EQ(rdma_baseline_record(&f, "", &m, false), -EINVAL);
}

static void test_round_trip(void) {
        _cleanup_(rdma_baseline_file_done) RdmaBaselineFile f = {}, g = {};
        _cleanup_(freep) char *text = NULL, *again = NULL, *error = NULL;
        RdmaMeasurement a = reference(1764295800000000ULL), b = reference(1764296100000000ULL),
                        c = reference(1764296200000000ULL);

        b.rtt_median_nsec = 9000;
        c.device[0] = '\0';
        /* The driver's firmware string is not ours: what the file cannot hold is made safe. */
        snprintf(c.state.firmware, sizeof(c.state.firmware), "4.91\n[x y]\x1b");
        /* Not known: written empty, read back empty. */
        b.state.port_mbit = 0;
        ASSERT_OK(rdma_baseline_record(&f, "node2", &a, false));
        ASSERT_OK(rdma_baseline_record(&f, "node2", &b, false));
        ASSERT_OK(rdma_baseline_record(&f, "node3", &c, false));
        ASSERT_OK(rdma_baseline_format(&f, &text));
        ASSERT_OK(rdma_baseline_parse(text, &g, &error));
        ASSERT_TRUE(!error);
        ASSERT_INT_EQ(g.n_peers, 2);
        ASSERT_STR_EQ(g.peers[0].node, "node2");
        assert_same_measurement(&g.peers[0].baseline, &a);
        assert_same_measurement(&g.peers[0].last, &b);
        ASSERT_STR_EQ(g.peers[1].node, "node3");
        ASSERT_STR_EQ(g.peers[1].last.state.firmware, "4.91?[x y]?");
        ASSERT_STR_EQ(g.peers[1].last.device, "-");
        ASSERT_OK(rdma_baseline_format(&g, &again));
        ASSERT_TRUE(strstr(again, "firmware 4.91?[x y]?\n"));
        ASSERT_TRUE(strstr(text, "firmware 4.91 0x8001a2ff 1.3682.0\n"));
        ASSERT_TRUE(strstr(text, "[node2 baseline]\n") && strstr(text, "[node3 last]\n"));
}

typedef struct CorruptCase {
        const char *name;
        const char *text;
        int error;
        const char *message;
} CorruptCase;

#define SECTION(node, kind)                                                                        \
        "[" node " " kind                                                                          \
        "]\ntaken-usec 1\nlink rdma0\ndevice irdma0\npath-mtu 4096\npings 1000\n"                  \
        "rtt-median-nsec 5000\nrtt-p99-nsec 7000\nwrite-bytes 100\nwrite-nsec 10\nfirmware 4.91\n" \
        "pcie-speed-mts 16000\npcie-width 4\nmtu 9000\nport-mbit 100000\n"

static const CorruptCase corrupt_cases[] = {
        { "empty", "", -EBADMSG, "empty: no 'format 1' line" },
        { "no format line",
          SECTION("n", "baseline"),
          -EBADMSG,
          "line 1: expected 'format 1' first, got '[n baseline]'" },
        { "a later format",
          "# c\nformat 2\n",
          -EPROTONOSUPPORT,
          "line 2: format 2 is not known to this halod, which writes format 1" },
        { "a key before a section",
          "format 1\nmtu 9000\n",
          -EBADMSG,
          "line 2: 'mtu 9000' before any section header '[NODE baseline]'" },
        { "unknown key", "format 1\n[n baseline]\nspeed 5\n", -EBADMSG, "line 3: unknown key 'speed'" },
        { "not a number",
          "format 1\n[n baseline]\nmtu 9k\n",
          -EBADMSG,
          "line 3: mtu: expected a decimal number below 2^32, got '9k'" },
        { "negative",
          "format 1\n[n baseline]\nwrite-bytes -1\n",
          -EBADMSG,
          "line 3: write-bytes: expected a decimal number, got '-1'" },
        { "overflow",
          "format 1\n[n baseline]\nwrite-bytes 18446744073709551616\n",
          -EBADMSG,
          "line 3: write-bytes: expected a decimal number, got '18446744073709551616'" },
        { "a key twice",
          "format 1\n[n baseline]\nmtu 1\nmtu 2\n",
          -EBADMSG,
          "line 4: 'mtu' given twice in [n baseline]" },
        { "a truncated section",
          "format 1\n[n baseline]\ntaken-usec 1\n",
          -EBADMSG,
          "line 2: section [n baseline] has no 'link' line" },
        { "no latest", "format 1\n" SECTION("n", "baseline"), -EBADMSG, "node n has no [n last] section" },
        { "a section twice",
          "format 1\n" SECTION("n", "baseline") SECTION("n", "baseline"),
          -EBADMSG,
          "line 17: section [n baseline] appears twice" },
        { "a bad header",
          "format 1\n[n current]\n",
          -EBADMSG,
          "line 2: expected a section header '[NODE baseline]' or '[NODE last]', got '[n current]'" },
        { "a name with a space",
          "format 1\n" SECTION("n", "baseline") SECTION("n", "last") "[a b last]\n",
          -EBADMSG,
          "line 32: expected a section header '[NODE baseline]' or '[NODE last]', got '[a b last]'" },
        { "a control character",
          "format 1\n[n baseline]\nfirmware 4.91\x1b[2J\n",
          -EBADMSG,
          "line 3: firmware: expected printable characters, got '4.91\x1b[2J'" },
};

static void test_corrupt(void) {
        _cleanup_(rdma_baseline_file_done) RdmaBaselineFile ok = {};
        _cleanup_(freep) char *error = NULL;

        ASSERT_OK(rdma_baseline_parse("format 1\n" SECTION("n", "baseline") SECTION("n", "last"), &ok, &error));
        ASSERT_INT_EQ(ok.n_peers, 1);

        for (size_t i = 0; i < ELEMENTSOF(corrupt_cases); i++) {
                const CorruptCase *t = &corrupt_cases[i];
                RdmaBaselineFile f = {};
                _cleanup_(freep) char *message = NULL;

                fprintf(stderr, "corrupt: %s\n", t->name);
                ASSERT_INT_EQ(rdma_baseline_parse(t->text, &f, &message), t->error);
                ASSERT_STR_EQ(message, t->message);
                ASSERT_INT_EQ(f.n_peers, 0);
        }
}

static char root[] = "/tmp/halod-test-rdma-baseline-XXXXXX";

static const char *at(const char *rel) {
        static char p[512];

        (void) snprintf(p, sizeof(p), "%s%s", root, rel);
        return p;
}

static void test_file(void) {
        _cleanup_(rdma_baseline_file_done) RdmaBaselineFile f = {}, g = {};
        _cleanup_(freep) char *error = NULL, *text = NULL;
        const Host h = { .root = root };
        RdmaMeasurement m = reference(1764295800000000ULL);
        struct stat st;

        ASSERT_TRUE(mkdtemp(root));
        ASSERT_OK(mkdir(at("/var"), 0755));
        ASSERT_OK(mkdir(at("/var/lib"), 0755));

        /* Nothing recorded yet: -ENOENT, and no message. */
        ASSERT_INT_EQ(rdma_baseline_read(&h, &g, &error), -ENOENT);
        ASSERT_TRUE(!error);

        /* Written: the directory made, mode 0644, read back the same. */
        ASSERT_OK(rdma_baseline_record(&f, "node2", &m, false));
        ASSERT_OK(rdma_baseline_write(&h, &f, &error));
        ASSERT_TRUE(stat(at(RDMA_BASELINE_DIR), &st) == 0 && (st.st_mode & 07777) == 0755);
        ASSERT_TRUE(stat(at(RDMA_BASELINE_PATH), &st) == 0 && (st.st_mode & 07777) == 0644);
        ASSERT_OK(rdma_baseline_read(&h, &g, &error));
        ASSERT_INT_EQ(g.n_peers, 1);
        assert_same_measurement(&g.peers[0].baseline, &m);
        rdma_baseline_file_done(&g);

        /* Corrupt: the error names the file and the line, and says what to do. */
        ASSERT_OK(write_file_atomic(at(RDMA_BASELINE_PATH), "format 1\nmtu 9000\n", 18, 0644));
        ASSERT_INT_EQ(rdma_baseline_read(&h, &g, &error), -EBADMSG);
        ASSERT_TRUE(
                asprintf(
                        &text,
                        "%s: line 2: 'mtu 9000' before any section header '[NODE baseline]'; remove it and "
                        "run 'haloctl probe' as root to record the RDMA baseline again",
                        at(RDMA_BASELINE_PATH)) > 0);
        ASSERT_STR_EQ(error, text);
        error = mfree(error);
        text = mfree(text);
        ASSERT_OK(write_file_atomic(at(RDMA_BASELINE_PATH), "format 1\n\0mtu", 13, 0644));
        ASSERT_INT_EQ(rdma_baseline_read(&h, &g, &error), -EBADMSG);
        ASSERT_TRUE(strstr(error, "holds a NUL byte"));
        error = mfree(error);
        ASSERT_OK(rdma_baseline_write(&h, &f, &error));

        /* Writable by its group: not trusted, and the writer leaves the directory alone too. */
        ASSERT_OK(chmod(at(RDMA_BASELINE_PATH), 0664));
        ASSERT_INT_EQ(rdma_baseline_read(&h, &g, &error), -EPERM);
        ASSERT_TRUE(
                strstr(error,
                       "with mode 0664, so its group could have written it; only root's 'haloctl probe' "
                       "writes the RDMA baseline. Run: rm "));
        error = mfree(error);
        ASSERT_OK(chmod(at(RDMA_BASELINE_PATH), 0644));
        ASSERT_OK(chmod(at(RDMA_BASELINE_DIR), 0777));
        ASSERT_INT_EQ(rdma_baseline_read(&h, &g, &error), -EPERM);
        ASSERT_TRUE(strstr(error, "the directory is owned by") && strstr(error, "so anyone could replace"));
        error = mfree(error);
        ASSERT_INT_EQ(rdma_baseline_write(&h, &f, &error), -EPERM);
        error = mfree(error);
        ASSERT_OK(chmod(at(RDMA_BASELINE_DIR), 0755));

        /* A symlink in its place is not followed. */
        ASSERT_OK(unlink(at(RDMA_BASELINE_PATH)));
        ASSERT_OK(symlink("/etc/passwd", at(RDMA_BASELINE_PATH)));
        ASSERT_INT_EQ(rdma_baseline_read(&h, &g, &error), -ELOOP);
        error = mfree(error);
        ASSERT_OK(unlink(at(RDMA_BASELINE_PATH)));

        /* Owned by another user (the user halod, say): root does not trust it. */
        if (geteuid() == 0) {
                ASSERT_OK(rdma_baseline_write(&h, &f, &error));
                ASSERT_OK(chown(at(RDMA_BASELINE_PATH), NOBODY, (gid_t) -1));
                ASSERT_INT_EQ(rdma_baseline_read(&h, &g, &error), -EPERM);
                ASSERT_TRUE(strstr(
                        error,
                        "owned by nobody (uid 65534) with mode 0644, so its owner could have written it"));
                error = mfree(error);
                ASSERT_OK(chown(at(RDMA_BASELINE_PATH), 0, (gid_t) -1));
                ASSERT_OK(chown(at(RDMA_BASELINE_DIR), NOBODY, (gid_t) -1));
                ASSERT_INT_EQ(rdma_baseline_read(&h, &g, &error), -EPERM);
                ASSERT_TRUE(strstr(error, "the directory is owned by nobody (uid 65534)"));
                error = mfree(error);
        } else if (getenv("CI")) {
                fprintf(stderr, "CI=true: the owner cases need root\n");
                abort();
        }

        ASSERT_OK(unlink(at(RDMA_BASELINE_PATH)));
        ASSERT_OK(rmdir(at(RDMA_BASELINE_DIR)));
        ASSERT_OK(rmdir(at("/var/lib")));
        ASSERT_OK(rmdir(at("/var")));
        ASSERT_OK(rmdir(root));
}

int main(void) {
        test_record();
        test_round_trip();
        test_corrupt();
        test_file();
        return 0;
}
