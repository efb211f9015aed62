/* SPDX-License-Identifier: MIT */
/* An RC queue pair on a fabric device's port, for the RDMA probe: set-up, the state transitions, a
 * SEND/RECV ping-pong and an RDMA WRITE bandwidth run. Callers need not include <infiniband/verbs.h>. */
#pragma once

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/macro.h"
#include "rdma/rdma-hello.h"
#include "rdma/rdma.h"

/* What went wrong, for the user: the step that failed and why ("ibv_modify_qp to RTR failed: ..."). */
#define RDMA_ERROR_MAX 320U
typedef struct RdmaError {
        char message[RDMA_ERROR_MAX];
} RdmaError;

/* Formats error->message when error is not NULL; returns r (a negative errno), for return statements. */
int rdma_error_set(RdmaError *error, int r, const char *format, ...) _printf_(3, 4);

/* The buffer a responder exposes to RDMA WRITE, and the largest single write of a bandwidth run. */
#define RDMA_QP_EXPOSED_SIZE (1U << 20)
#define RDMA_QP_WRITE_CHUNK (64U << 10)

typedef struct RdmaQp RdmaQp;

/* Allocates a protection domain, a buffer of write_area bytes (plus the messages' slots), its memory
 * region, a completion queue and an RC queue pair on the device's port, and brings the queue pair
 * to INIT with its receives posted. gid_index is the local GID entry to send from (rdma.gid's); it
 * must exist. expose: the write area may be RDMA-written by the peer (the responder's side).
 * Borrows d, which must outlive the queue pair. On failure returns negative errno and says why in
 * error (may be NULL). */
int rdma_qp_new(
        RdmaDevice *d, uint32_t gid_index, size_t write_area, bool expose, RdmaError *error, RdmaQp **ret);
RdmaQp *rdma_qp_free(RdmaQp *q);
DEFINE_TRIVIAL_CLEANUP_FUNC(RdmaQp *, rdma_qp_free);

/* This end's half of the exchange: QPN, PSN, GID, GID index, active MTU, and the exposed buffer
 * (rkey, address, length; zero when not exposed). */
void rdma_qp_local(const RdmaQp *q, PeerRdmaHello *ret);
/* INIT → RTR (the peer's QPN, PSN and GID, this end's GID index, path MTU = the smaller active MTU,
 * a global route header) → RTS. */
int rdma_qp_connect(RdmaQp *q, const PeerRdmaHello *remote, RdmaError *error);
/* "RESET", "INIT", "RTR", "RTS", ... of the queue pair now. */
const char *rdma_qp_state_name(const RdmaQp *q);
uint32_t rdma_qp_number(const RdmaQp *q) _pure_;
/* The write area: what a bandwidth run sends from, or what the peer writes into when exposed. */
uint8_t *rdma_qp_write_area(const RdmaQp *q, size_t *ret_size);

/* ---- the data path (lib/rdma/rdma-qp-io.c): busy-polled, as perftest measures ---- */

/* Sends count pings one after the other, each waiting for its echo, and stores each round trip in
 * ns in rtts_nsec[count]. -ETIMEDOUT when an echo does not come within timeout_usec (RC is
 * reliable: a lost echo means the peer is gone), -EIO for a completion with an error status. */
int rdma_qp_ping(RdmaQp *q, unsigned count, uint64_t timeout_usec, RdmaError *error, uint64_t *rtts_nsec);

typedef struct RdmaWriteResult {
        uint64_t bytes; /* completed RDMA WRITEs */
        uint64_t nsec;  /* from the first post to the last completion */
        unsigned writes;
} RdmaWriteResult;

/* RDMA-writes the write area, in chunks of RDMA_QP_WRITE_CHUNK at most, into the peer's exposed
 * buffer (from rdma_qp_connect()) for up to max_usec or max_bytes, whichever ends first, several
 * writes in flight. -EINVAL when the peer exposes no buffer. */
int rdma_qp_write_run(RdmaQp *q, uint64_t max_bytes, uint64_t max_usec, RdmaError *error, RdmaWriteResult *ret);

/* Tells the peer that the probe is over and waits until it was delivered. */
int rdma_qp_bye(RdmaQp *q, uint64_t timeout_usec, RdmaError *error);

/* The responder's side: echoes every ping until the bye (returns 0); until idle_usec pass without a
 * message from the prober, or deadline_usec on CLOCK_MONOTONIC comes, whichever is first
 * (-ETIMEDOUT); or until *stop is set (-ECANCELED). stop may be NULL. The idle timeout, not the
 * deadline alone, ends a session whose prober is gone: a prober that keeps talking on a slow path
 * (an emulated one, or one that retransmits) takes as long as its pings take. */
int rdma_qp_serve(
        RdmaQp *q, uint64_t idle_usec, uint64_t deadline_usec, const atomic_bool *stop, RdmaError *error);
