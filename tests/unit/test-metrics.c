/* SPDX-License-Identifier: MIT */
/* Tests the Prometheus textfile rendering: checks, health, peers and NIC facts to text lines, the
 * escaping of label values, the atomic write, the NIC facts gathered from a fixture host, and the qos
 * counters. */
#include <dirent.h>
#include <sys/stat.h>

#include "basic/fileio.h"
#include "basic/strv.h"
#include "config.h"
#include "export/metrics.h"
#include "tests.h"

#define HOSTS TEST_DATA_DIR "/hosts/"

static char *render(const MetricsInput *in) {
        char *text = NULL;

        ASSERT_OK(metrics_render(in, &text));
        ASSERT_TRUE(text);
        return text;
}

/* True when text holds line as a whole line. */
static bool has_line(const char *text, const char *line) {
        size_t n = strlen(line);

        for (const char *p = text; (p = strstr(p, line)); p++)
                if ((p == text || p[-1] == '\n') && p[n] == '\n')
                        return true;
        return false;
}

static void assert_lines(const char *text, const char *const *want, const char *const *unwanted) {
        for (size_t i = 0; want && want[i]; i++)
                if (!has_line(text, want[i])) {
                        fprintf(stderr, "missing line: %s\nin:\n%s", want[i], text);
                        abort();
                }
        for (size_t i = 0; unwanted && unwanted[i]; i++)
                if (strstr(text, unwanted[i])) {
                        fprintf(stderr, "unexpected: %s\nin:\n%s", unwanted[i], text);
                        abort();
                }
}

static void test_health_and_empty(void) {
        static const struct {
                Health health;
                const char *one;
        } cases[] = {
                { HEALTH_STARTING, "halod_health{state=\"starting\"} 1" },
                { HEALTH_HEALTHY, "halod_health{state=\"healthy\"} 1" },
                { HEALTH_DEGRADED, "halod_health{state=\"degraded\"} 1" },
                { HEALTH_FAILED, "halod_health{state=\"failed\"} 1" },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                MetricsInput in = { .health = cases[i].health };
                _cleanup_(freep) char *text = render(&in);
                size_t ones = 0;

                assert_lines(
                        text,
                        (const char *const[]){ "# HELP halod_health The node's health (starting, healthy, "
                                               "degraded, failed): 1 for the current state, 0 for the others.",
                                               "# TYPE halod_health gauge",
                                               cases[i].one,
                                               "halod_checks{outcome=\"fail\"} 0",
                                               NULL },
                        /* Nothing verified yet: no timestamp, no per-check, peer or NIC family. */
                        (const char *const[]){ "halod_last_verify_timestamp_seconds",
                                               "halod_check_status",
                                               "halod_peer_",
                                               "halod_nic_",
                                               "halod_node_info",
                                               NULL });
                for (const char *p = text; (p = strstr(p, "\"} 1\n")); p++)
                        ones++;
                /* Exactly one state is 1; halod_checks counts are all 0. */
                ASSERT_INT_EQ(ones, 1);
        }

        MetricsInput bad = { .health = _HEALTH_MAX };
        char *text = NULL;
        ASSERT_INT_EQ(metrics_render(&bad, &text), -EINVAL);
        ASSERT_TRUE(!text);
}

static void test_checks(void) {
        static const struct {
                const char *id;
                CheckOutcome outcome;
                const char *lines[5];
        } cases[] = {
                { "nic.firmware",
                  CHECK_FAIL,
                  { "halod_check_status{check=\"nic.firmware\",outcome=\"pass\"} 0",
                    "halod_check_status{check=\"nic.firmware\",outcome=\"skip\"} 0",
                    "halod_check_status{check=\"nic.firmware\",outcome=\"warn\"} 0",
                    "halod_check_status{check=\"nic.firmware\",outcome=\"fail\"} 1" } },
                { "link.rdma0.mtu",
                  CHECK_PASS,
                  { "halod_check_status{check=\"link.rdma0.mtu\",outcome=\"pass\"} 1",
                    "halod_check_status{check=\"link.rdma0.mtu\",outcome=\"skip\"} 0",
                    "halod_check_status{check=\"link.rdma0.mtu\",outcome=\"warn\"} 0",
                    "halod_check_status{check=\"link.rdma0.mtu\",outcome=\"fail\"} 0" } },
                { "kernel.cmdline-next",
                  CHECK_WARN,
                  { "halod_check_status{check=\"kernel.cmdline-next\",outcome=\"pass\"} 0",
                    "halod_check_status{check=\"kernel.cmdline-next\",outcome=\"warn\"} 1" } },
                { "peer.worker.latency",
                  CHECK_SKIP,
                  { "halod_check_status{check=\"peer.worker.latency\",outcome=\"skip\"} 1",
                    "halod_check_status{check=\"peer.worker.latency\",outcome=\"fail\"} 0" } },
                { "rdma.gid", CHECK_PASS, { "halod_check_status{check=\"rdma.gid\",outcome=\"pass\"} 1" } },
        };
        CheckList l = {};
        MetricsInput in = { .health = HEALTH_DEGRADED, .checks = &l };
        _cleanup_(freep) char *text = NULL;

        for (size_t i = 0; i < ELEMENTSOF(cases); i++)
                ASSERT_OK(check_list_add(
                        &l, cases[i].id, cases[i].outcome, "≥ 4.91", "4.80", "summary \"%s\"\n", "not exported"));
        text = render(&in);

        for (size_t i = 0; i < ELEMENTSOF(cases); i++)
                assert_lines(text, cases[i].lines, NULL);
        assert_lines(
                text,
                (const char *const[]){ "# TYPE halod_check_status gauge",
                                       "# TYPE halod_checks gauge",
                                       "halod_checks{outcome=\"pass\"} 2",
                                       "halod_checks{outcome=\"skip\"} 1",
                                       "halod_checks{outcome=\"warn\"} 1",
                                       "halod_checks{outcome=\"fail\"} 1",
                                       NULL },
                /* Summaries, expected and actual values change with every run: never labels. */
                (const char *const[]){ "not exported", "4.80", NULL });
        check_list_done(&l);
}

