/* SPDX-License-Identifier: MIT */
/* The names of the rdma-hello statuses. */
#include "rdma/rdma-hello.h"

static const char *const peer_rdma_status_table[_PEER_RDMA_STATUS_MAX] = {
        [PEER_RDMA_OK] = "ok",
        [PEER_RDMA_NO_DEVICE] = "no-device",
        [PEER_RDMA_BUSY] = "busy",
        [PEER_RDMA_FAILED] = "failed",
};

DEFINE_STRING_TABLE_LOOKUP(peer_rdma_status, PeerRdmaStatus);
