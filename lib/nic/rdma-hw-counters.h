/* SPDX-License-Identifier: MIT */
/* The RDMA port counters that show whether the lossless class works, by their hw_counters names
 * (ConnectX's mlx5_ib): congestion notification (ECN marks and CNPs) and retransmission. */
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

/* The file name under ports/N/hw_counters. */
const char *rdma_hw_counter_to_string(RdmaHwCounter c) _pure_;