static void test_node_and_timestamp(void) {
        MetricsInput in = { .cluster = "strix-halo",
                            .node = "head",
                            .health = HEALTH_HEALTHY,
                            .last_verify_usec = 1732240000123456ULL };
        _cleanup_(freep) char *text = render(&in);

        assert_lines(
                text,
                (const char *const[]){ "halod_node_info{cluster=\"strix-halo\",node=\"head\"} 1",
                                       "# TYPE halod_last_verify_timestamp_seconds gauge",
                                       "halod_last_verify_timestamp_seconds 1732240000.123456",
                                       NULL },
                NULL);

        in.last_verify_usec = 5;
        free(text);
        text = render(&in);
        assert_lines(text, (const char *const[]){ "halod_last_verify_timestamp_seconds 0.000005", NULL }, NULL);

        /* The digest the peers compare, so that an alert compares it across every node. */
        in.profile_digest = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
        free(text);
        text = render(&in);
        assert_lines(
                text,
                (const char *const[]){
                        "halod_node_info{cluster=\"strix-halo\",node=\"head\",profile_digest=\"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08\"} 1",
                        NULL },
                NULL);
}

static void test_peers(void) {
        PeerStatus rows[] = {
                { .node = (char *) "worker",
                  .address = "192.168.100.2",
                  .reachable = true,
                  .rtt_median_usec = 42,
                  .rtt_p99_usec = 1097 },
                { .node = (char *) "middle", .address = "192.168.101.2", .reachable = false },
        };
        PeerStatusList peers = { .peers = rows, .n_peers = ELEMENTSOF(rows) };
        MetricsInput in = { .health = HEALTH_HEALTHY, .peers = &peers };
        _cleanup_(freep) char *text = render(&in);

        assert_lines(
                text,
                (const char *const[]){
                        "# TYPE halod_peer_reachable gauge",
                        "halod_peer_reachable{peer=\"worker\",address=\"192.168.100.2\"} 1",
                        "halod_peer_reachable{peer=\"middle\",address=\"192.168.101.2\"} 0",
                        "# TYPE halod_peer_rtt_median_seconds gauge",
                        "halod_peer_rtt_median_seconds{peer=\"worker\",address=\"192.168.100.2\"} 0.000042",
                        "# TYPE halod_peer_rtt_p99_seconds gauge",
                        "halod_peer_rtt_p99_seconds{peer=\"worker\",address=\"192.168.100.2\"} 0.001097",
                        NULL },
                /* An unreachable peer has no round trip, not a round trip of 0. */
                (const char *const[]){ "{peer=\"middle\",address=\"192.168.101.2\"} 0.", NULL });

        /* Nobody answers: no rtt family at all (a HELP/TYPE without samples says nothing). */
        rows[0].reachable = false;
        free(text);
        text = render(&in);
        assert_lines(
                text,
                (const char *const[]){ "halod_peer_reachable{peer=\"worker\",address=\"192.168.100.2\"} 0",
                                       NULL },
                (const char *const[]){ "halod_peer_rtt", NULL });
}

