/* SPDX-License-Identifier: MIT */
/* Writes a textfile with every metric family halod exports, label values that need escaping among
 * them, for test-metrics-promtool.sh to hand to `promtool check metrics`.
 * Usage: metrics-sample FILE */
#include <stdio.h>

#include "export/metrics.h"

int main(int argc, char *argv[]) {
        static const struct {
                const char *id;
                CheckOutcome outcome;
        } checks[] = {
                { "profile", CHECK_PASS },
                { "link.rdma0.mtu", CHECK_PASS },
                { "kernel.cmdline-next", CHECK_WARN },
                { "nic.firmware", CHECK_FAIL },
                { "rdma.device", CHECK_SKIP },
                { "peer.worker.latency", CHECK_PASS },
                { "peer.worker.reachable", CHECK_PASS },
                { "peer.worker.mtu", CHECK_PASS },
                { "peer.worker.profile", CHECK_PASS },
                { "peer.worker.rdma", CHECK_PASS },
                { "rdma.port", CHECK_PASS },
                { "rdma.gid", CHECK_PASS },
                { "qos.rdma1.pause", CHECK_WARN },
        };
        PeerStatus peers[] = {
                { .node = (char *) "worker",
                  .address = "192.168.100.2",
                  .reachable = true,
                  .rtt_median_usec = 42,
                  .rtt_p99_usec = 97 },
                { .node = (char *) "odd \"name\" with \\ and\nnewline", .address = "192.168.101.2" },
        };
        PeerStatusList peer_list = { .peers = peers, .n_peers = ELEMENTSOF(peers) };
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
                  .firmware = (char *) "4.91 0x800214b5 1.3909.0",
                  .version = (char *) "4.91",
                  .source = (char *) "devlink",
                  .board_id = (char *) "K91258-000",
                  .ddp = (char *) "ICE OS Default Package 1.3.36.0",
                  .stored_known = true,
                  .activation_pending = true },
                { .link = (char *) "rdma1",
                  .ifname = (char *) "enp195s0np0",
                  .pci = (char *) "0000:c3:00.0",
                  .pcie_width = 8,
                  .pcie_max_width = 16,
                  .pcie_speed_mts = 2500,
                  .pcie_max_speed_mts = 32000,
                  .driver = (char *) "mlx5_core",
                  /* Not UTF-8, and a quote: what a broken driver could put in fw_version. */
                  .firmware = (char *) "16.35.2000 (MT_\xff\"12)" },
        };
        MetricsQos qos[] = {
                { .link = (char *) "rdma1",
                  .ifname = (char *) "enp195s0np0",
                  .pause = { .known = 1U << 3, .rx = { [3] = 12 }, .tx = { [3] = 34 } },
                  .rdma_device = (char *) "mlx5_0",
                  .rdma_port = 1,
                  .hw_known = (1U << _RDMA_HW_COUNTER_MAX) - 1,
                  .hw_driver_known = true,
                  .hw_driver = RDMA_COUNTER_DRIVER_MLX5_IB,
                  .netdev = { .known = (1U << _NETDEV_COUNTER_MAX) - 1 },
                  .packets = 123456789,
                  .packets_known = true },
        };
        MetricsGid gids[] = {
                { .link = (char *) "rdma1", .device = (char *) "mlx5_0", .port = 1, .index = 3 },
        };
        FabricTransportPeer transport_peers[] = {
                { .node = (char *) "worker",
                  .tcp_sent_total = 750000000,
                  .tcp_received_total = 1200,
                  .fallback = true },
        };
        RdmaQpHolder holders[] = { { .pid = 4242, .name = "ib_write_bw", .n_qps = 2 } };
        FabricTransportState transport = { .has_sample = true,
                                           .last = { .rdma_has_bytes = true,
                                                     .rdma_bytes = 123456789,
                                                     .rdma_devices = (char *[]){ (char *) "mlx5_0/1", NULL },
                                                     .holders = holders,
                                                     .n_holders = ELEMENTSOF(holders) },
                                           .peers = transport_peers,
                                           .n_peers = ELEMENTSOF(transport_peers) };
        CheckList l = {};
        MetricsInput in = { .cluster = "strix-halo",
                            .node = "head",
                            .profile_digest = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
                            .health = HEALTH_DEGRADED,
                            .checks = &l,
                            .peers = &peer_list,
                            .nics = nics,
                            .n_nics = ELEMENTSOF(nics),
                            .qos = qos,
                            .n_qos = ELEMENTSOF(qos),
                            .gids = gids,
                            .n_gids = ELEMENTSOF(gids),
                            .last_verify_usec = 1732240000123456ULL,
                            .transport = &transport };
        int r;

        if (argc != 2) {
                fprintf(stderr, "Usage: %s FILE\n", argv[0]);
                return EXIT_FAILURE;
        }
        for (size_t i = 0; i < ELEMENTSOF(checks); i++)
                if (check_list_add(&l, checks[i].id, checks[i].outcome, NULL, NULL, "sample") < 0) {
                        fprintf(stderr, "Out of memory.\n");
                        return EXIT_FAILURE;
                }
        r = metrics_write_textfile(&in, argv[1]);
        check_list_done(&l);
        if (r < 0) {
                fprintf(stderr, "Failed to write %s: %s\n", argv[1], strerror(-r));
                return EXIT_FAILURE;
        }
        return EXIT_SUCCESS;
}
