/* SPDX-License-Identifier: MIT */
/* What the two ends of an RDMA probe tell each other about their queue pairs (the RDMA block of the
 * peer channel's rdma-hello messages, see halod(8), PEER CHANNEL). Here in rdma/, which peer/ builds
 * on, because both use it: the peer channel carries it, rdma/ sets queue pairs up from it. */
#pragma once

#include <errno.h>
#include <stdint.h>

#include "basic/macro.h"

/* What an rdma-hello reply says about the responder's side. */
typedef enum PeerRdmaStatus {
        PEER_RDMA_OK = 0,        /* its queue pair waits for the requester's: the fields are set */
        PEER_RDMA_NO_DEVICE = 1, /* no RDMA device (or no RoCE GID) on the address asked */
        PEER_RDMA_BUSY = 2,      /* another RDMA probe runs: one at a time */
        PEER_RDMA_FAILED = 3,    /* setting its queue pair up failed */
        _PEER_RDMA_STATUS_MAX,
        _PEER_RDMA_STATUS_INVALID = -EINVAL,
} PeerRdmaStatus;

const char *peer_rdma_status_to_string(PeerRdmaStatus s) _pure_;
PeerRdmaStatus peer_rdma_status_from_string(const char *s) _pure_;

/* One end of an RC queue pair, as the other end needs it (see halod(8), PEER CHANNEL). A request
 * has status PEER_RDMA_OK; a reply that is not PEER_RDMA_OK carries only its status. */
typedef struct PeerRdmaHello {
        PeerRdmaStatus status;
        uint16_t mtu;       /* the port's active MTU in bytes (basic/rdma-mtu.h) */
        uint32_t qpn;       /* 24 bits */
        uint32_t psn;       /* 24 bits: the first packet sequence number this end sends */
        uint32_t gid_index; /* the GID index this end sends from */
        uint8_t gid[16];
        uint32_t rkey; /* the buffer the other end may RDMA-write into; 0/0/0 for none */
        uint64_t addr;
        uint64_t length;
} PeerRdmaHello;