static void test_nics(void) {
        MetricsNic nics[] = {
                { .link = (char *) "rdma0",
                  .ifname = (char *) "enp194s0np0",
                  .pci = (char *) "0000:c2:00.0",
                  .pcie_width = 4,
                  .pcie_max_width = 16,
                  .pcie_speed_mts = 16000,
                  .pcie_max_speed_mts = 16000,
                  .driver = (char *) "ice",
                  .driver_version = (char *) "6.18.4",
                  .firmware = (char *) "4.91 0x800214b5 1.3909.0" },
                /* A link whose NIC was not found: nothing known, nothing exported. */
                { .link = (char *) "rdma1" },
                /* veth: a driver, no PCI device, no firmware. */
                { .link = (char *) "rdma2", .ifname = (char *) "mx0", .driver = (char *) "veth" },
        };
        MetricsInput in = { .health = HEALTH_HEALTHY, .nics = nics, .n_nics = ELEMENTSOF(nics) };
        _cleanup_(freep) char *text = render(&in);

        assert_lines(
                text,
                (const char *const[]){
                        "# TYPE halod_nic_pcie_link_width gauge",
                        "halod_nic_pcie_link_width{link=\"rdma0\",pci=\"0000:c2:00.0\"} 4",
                        "halod_nic_pcie_link_max_width{link=\"rdma0\",pci=\"0000:c2:00.0\"} 16",
                        "halod_nic_pcie_link_speed_transfers_per_second{link=\"rdma0\",pci=\"0000:c2:00.0\"} 16000000000",
                        "halod_nic_pcie_link_max_speed_transfers_per_second{link=\"rdma0\",pci=\"0000:c2:00.0\"} 16000000000",
                        "# TYPE halod_nic_firmware_info gauge",
                        "halod_nic_firmware_info{link=\"rdma0\",ifname=\"enp194s0np0\",pci=\"0000:c2:00.0\","
                        "driver=\"ice\",driver_version=\"6.18.4\",version=\"4.91\",firmware=\"4.91 0x800214b5 1.3909.0\"} 1",
                        "halod_nic_firmware_info{link=\"rdma2\",ifname=\"mx0\",driver=\"veth\"} 1",
                        NULL },
                (const char *const[]){ "link=\"rdma1\"", "{link=\"rdma2\",pci", NULL });

        /* mlx5's string: the version is the first numeric token. */
        nics[0].driver = (char *) "mlx5_core";
        nics[0].firmware = (char *) "16.35.2000 (MT_0000000012)";
        free(text);
        text = render(&in);
        assert_lines(
                text,
                (const char *const[]){
                        "halod_nic_firmware_info{link=\"rdma0\",ifname=\"enp194s0np0\",pci=\"0000:c2:00.0\","
                        "driver=\"mlx5_core\",driver_version=\"6.18.4\",version=\"16.35.2000\","
                        "firmware=\"16.35.2000 (MT_0000000012)\"} 1",
                        NULL },
                NULL);

        /* From devlink: the running version, its source, the board id, the DDP package, and whether a
         * stored firmware waits for activation. */
        nics[0].driver = (char *) "ice";
        nics[0].firmware = (char *) "4.40 0x8001c967 1.3534.0";
        nics[0].version = (char *) "4.40";
        nics[0].source = (char *) "devlink";
        nics[0].board_id = (char *) "K91258-000";
        nics[0].ddp = (char *) "ICE OS Default Package 1.3.36.0";
        nics[0].stored_known = nics[0].activation_pending = true;
        free(text);
        text = render(&in);
        assert_lines(
                text,
                (const char *const[]){
                        "halod_nic_firmware_info{link=\"rdma0\",ifname=\"enp194s0np0\",pci=\"0000:c2:00.0\","
                        "driver=\"ice\",driver_version=\"6.18.4\",version=\"4.40\",firmware=\"4.40 0x8001c967 "
                        "1.3534.0\",source=\"devlink\",board_id=\"K91258-000\",ddp=\"ICE OS Default Package "
                        "1.3.36.0\"} 1",
                        "# TYPE halod_nic_firmware_activation_pending gauge",
                        "halod_nic_firmware_activation_pending{link=\"rdma0\",pci=\"0000:c2:00.0\"} 1",
                        NULL },
                (const char *const[]){ "halod_nic_firmware_activation_pending{link=\"rdma2\"", NULL });
        nics[0].activation_pending = false;
        free(text);
        text = render(&in);
        assert_lines(
                text,
                (const char *const[]){
                        "halod_nic_firmware_activation_pending{link=\"rdma0\",pci=\"0000:c2:00.0\"} 0", NULL },
                NULL);
        /* devlink did not say: no sample, rather than a 0 that means "nothing pending". */
        nics[0].stored_known = false;
        free(text);
        text = render(&in);
        assert_lines(text, NULL, (const char *const[]){ "halod_nic_firmware_activation_pending", NULL });
        nics[0].version = nics[0].source = nics[0].board_id = nics[0].ddp = NULL;

        /* No PCIe capability read: no sample, rather than a width of 0. */
        nics[0].pcie_width = nics[0].pcie_max_width = nics[0].pcie_speed_mts = nics[0].pcie_max_speed_mts = 0;
        free(text);
        text = render(&in);
        assert_lines(text, NULL, (const char *const[]){ "halod_nic_pcie", NULL });
}

