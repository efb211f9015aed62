/* SPDX-License-Identifier: MIT */
/* The RDMA probe's two ends in one process, for the tests that run it (test-rdma-probe.c,
 * test-probe-baseline.c): halod's peer server with its RDMA responder on 127.0.0.1 on a thread, and
 * the prober's parameters from 127.0.0.2, the queue pairs through the libibverbs double's pair
 * (fake-verbs-pair.h). */
#pragma once

#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>

#include "peer/peer-rdma-probe.h"
#include "peer/peer.h"
#include "rdma/rdma-responder.h"

/* halod's side: the peer server on 127.0.0.1 answering 127.0.0.2, on a thread as in halod. */
typedef struct Responder {
        PeerServer *server;
        uint16_t port;
        atomic_bool stop;
        pthread_t thread;
} Responder;

struct in_addr addr(const char *s);
PeerIdentity identity(const char *node);
/* With an RDMA responder on the responder device when rr is set; else answering "no-device". */
void responder_start(Responder *r, RdmaResponder *rr);
void responder_stop(Responder *r);
RdmaResponder *rdma_responder(uint64_t timeout_usec);
/* The prober's: 100 pings, a 4 MiB WRITE run. */
RdmaProbeParams params(RdmaDevice *d, const PeerIdentity *self, uint16_t port);
/* The session ends on its own thread: wait (bounded) until the responder has reaped it. */
RdmaResponderStats wait_idle(RdmaResponder *rr);
