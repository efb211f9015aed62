/* SPDX-License-Identifier: MIT */
/* peer.<node>.rdma: what one short RC queue-pair exchange with the peer's halod showed (a few SENDs
 * and one RDMA WRITE of the path MTU, lib/peer/peer-rdma-probe.h), rendered: the peer round
 * (lib/peer/peer-round.h) fills the data (peer/peer-measurement.h); the rendering is a pure function of it. */
#pragma once

#include <stdbool.h>

#include "check/check.h"
#include "peer/peer-measurement.h"

/* What the check needs beyond the measurement. */
typedef struct PeerRdmaCheckContext {
        const char *node; /* the peer */
        const char *path; /* "rdma0", or "rdma0 via 10.0.1.2 (node2)" */
        bool required;    /* rdma.required: a failure fails, else it warns */
        bool reachable;   /* the peer answers on the peer channel this round */
        bool pending;     /* its probes had not ended when the round did */
        bool remeasured;  /* m is from an earlier round (the moving window) */
} PeerRdmaCheckContext;

/* Adds peer.<node>.rdma for m (NULL: not measured yet). Returns what check_list_add() returns. */
int check_peer_rdma(const PeerRdmaCheckContext *c, const PeerRdmaMeasurement *m, CheckList *out);