static void test_escaping(void) {
        static const struct {
                const char *raw;
                const char *escaped;
        } cases[] = {
                { "nic.firmware", "nic.firmware" },
                { "", "" },
                { "say \"hi\"", "say \\\"hi\\\"" },
                { "C:\\NVM\\", "C:\\\\NVM\\\\" },
                { "two\nlines\n", "two\\nlines\\n" },
                { "\\n", "\\\\n" }, /* a backslash and an n, not a newline */
                { "\"\\\n", "\\\"\\\\\\n" },
                { "tab\there\rcr\x1b[0m\x7f", "tab?here?cr?[0m?" },
                { "gr\xc3\xbc\xc3\x9f \xe2\x89\xa5 4.91 \xf0\x9f\x94\xa5",
                  "gr\xc3\xbc\xc3\x9f \xe2\x89\xa5 4.91 \xf0\x9f\x94\xa5" },
                { "latin1 \xfc", "latin1 ?" },
                { "cut \xe2\x89", "cut ??" },
                { "overlong \xc0\xaf", "overlong ??" },
                { "surrogate \xed\xa0\x80", "surrogate ???" },
                { "too big \xf4\x90\x80\x80", "too big ????" },
                { "lone continuation \x80x", "lone continuation ?x" },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_(freep) char *buf = NULL;
                size_t size = 0;
                FILE *f = open_memstream(&buf, &size);

                ASSERT_TRUE(f);
                metrics_write_label_value(f, cases[i].raw);
                ASSERT_INT_EQ(fclose(f), 0);
                ASSERT_STR_EQ(buf, cases[i].escaped);
        }

        /* And in place, in a label of a sample. */
        PeerStatus row = { .node = (char *) "a\"b\\c\nd", .address = "192.168.100.2" };
        PeerStatusList peers = { .peers = &row, .n_peers = 1 };
        MetricsInput in = { .health = HEALTH_HEALTHY, .peers = &peers };
        _cleanup_(freep) char *text = render(&in);
        assert_lines(
                text,
                (const char *const[]){
                        "halod_peer_reachable{peer=\"a\\\"b\\\\c\\nd\",address=\"192.168.100.2\"} 0", NULL },
                NULL);
}

