/* SPDX-License-Identifier: MIT */
/* The RDMA port counters that show whether the lossless class works: congestion notification (ECN
 * marks and CNPs), retransmission and sequence errors, and the port going down. Each driver names its
 * hw_counters its own way: mlx5_ib (ConnectX, drivers/infiniband/hw/mlx5/counters.c) one way, irdma
 * (E810, irdma_hw_stat_names in drivers/infiniband/hw/irdma/verbs.c) another, rxe (soft-RoCE,
 * drivers/infiniband/sw/rxe/rxe_hw_counters.c) a third; irdma counts on an E810 (GEN2) only the
 * congestion notification ones. The enum is the one vocabulary; rdma_hw_counter_label() says each in
 * words. */
#pragma once

#include <errno.h>

#include "basic/macro.h"

typedef enum RdmaHwCounter {
        RDMA_HW_NP_ECN_MARKED,         /* np_ecn_marked_roce_packets */
        RDMA_HW_NP_CNP_SENT,           /* np_cnp_sent */
        RDMA_HW_RP_CNP_HANDLED,        /* rp_cnp_handled */
        RDMA_HW_RP_CNP_IGNORED,        /* rp_cnp_ignored */
        RDMA_HW_OUT_OF_SEQUENCE,       /* out_of_sequence */
        RDMA_HW_PACKET_SEQ_ERR,        /* packet_seq_err */
        RDMA_HW_IMPLIED_NAK_SEQ_ERR,   /* implied_nak_seq_err */
        RDMA_HW_LOCAL_ACK_TIMEOUT_ERR, /* local_ack_timeout_err */
        RDMA_HW_DUPLICATE_REQUEST,     /* duplicate_request */
        RDMA_HW_RNR_NAK_RETRY_ERR,     /* rnr_nak_retry_err */
        RDMA_HW_RETRANSMITTED,         /* mlx5: roce_adp_retrans; rxe: completer_retry_err */
        RDMA_HW_LINK_DOWNED,           /* rxe: hw_counters/link_downed (mlx5: counters/link_downed) */
        _RDMA_HW_COUNTER_MAX,
        _RDMA_HW_COUNTER_INVALID = -EINVAL,
} RdmaHwCounter;

/* The drivers whose hw_counters halod knows, told apart by the names of the files they make. */
typedef enum RdmaCounterDriver {
        RDMA_COUNTER_DRIVER_MLX5_IB,
        RDMA_COUNTER_DRIVER_IRDMA,
        RDMA_COUNTER_DRIVER_RXE,
        _RDMA_COUNTER_DRIVER_MAX,
        _RDMA_COUNTER_DRIVER_INVALID = -EINVAL,
} RdmaCounterDriver;

/* The family's name in the vocabulary: "mlx5_ib" style for the metrics' help, and in words. */
const char *rdma_hw_counter_to_string(RdmaHwCounter c) _pure_;
const char *rdma_hw_counter_label(RdmaHwCounter c) _pure_;
const char *rdma_counter_driver_to_string(RdmaCounterDriver d) _pure_;
/* The file of family c under ports/N/hw_counters as driver d names it; NULL when d does not count it. */
const char *rdma_hw_counter_name(RdmaHwCounter c, RdmaCounterDriver d) _pure_;
