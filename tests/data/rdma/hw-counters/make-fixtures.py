#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Writes the host trees of tests/unit/test-check-fabric-health.c: one port of each RDMA driver halod
knows, with the hw_counters files each driver makes, named as its source names them, and the netdev's
statistics/ and carrier files (net/core/net-sysfs.c). Run from this folder; the trees are committed.

- mlx5_ib: drivers/infiniband/hw/mlx5/counters.c: basic_q_cnts, out_of_seq_q_cnts, retrans_q_cnts,
  extended_err_cnts, roce_accl_cnts, cong_cnts; ib_core's PMA counters/ (link_downed, symbol_error).
- irdma on an E810 (GEN2): irdma_hw_stat_names in drivers/infiniband/hw/irdma/verbs.c, gen1 and gen2
  entries (max_stat_idx of GEN2 ends before the GEN3 ones: no RTO, no Nak Sequence Error).
- rxe: rxe_counter_name in drivers/infiniband/sw/rxe/rxe_hw_counters.c; its "parent" attribute
  (rxe_verbs.c, parent_show()) names the netdev.
"""
import os
import shutil

MLX5 = ["rx_write_requests", "rx_read_requests", "rx_atomic_requests", "out_of_buffer",
        "out_of_sequence", "duplicate_request", "rnr_nak_retry_err", "packet_seq_err",
        "implied_nak_seq_err", "local_ack_timeout_err", "resp_local_length_error", "resp_cqe_error",
        "req_cqe_error", "req_remote_invalid_request", "req_remote_access_errors",
        "resp_remote_access_errors", "resp_cqe_flush_error", "req_cqe_flush_error",
        "roce_adp_retrans", "roce_adp_retrans_to", "roce_slow_restart", "roce_slow_restart_cnps",
        "roce_slow_restart_trans", "rp_cnp_ignored", "rp_cnp_handled", "np_ecn_marked_roce_packets",
        "np_cnp_sent"]
MLX5_PMA = ["link_downed", "symbol_error", "port_rcv_packets", "port_xmit_packets",
            "port_rcv_data", "port_xmit_data", "link_error_recovery", "port_rcv_errors"]
IRDMA_GEN2 = ["ip4InDiscards", "ip4InTruncatedPkts", "ip4OutNoRoutes", "ip6InDiscards",
              "ip6InTruncatedPkts", "ip6OutNoRoutes", "tcpRetransSegs", "tcpInOptErrors",
              "tcpInProtoErrors", "rxVlanErrors", "ip4InOctets", "ip4InPkts", "ip4InReasmRqd",
              "ip4InMcastPkts", "ip4OutOctets", "ip4OutPkts", "ip4OutSegRqd", "ip4OutMcastPkts",
              "ip6InOctets", "ip6InPkts", "ip6InReasmRqd", "ip6InMcastPkts", "ip6OutOctets",
              "ip6OutPkts", "ip6OutSegRqd", "ip6OutMcastPkts", "tcpInSegs", "tcpOutSegs",
              "iwInRdmaReads", "iwInRdmaSends", "iwInRdmaWrites", "iwOutRdmaReads",
              "iwOutRdmaSends", "iwOutRdmaWrites", "iwRdmaBnd", "iwRdmaInv", "cnpHandled",
              "cnpIgnored", "cnpSent", "ip4InMcastOctets", "ip4OutMcastOctets", "ip6InMcastOctets",
              "ip6OutMcastOctets", "RxUDP", "TxUDP", "RxECNMrkd"]
RXE = ["sent_pkts", "rcvd_pkts", "duplicate_request", "out_of_seq_request", "rcvd_rnr_err",
       "send_rnr_err", "rcvd_seq_err", "ack_deferred", "retry_exceeded_err",
       "retry_rnr_exceeded_err", "completer_retry_err", "send_err", "link_downed", "rdma_sends",
       "rdma_recvs"]
NETDEV = ["rx_packets", "tx_packets", "rx_crc_errors", "rx_frame_errors", "rx_missed_errors",
          "rx_errors", "tx_errors", "rx_dropped"]


def put(path, value):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(value + "\n")


def tree(name, device, ifname, hw, pma=(), parent=False, gid_ndev=True):
    shutil.rmtree(name, ignore_errors=True)
    port = f"{name}/sys/class/infiniband/{device}/ports/1"
    for c in hw:
        put(f"{port}/hw_counters/{c}", "0")
    for c in pma:
        put(f"{port}/counters/{c}", "0")
    if gid_ndev:
        put(f"{port}/gid_attrs/ndevs/0", ifname)
    if parent:
        put(f"{name}/sys/class/infiniband/{device}/parent", ifname)
    net = f"{name}/sys/class/net/{ifname}"
    for c in NETDEV:
        put(f"{net}/statistics/{c}", "0")
    put(f"{net}/carrier_changes", "1")
    put(f"{net}/carrier_down_count", "0")
    put(f"{net}/carrier_up_count", "1")


tree("mlx5", "mlx5_0", "enp1s0f0np0", MLX5, MLX5_PMA)
tree("irdma-e810", "irdma0", "enp194s0", IRDMA_GEN2)
tree("rxe", "rxe0", "eth1", RXE, parent=True, gid_ndev=False)