/* The whole file for a small node: the exact text, families in their fixed order. */
static void test_golden(void) {
        static const char expected[] =
                "# HELP halod_node_info The cluster, node and profile digest (SHA-256 of the normalized profile) in "
                "force; always 1.\n"
                "# TYPE halod_node_info gauge\n"
                "halod_node_info{cluster=\"strix-halo\",node=\"head\"} 1\n"
                "# HELP halod_health The node's health (starting, healthy, degraded, failed): 1 for the current "
                "state, 0 for the others.\n"
                "# TYPE halod_health gauge\n"
                "halod_health{state=\"starting\"} 0\n"
                "halod_health{state=\"healthy\"} 0\n"
                "halod_health{state=\"degraded\"} 1\n"
                "halod_health{state=\"failed\"} 0\n"
                "# HELP halod_last_verify_timestamp_seconds When the checks in this file were run, in seconds "
                "since the Unix epoch.\n"
                "# TYPE halod_last_verify_timestamp_seconds gauge\n"
                "halod_last_verify_timestamp_seconds 1732240000.500000\n"
                "# HELP halod_checks How many checks ended with each outcome in the last verify.\n"
                "# TYPE halod_checks gauge\n"
                "halod_checks{outcome=\"pass\"} 0\n"
                "halod_checks{outcome=\"skip\"} 0\n"
                "halod_checks{outcome=\"warn\"} 0\n"
                "halod_checks{outcome=\"fail\"} 1\n"
                "# HELP halod_reboot_required 1 when a reboot would bring into force what the running system "
                "lacks (the PendingReboot property: kernel parameters the next boot carries, systemd's "
                "DefaultLimitMEMLOCK not yet read); else 0.\n"
                "# TYPE halod_reboot_required gauge\n"
                "halod_reboot_required 0\n"
                "# HELP halod_check_status The outcome of each check (pass, skip, warn, fail): 1 for its outcome "
                "in the last verify, 0 for the others.\n"
                "# TYPE halod_check_status gauge\n"
                "halod_check_status{check=\"nic.firmware\",outcome=\"pass\"} 0\n"
                "halod_check_status{check=\"nic.firmware\",outcome=\"skip\"} 0\n"
                "halod_check_status{check=\"nic.firmware\",outcome=\"warn\"} 0\n"
                "halod_check_status{check=\"nic.firmware\",outcome=\"fail\"} 1\n"
                "# HELP halod_peer_reachable 1 when the peer's halod answered the last verify's probes with the "
                "right cluster and node name, else 0.\n"
                "# TYPE halod_peer_reachable gauge\n"
                "halod_peer_reachable{peer=\"worker\",address=\"192.168.100.2\"} 1\n"
                "# HELP halod_peer_rtt_median_seconds Median round trip of the peer channel's UDP echo probes in "
                "the last verify.\n"
                "# TYPE halod_peer_rtt_median_seconds gauge\n"
                "halod_peer_rtt_median_seconds{peer=\"worker\",address=\"192.168.100.2\"} 0.000071\n"
                "# HELP halod_peer_rtt_p99_seconds 99th percentile (nearest rank) round trip of the peer "
                "channel's UDP echo probes in the last verify.\n"
                "# TYPE halod_peer_rtt_p99_seconds gauge\n"
                "halod_peer_rtt_p99_seconds{peer=\"worker\",address=\"192.168.100.2\"} 0.000120\n"
                "# HELP halod_nic_pcie_link_width Negotiated PCIe link width of the fabric NIC, in lanes.\n"
                "# TYPE halod_nic_pcie_link_width gauge\n"
                "halod_nic_pcie_link_width{link=\"rdma0\",pci=\"0000:c2:00.0\"} 4\n"
                "# HELP halod_nic_pcie_link_max_width PCIe link width the fabric NIC is capable of, in lanes.\n"
                "# TYPE halod_nic_pcie_link_max_width gauge\n"
                "halod_nic_pcie_link_max_width{link=\"rdma0\",pci=\"0000:c2:00.0\"} 16\n"
                "# HELP halod_nic_pcie_link_speed_transfers_per_second Negotiated PCIe transfer rate per lane of "
                "the fabric NIC (16e9 for 16 GT/s, Gen4).\n"
                "# TYPE halod_nic_pcie_link_speed_transfers_per_second gauge\n"
                "halod_nic_pcie_link_speed_transfers_per_second{link=\"rdma0\",pci=\"0000:c2:00.0\"} 16000000000\n"
                "# HELP halod_nic_pcie_link_max_speed_transfers_per_second PCIe transfer rate per lane the "
                "fabric NIC is capable of.\n"
                "# TYPE halod_nic_pcie_link_max_speed_transfers_per_second gauge\n"
                "halod_nic_pcie_link_max_speed_transfers_per_second{link=\"rdma0\",pci=\"0000:c2:00.0\"} "
                "16000000000\n"
                "# HELP halod_nic_firmware_info The fabric NIC's driver, firmware, board id and ice DDP package; "
                "always 1. version: what nic.firmware compares, from source (devlink, else ethtool); firmware: "
                "ETHTOOL_GDRVINFO's whole string.\n"
                "# TYPE halod_nic_firmware_info gauge\n"
                "halod_nic_firmware_info{link=\"rdma0\",ifname=\"enp194s0np0\",pci=\"0000:c2:00.0\",driver=\"ice\","
                "version=\"4.80\",firmware=\"4.80 0x80020543 1.3805.0\"} 1\n";
        CheckList l = {};
        PeerStatus row = { .node = (char *) "worker",
                           .address = "192.168.100.2",
                           .reachable = true,
                           .rtt_median_usec = 71,
                           .rtt_p99_usec = 120 };
        PeerStatusList peers = { .peers = &row, .n_peers = 1 };
        MetricsNic nic = { .link = (char *) "rdma0",
                           .ifname = (char *) "enp194s0np0",
                           .pci = (char *) "0000:c2:00.0",
                           .pcie_width = 4,
                           .pcie_max_width = 16,
                           .pcie_speed_mts = 16000,
                           .pcie_max_speed_mts = 16000,
                           .driver = (char *) "ice",
                           .firmware = (char *) "4.80 0x80020543 1.3805.0" };
        MetricsInput in = { .cluster = "strix-halo",
                            .node = "head",
                            .health = HEALTH_DEGRADED,
                            .checks = &l,
                            .peers = &peers,
                            .nics = &nic,
                            .n_nics = 1,
                            .last_verify_usec = 1732240000500000ULL };
        _cleanup_(freep) char *text = NULL;

        ASSERT_OK(check_list_add(&l, "nic.firmware", CHECK_FAIL, "≥ 4.91", "4.80", "firmware 4.80 < 4.91"));
        text = render(&in);
        ASSERT_STR_EQ(text, expected);
        check_list_done(&l);
}

