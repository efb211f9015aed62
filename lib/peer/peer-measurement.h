/* SPDX-License-Identifier: MIT */
/* What a peer round measured, as data: the RDMA exchange's outcome, a peer's last full measurement
 * and the Peers rows that carry it from one round to the next. The round (peer-round.h) fills it; the
 * peer checks (lib/check/check-peer.h) judge it. */
#pragma once

#include <arpa/inet.h>
#include <stdbool.h>
#include <stdint.h>

#include "peer/peer-rdma-probe.h"
#include "peer/peer.h"

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
        int error;              /* EXCHANGED: rdma_probe()'s return; NO_LOCAL_DEVICE: the device lookup's */
        char device[64];        /* this node's RDMA device, "" when none */
        RdmaError error_text;   /* EXCHANGED with error < 0: which step failed and why */
        RdmaProbeResult result; /* EXCHANGED with error 0 */
} PeerRdmaMeasurement;

/* What the device lookup's error r (rdma_link_device()) means: no libibverbs, no RDMA in the kernel,
 * or no device (or address) on the link here. */
PeerRdmaOutcome peer_rdma_outcome_of_device(int r) _pure_;

/* A peer's last full measurement (its echo run and MTU run, both ended): the data from which a round
 * that only checks the peer's liveness renders its latency and mtu checks and its round trips. */
typedef struct PeerMeasurement {
        bool valid; /* measured, answered by the right node, and its MTU run not pending */
        PeerProbeResult echo;
        uint32_t mtu; /* what the MTU run probed; 0: none */
        int mtu_status;
        PeerProbeResult mtu_result;
        PeerRdmaMeasurement rdma; /* peer.<node>.rdma's exchange of the same round */
} PeerMeasurement;

/* One row of halod's Peers D-Bus property, a(ssbtt), with the measurement it was rendered from. */
typedef struct PeerStatus {
        char *node;
        char address[INET_ADDRSTRLEN];
        bool reachable;
        bool pending; /* its probes had not ended when the round did: reachable says nothing */
        uint64_t rtt_median_usec;
        uint64_t rtt_p99_usec;
        PeerMeasurement measured;
} PeerStatus;

typedef struct PeerStatusList {
        PeerStatus *peers;
        size_t n_peers;
} PeerStatusList;

void peer_status_list_done(PeerStatusList *l);
/* A deep copy of l, for a reader on another thread. Returns 0 or -ENOMEM. */
int peer_status_list_copy(const PeerStatusList *l, PeerStatusList *ret);
/* The row of node at address in l (NULL: l is NULL or has none). */
const PeerStatus *peer_status_list_find(const PeerStatusList *l, const char *node, const char *address) _pure_;
/* The measurement of that row when the round that wrote it left one to render from: the peer answered
 * then, its latency was measured and its MTU run ended. NULL otherwise. */
const PeerMeasurement *peer_status_list_last_measurement(
        const PeerStatusList *l, const char *node, const char *address) _pure_;
