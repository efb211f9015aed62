/* SPDX-License-Identifier: MIT */
/* The RDMA port counters that show whether the lossless class works: congestion notification (ECN
 * marks and CNPs) and retransmission. Each driver names its hw_counters its own way: mlx5_ib
 * (ConnectX, counters.c) one way, irdma (E810, verbs.c's irdma_hw_stat_names) another, and irdma
 * counts on an E810 (GEN2) only the congestion notification ones. */
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
        _RDMA_HW_COUNTER_MAX,
        _RDMA_HW_COUNTER_INVALID = -EINVAL,
} RdmaHwCounter;

/* The family's file name under ports/N/hw_counters as mlx5_ib names it. */
const char *rdma_hw_counter_to_string(RdmaHwCounter c) _pure_;
/* Every file name of the family, mlx5_ib's first, then irdma's (NULL-terminated): a device has at most
 * one of them. */
const char *const *rdma_hw_counter_names(RdmaHwCounter c) _pure_;