static void test_write_textfile(void) {
        char dir[] = "/tmp/halod-test-mx-XXXXXX";
        _cleanup_(freep) char *path = NULL, *text = NULL, *read = NULL;
        MetricsInput in = { .health = HEALTH_HEALTHY, .last_verify_usec = 1000000 };
        struct stat st;
        struct dirent *de;
        DIR *d;
        size_t n = 0;

        ASSERT_TRUE(mkdtemp(dir));
        ASSERT_TRUE(asprintf(&path, "%s/halod.prom", dir) > 0);

        /* Twice: the second replaces the first in place. */
        ASSERT_OK(write_file_atomic(path, "old", 3, 0600));
        ASSERT_OK(metrics_write_textfile(&in, path));
        text = render(&in);
        ASSERT_OK(read_full_file(path, 1 << 20, &read, NULL));
        ASSERT_STR_EQ(read, text);
        ASSERT_TRUE(stat(path, &st) == 0);
        /* node_exporter runs as another user: it must be able to read the file. */
        ASSERT_INT_EQ(st.st_mode & 07777, 0644);

        /* Nothing but the file is left beside it (no temporary file). */
        d = opendir(dir);
        ASSERT_TRUE(d);
        while ((de = readdir(d)))
                if (!streq(de->d_name, ".") && !streq(de->d_name, "..")) {
                        ASSERT_STR_EQ(de->d_name, "halod.prom");
                        n++;
                }
        closedir(d);
        ASSERT_INT_EQ(n, 1);
        ASSERT_TRUE(unlink(path) == 0);

        /* Whatever someone put at the path, a symlink or a FIFO, is replaced, not followed or opened:
         * the symlink's target keeps its content, and the write does not wait for the FIFO's reader. */
        {
                _cleanup_(freep) char *target = NULL, *kept = NULL;

                ASSERT_TRUE(asprintf(&target, "%s/elsewhere", dir) > 0);
                ASSERT_OK(write_file_atomic(target, "theirs", 6, 0644));
                ASSERT_TRUE(symlink(target, path) == 0);
                ASSERT_OK(metrics_write_textfile(&in, path));
                ASSERT_TRUE(lstat(path, &st) == 0 && S_ISREG(st.st_mode));
                ASSERT_OK(read_full_file(target, 64, &kept, NULL));
                ASSERT_STR_EQ(kept, "theirs");
                ASSERT_TRUE(unlink(path) == 0 && unlink(target) == 0);
                ASSERT_TRUE(mkfifo(path, 0644) == 0);
                ASSERT_OK(metrics_write_textfile(&in, path));
                ASSERT_TRUE(lstat(path, &st) == 0 && S_ISREG(st.st_mode));
                ASSERT_TRUE(unlink(path) == 0);
        }

        /* A directory that does not exist: the error, and nothing written. */
        free(path);
        path = NULL;
        ASSERT_TRUE(asprintf(&path, "%s/missing/halod.prom", dir) > 0);
        ASSERT_INT_EQ(metrics_write_textfile(&in, path), -ENOENT);
        ASSERT_TRUE(rmdir(dir) == 0);
}

static void test_nics_gather(void) {
        static const char yaml[] =
                "cluster: test\n"
                "links:\n"
                "  rdma0:\n"
                "    match: { driver: ice }\n"
                "nic:\n"
                "  pci-ids: [\"8086:1592\"]\n"
                "nodes:\n"
                "  head: { links: { rdma0: 192.168.100.1/30 } }\n";
        _cleanup_(profile_freep) Profile *p = NULL;
        _cleanup_(strv_freep) char **errors = NULL;
        Host h = { .root = HOSTS "nic-e810-x4" }, absent = { .root = HOSTS "nic-absent" };
        NodeContext c = { .host = &h };
        Snapshot own = {};
        MetricsNic *nics = NULL;
        size_t n = 0;

        ASSERT_OK(profile_load_string("test.yaml", yaml, strlen(yaml), &p, &errors));
        c.profile = p;
        c.node = profile_find_node(p, "head");

        snapshot_init(&own, &c);
        ASSERT_OK(metrics_nics_gather(&own, &nics, &n));
        ASSERT_INT_EQ(n, 1);
        ASSERT_STR_EQ(nics[0].link, "rdma0");
        ASSERT_STR_EQ(nics[0].ifname, "enp194s0np0");
        ASSERT_STR_EQ(nics[0].pci, "0000:c2:00.0");
        ASSERT_STR_EQ(nics[0].driver, "ice");
#if HAVE_LIBPCI
        ASSERT_INT_EQ(nics[0].pcie_width, 4);
        ASSERT_INT_EQ(nics[0].pcie_max_width, 16);
        ASSERT_INT_EQ(nics[0].pcie_speed_mts, 16000);
        ASSERT_INT_EQ(nics[0].pcie_max_speed_mts, 16000);
#endif
        /* A fixture tree has no ioctl and no devlink to ask: the firmware stays unknown; the DDP
         * package comes from the tree's kernel log. */
        ASSERT_TRUE(!nics[0].firmware && !nics[0].version && !nics[0].source && !nics[0].board_id);
        ASSERT_TRUE(!nics[0].stored_known);
        ASSERT_STR_EQ(nics[0].ddp, "ICE OS Default Package version 1.3.36.0");
        metrics_nics_free(nics, n);
        snapshot_done(&own);

        /* From a snapshot that has the NIC facts already (the NIC checks of the same verify read
         * them): the same facts, not gathered again. */
        {
                _cleanup_(snapshot_done) Snapshot s = {};
                const NicFacts *facts;

                snapshot_init(&s, &c);
                ASSERT_OK(snapshot_read(&s, SNAPSHOT_NICS));
                facts = s.nics;
                ASSERT_OK(metrics_nics_gather(&s, &nics, &n));
                ASSERT_TRUE(s.nics == facts);
                ASSERT_INT_EQ(n, 1);
                ASSERT_STR_EQ(nics[0].driver, "ice");
                /* Borrowed from the facts, not copied. */
                ASSERT_TRUE(nics[0].link == s.ports[0].link && nics[0].ddp == facts->ddp_package);
                metrics_nics_free(nics, n);
        }

        /* No such NIC: the link is still listed, with nothing known. */
        c.host = &absent;
        snapshot_init(&own, &c);
        ASSERT_OK(metrics_nics_gather(&own, &nics, &n));
        ASSERT_INT_EQ(n, 1);
        ASSERT_STR_EQ(nics[0].link, "rdma0");
        ASSERT_TRUE(!nics[0].pci && !nics[0].firmware && nics[0].pcie_width == 0);
        metrics_nics_free(nics, n);
        snapshot_done(&own);
}

