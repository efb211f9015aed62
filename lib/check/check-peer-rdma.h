/* SPDX-License-Identifier: MIT */
/* peer.<node>.rdma: what one short RC queue-pair exchange with the peer's halod showed (a few SENDs
 * and one RDMA WRITE of the path MTU, lib/peer/peer-rdma-probe.h), as data, and its rendering. The
 * peer round (check-peer.c) fills the data; the rendering is a pure function of it. */
#pragma once

#include <stdbool.h>

#include "check/check.h"
#include "peer/peer-rdma-probe.h"

/* Echoes per exchange: enough for a median, few enough to cost well under a millisecond on RoCE. */
#define PEER_RDMA_PINGS 8U
/* Per echo: RC retransmits a lost packet after about a second (RDMA_ACK_TIMEOUT), so a longer wait
 * only delays the round; a path that drops RoCE v2 fails within it. */
#define PEER_RDMA_ECHO_TIMEOUT_USEC (2U * 1000U * 1000U)

/* An exchange is not started with less than this left of the round: the hello alone may take 3 tries. */
#define PEER_RDMA_EXCHANGE_MIN_USEC (300U * 1000U)

typedef enum PeerRdmaOutcome {
        PEER_RDMA_NOT_RUN = 0,     /* nothing measured yet */
        PEER_RDMA_NO_SECTION,      /* the profile has no rdma: section: not checked */
        PEER_RDMA_NO_VERBS,        /* this program was built without libibverbs */
        PEER_RDMA_NO_KERNEL,       /* the kernel has no RDMA support (no /sys/class/infiniband) */
        PEER_RDMA_NO_LOCAL_DEVICE, /* the link's NIC here has no RDMA device, or no address */
        PEER_RDMA_EXCHANGED,       /* rdma_probe() ran: error, then result */
} PeerRdmaOutcome;

typedef struct PeerRdmaMeasurement {
        PeerRdmaOutcome outcome;
        int error;              /* EXCHANGED: rdma_probe()'s return; NO_LOCAL_DEVICE: rdma_link_device()'s */
        char device[64];        /* this node's RDMA device, "" when none */
        RdmaError error_text;   /* EXCHANGED with error < 0: which step failed and why */
        RdmaProbeResult result; /* EXCHANGED with error 0 */
} PeerRdmaMeasurement;

/* What the check needs beyond the measurement. */
typedef struct PeerRdmaCheckContext {
        const char *node; /* the peer */
        const char *path; /* "rdma0", or "rdma0 via 10.0.1.2 (node2)" */
        bool required;    /* rdma.required: a failure fails, else it warns */
        bool reachable;   /* the peer answers on the peer channel this round */
        bool pending;     /* its probes had not ended when the round did */
        bool remeasured;  /* m is from an earlier round (the moving window) */
} PeerRdmaCheckContext;

/* What rdma_link_device()'s error r means for the check: no libibverbs, no RDMA in the kernel, or no
 * device (or address) on the link here. */
PeerRdmaOutcome peer_rdma_outcome_of_device(int r) _pure_;

/* Adds peer.<node>.rdma for m (NULL: not measured yet). Returns what check_list_add() returns. */
int check_peer_rdma(const PeerRdmaCheckContext *c, const PeerRdmaMeasurement *m, CheckList *out);
