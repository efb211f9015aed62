/* SPDX-License-Identifier: MIT */
/* The queue pair's insides, shared by rdma-qp.c (set-up, transitions) and rdma-qp-io.c (data path),
 * and by the unit tests that drive one transition by hand. */
#pragma once

#include <stdarg.h>

#include "rdma/dlopen-verbs.h"
#include "rdma/rdma-qp.h"

/* A ping, its echo and the bye are small SENDs of one slot each; writes come from the write area. */
#define RDMA_MSG_SIZE 64U
#define RDMA_RECV_DEPTH 16U
#define RDMA_SEND_DEPTH 16U
#define RDMA_CQ_DEPTH (RDMA_RECV_DEPTH + RDMA_SEND_DEPTH)
/* Receive slots, then send slots, then (page-aligned) the write area. */
#define RDMA_CONTROL_SIZE 4096U
_Static_assert((RDMA_RECV_DEPTH + RDMA_SEND_DEPTH) * RDMA_MSG_SIZE <= RDMA_CONTROL_SIZE, "slots overflow");

/* How long RDMA WRITEs may take to complete after the bandwidth run's end: several of the
 * transport's retries (RDMA_ACK_TIMEOUT in rdma-qp.c, about 1 s each). */
#define RDMA_WRITE_GRACE_USEC (5U * 1000U * 1000U)

/* Work request ids: which queue, which slot. */
#define RDMA_WR_RECV 0x10000U
#define RDMA_WR_SEND 0x20000U
#define RDMA_WR_WRITE 0x40000U
#define RDMA_WR_SLOT_MASK 0xffffU

struct RdmaQp {
        RdmaDevice *device; /* borrowed */
        struct ibv_context *context;
        uint32_t port;
        uint32_t gid_index;
        union ibv_gid gid;
        enum ibv_mtu active_mtu;
        uint32_t psn;
        bool exposed;
        uint32_t max_inline; /* what the provider granted for inline sends */

        uint8_t *buffer;
        size_t buffer_size;
        size_t write_area;

        struct ibv_pd *pd;
        /* Two regions, so that what the peer may write is exactly what the hello advertises: the
         * slots (control_mr) for this end's own sends and receives only, the write area (data_mr)
         * with remote write when exposed. */
        struct ibv_mr *control_mr;
        struct ibv_mr *data_mr;
        struct ibv_cq *cq;
        struct ibv_qp *qp;

        PeerRdmaHello remote; /* set by rdma_qp_connect() */
        unsigned sends_in_flight;
        unsigned next_send_slot;
};

/* One ibv_modify_qp() to state to, named in the error ("ibv_modify_qp to RTR failed: ..."). */
int rdma_qp_modify(RdmaQp *q, enum ibv_qp_state to, struct ibv_qp_attr *attr, int mask, RdmaError *error);