/* The pause frames of the priorities the driver counts, and the RDMA counters the device has. */
static void test_qos(void) {
        MetricsQos q[] = {
                { .link = (char *) "rdma0",
                  .ifname = (char *) "enp1s0f0np0",
                  .pause = { .known = 1U << 3, .rx = { [3] = 12 }, .tx = { [3] = 34 } },
                  .rdma_device = (char *) "mlx5_0",
                  .rdma_port = 1,
                  .hw = { [RDMA_HW_NP_CNP_SENT] = 5, [RDMA_HW_OUT_OF_SEQUENCE] = 2 },
                  .hw_known = 1U << RDMA_HW_NP_CNP_SENT | 1U << RDMA_HW_OUT_OF_SEQUENCE },
                /* veth: no pause counters, no RDMA device. */
                { .link = (char *) "rdma1", .ifname = (char *) "veth0" },
        };
        MetricsInput in = { .health = HEALTH_HEALTHY, .qos = q, .n_qos = ELEMENTSOF(q) };
        _cleanup_(freep) char *text = render(&in);

        assert_lines(
                text,
                (const char *const[]){
                        "# TYPE halod_qos_pause_frames_total counter",
                        "halod_qos_pause_frames_total{link=\"rdma0\",ifname=\"enp1s0f0np0\",priority=\"3\",direction=\"received\"} 12",
                        "halod_qos_pause_frames_total{link=\"rdma0\",ifname=\"enp1s0f0np0\",priority=\"3\",direction=\"sent\"} 34",
                        "# TYPE halod_rdma_cnp_sent_total counter",
                        "halod_rdma_cnp_sent_total{link=\"rdma0\",device=\"mlx5_0\",port=\"1\"} 5",
                        "halod_rdma_out_of_sequence_total{link=\"rdma0\",device=\"mlx5_0\",port=\"1\"} 2",
                        NULL },
                (const char *const[]){ "priority=\"0\"", "veth0", "halod_rdma_cnp_handled_total", NULL });
}

/* The fabric health counters under one vocabulary beside the raw ones: rxe's out_of_seq_request is
 * out_of_sequence, mlx5_ib's out_of_sequence too; what rxe does not count is counted 0, not a 0 value;
 * the netdev's own counters and packets come along. */
static void test_fabric(void) {
        MetricsQos q[] = {
                { .link = (char *) "rdma0",
                  .ifname = (char *) "eth1",
                  .rdma_device = (char *) "rxe0",
                  .rdma_port = 1,
                  .hw = { [RDMA_HW_OUT_OF_SEQUENCE] = 7, [RDMA_HW_RETRANSMITTED] = 3 },
                  .hw_known = 1U << RDMA_HW_OUT_OF_SEQUENCE | 1U << RDMA_HW_RETRANSMITTED,
                  .hw_driver_known = true,
                  .hw_driver = RDMA_COUNTER_DRIVER_RXE,
                  .netdev = { .value = { [NETDEV_RX_CRC_ERRORS] = 4, [NETDEV_CARRIER_DOWN_COUNT] = 2 },
                              .known = 1U << NETDEV_RX_CRC_ERRORS | 1U << NETDEV_CARRIER_DOWN_COUNT },
                  .packets = 1000,
                  .packets_known = true },
                { .link = (char *) "rdma1",
                  .ifname = (char *) "enp1s0f0np0",
                  .rdma_device = (char *) "mlx5_0",
                  .rdma_port = 1,
                  .hw = { [RDMA_HW_OUT_OF_SEQUENCE] = 9 },
                  .hw_known = 1U << RDMA_HW_OUT_OF_SEQUENCE,
                  .hw_driver_known = true,
                  .hw_driver = RDMA_COUNTER_DRIVER_MLX5_IB },
        };
        MetricsInput in = { .health = HEALTH_HEALTHY, .qos = q, .n_qos = ELEMENTSOF(q) };
        _cleanup_(freep) char *text = render(&in);

        assert_lines(
                text,
                (const char *const[]){
                        "# TYPE halod_fabric_events_total counter",
                        "halod_fabric_events_total{link=\"rdma0\",ifname=\"eth1\",event=\"out_of_sequence\",source=\"hw_counters/out_of_seq_request\",driver=\"rxe\"} 7",
                        "halod_fabric_events_total{link=\"rdma0\",ifname=\"eth1\",event=\"retransmitted\",source=\"hw_counters/completer_retry_err\",driver=\"rxe\"} 3",
                        "halod_fabric_events_total{link=\"rdma0\",ifname=\"eth1\",event=\"crc_errors\",source=\"statistics/rx_crc_errors\",driver=\"netdev\"} 4",
                        "halod_fabric_events_total{link=\"rdma0\",ifname=\"eth1\",event=\"carrier_downs\",source=\"carrier_down_count\",driver=\"netdev\"} 2",
                        "halod_fabric_events_total{link=\"rdma1\",ifname=\"enp1s0f0np0\",event=\"out_of_sequence\",source=\"hw_counters/out_of_sequence\",driver=\"mlx5_ib\"} 9",
                        "halod_fabric_packets_total{link=\"rdma0\",ifname=\"eth1\"} 1000",
                        "halod_fabric_counted{link=\"rdma0\",ifname=\"eth1\",event=\"cnp_sent\",driver=\"rxe\"} 0",
                        "halod_fabric_counted{link=\"rdma0\",ifname=\"eth1\",event=\"out_of_sequence\",driver=\"rxe\"} 1",
                        NULL },
                (const char *const[]){ "halod_fabric_packets_total{link=\"rdma1\"", NULL });
}

/* The profile key that turns the textfile on: parsed, and shown in the normalized dump. */
static void test_profile_key(void) {
        static const char yaml[] =
                "cluster: test\n"
                "links: { rdma0: { match: { driver: ice } } }\n"
                "nodes: { head: { links: { rdma0: 192.168.100.1/30 } } }\n"
                "health: { prometheus-textfile: /var/lib/prometheus/node-exporter/halod.prom }\n";
        _cleanup_(profile_freep) Profile *p = NULL;
        _cleanup_(strv_freep) char **errors = NULL;
        _cleanup_(freep) char *json = NULL;
        size_t size = 0;
        JsonWriter w;
        FILE *f;

        ASSERT_OK(profile_load_string("test.yaml", yaml, strlen(yaml), &p, &errors));
        ASSERT_STR_EQ(p->health.prometheus_textfile, "/var/lib/prometheus/node-exporter/halod.prom");

        f = open_memstream(&json, &size);
        ASSERT_TRUE(f);
        json_writer_init(&w, f, /* pretty= */ false);
        profile_dump_json(p, &w);
        json_writer_finish(&w);
        ASSERT_INT_EQ(fclose(f), 0);
        ASSERT_TRUE(strstr(json, "\"prometheus-textfile\":\"/var/lib/prometheus/node-exporter/halod.prom\""));
}

/* halod_reboot_required: 1 while a check says what a reboot brings (PendingReboot), else 0. */
static void test_reboot_required(void) {
        _cleanup_(check_list_done) CheckList l = {};
        MetricsInput in = { .health = HEALTH_DEGRADED, .checks = &l };
        _cleanup_(freep) char *none = NULL, *pending = NULL, *empty = NULL;

        ASSERT_OK(check_list_add(&l, "kernel.cmdline", CHECK_FAIL, "iommu=pt", "", "lacks iommu=pt"));
        none = render(&in);
        assert_lines(
                none,
                (const char *const[]){ "# TYPE halod_reboot_required gauge", "halod_reboot_required 0", NULL },
                NULL);
        ASSERT_OK(check_list_set_pending_reboot(&l, "kernel command line: iommu=pt"));
        pending = render(&in);
        assert_lines(pending, (const char *const[]){ "halod_reboot_required 1", NULL }, NULL);
        in.checks = NULL;
        empty = render(&in);
        assert_lines(empty, (const char *const[]){ "halod_reboot_required 0", NULL }, NULL);
}

int main(void) {
        test_health_and_empty();
        test_checks();
        test_reboot_required();
        test_node_and_timestamp();
        test_peers();
        test_nics();
        test_escaping();
        test_golden();
        test_write_textfile();
        test_nics_gather();
        test_qos();
        test_fabric();
        test_profile_key();
        return EXIT_SUCCESS;
}
