/* SPDX-License-Identifier: MIT */
/* The RDMA probe's data path on a connected RC queue pair: ping-pong of small SENDs, the responder's
 * echo, and the RDMA WRITE bandwidth run. Completions are busy-polled, as perftest does: the round
 * trip is a few µs, and waiting on a completion channel would add the wake-up to every sample. */
#include <inttypes.h>

#include "basic/time-util.h"
#include "config.h"
#include "rdma/rdma-qp.h"

#if HAVE_LIBIBVERBS

#        include "rdma/rdma-qp-internal.h"

/* What a message says, in its first 4 bytes (big-endian); the next 4 are the sequence. */
enum {
        RDMA_MSG_PING = 1,
        RDMA_MSG_BYE = 2,
};

/* Empty polls between looks at the clock (and at the stop flag). The loop spins without yielding,
 * as perftest's does: a sched_yield() every 64 polls could hand the CPU to any runnable thread
 * (halod's job worker, the guest's other processes) while a message waited in the completion queue.
 * It was the one difference from ib_send_lat's loop when the probe's round trip measured about 1.3
 * times ib_send_lat's over the same link (bench/RESULTS.md; the re-run after this change was too
 * noisy to show its effect). The scheduler still preempts the spinning thread when its slice ends. */
#        define RDMA_POLL_BATCH 64U

static void put_be32(uint8_t *p, uint32_t v) {
        for (unsigned i = 0; i < 4; i++)
                p[i] = (uint8_t) (v >> (24 - 8 * i));
}

static uint32_t get_be32(const uint8_t *p) {
        return (uint32_t) p[0] << 24 | (uint32_t) p[1] << 16 | (uint32_t) p[2] << 8 | p[3];
}

static uint8_t *recv_slot(RdmaQp *q, unsigned slot) {
        return q->buffer + slot * RDMA_MSG_SIZE;
}

static uint8_t *send_slot(RdmaQp *q, unsigned slot) {
        return q->buffer + (RDMA_RECV_DEPTH + slot) * RDMA_MSG_SIZE;
}

static int verbs_error(RdmaError *error, int r, const char *call) {
        r = r > 0 ? r : EIO;
        return rdma_error_set(error, -r, "%s failed: %s", call, strerror(r));
}

static int repost_receive(RdmaQp *q, unsigned slot, RdmaError *error) {
        struct ibv_sge sge = { .addr = (uintptr_t) recv_slot(q, slot),
                               .length = RDMA_MSG_SIZE,
                               .lkey = q->control_mr->lkey };
        struct ibv_recv_wr wr = { .wr_id = RDMA_WR_RECV | slot, .sg_list = &sge, .num_sge = 1 }, *bad;
        int r = ibv_post_recv(q->qp, &wr, &bad);

        return r == 0 ? 0 : verbs_error(error, r, "ibv_post_recv");
}

static int post_message(RdmaQp *q, uint32_t kind, uint32_t sequence, RdmaError *error) {
        unsigned slot = q->next_send_slot;
        uint8_t *m = send_slot(q, slot);
        struct ibv_sge sge = { .addr = (uintptr_t) m, .length = RDMA_MSG_SIZE, .lkey = q->control_mr->lkey };
        struct ibv_send_wr wr = {
                .wr_id = RDMA_WR_SEND | slot,
                .sg_list = &sge,
                .num_sge = 1,
                .opcode = IBV_WR_SEND,
                /* Inline: the adapter takes the bytes with the request, one DMA read fewer. */
                .send_flags = IBV_SEND_SIGNALED | (q->max_inline >= RDMA_MSG_SIZE ? IBV_SEND_INLINE : 0),
        };
        struct ibv_send_wr *bad;
        int r;

        if (q->sends_in_flight >= RDMA_SEND_DEPTH)
                return rdma_error_set(
                        error, -ENOBUFS, "The send queue is full: the peer does not take messages.");
        put_be32(m, kind);
        put_be32(m + 4, sequence);
        r = ibv_post_send(q->qp, &wr, &bad);
        if (r != 0)
                return verbs_error(error, r, "ibv_post_send (SEND)");
        q->sends_in_flight++;
        q->next_send_slot = (slot + 1) % RDMA_SEND_DEPTH;
        return 0;
}

static const char *opcode_name(enum ibv_wc_opcode o) {
        switch (o) {
        case IBV_WC_SEND:
                return "SEND";
        case IBV_WC_RDMA_WRITE:
                return "RDMA WRITE";
        case IBV_WC_RECV:
                return "RECV";
        default:
                return "work request";
        }
}

/* Waits for one completion until deadline (ns). 1 with it, 0 on timeout, <0 on a failed poll or a
 * completion with an error status. */
static int poll_one(RdmaQp *q, uint64_t deadline, const atomic_bool *stop, struct ibv_wc *ret, RdmaError *error) {
        for (;;) {
                for (unsigned i = 0; i < RDMA_POLL_BATCH; i++) {
                        int n = ibv_poll_cq(q->cq, 1, ret);

                        if (n < 0)
                                return rdma_error_set(
                                        error, -EIO, "ibv_poll_cq on %s failed (%d)", q->device->name, n);
                        if (n == 0)
                                continue;
                        if (ret->status != IBV_WC_SUCCESS)
                                return rdma_error_set(
                                        error,
                                        -EIO,
                                        "A %s on %s completed with '%s' (status %d)%s",
                                        opcode_name(ret->opcode),
                                        q->device->name,
                                        sym_ibv_wc_status_str(ret->status),
                                        (int) ret->status,
                                        ret->status == IBV_WC_RETRY_EXC_ERR
                                                ? ": the peer's queue pair does not answer (wrong GID, QPN or "
                                                  "PSN, or a RoCE path that drops packets)"
                                                : "");
                        if ((ret->wr_id & RDMA_WR_SEND) && q->sends_in_flight > 0)
                                q->sends_in_flight--;
                        return 1;
                }
                if (stop && atomic_load(stop))
                        return -ECANCELED;
                if (now_nsec(CLOCK_MONOTONIC) >= deadline)
                        return 0;
        }
}

/* Waits until every SEND this end posted has completed. */
static int drain_sends(RdmaQp *q, uint64_t deadline, const atomic_bool *stop, RdmaError *error) {
        while (q->sends_in_flight > 0) {
                struct ibv_wc wc;
                int r = poll_one(q, deadline, stop, &wc, error);

                if (r < 0)
                        return r;
                if (r == 0)
                        return rdma_error_set(
                                error, -ETIMEDOUT, "The peer did not acknowledge the last messages.");
        }
        return 0;
}

int rdma_qp_ping(RdmaQp *q, unsigned count, uint64_t timeout_usec, RdmaError *error, uint64_t *rtts_nsec) {
        for (unsigned i = 0; i < count; i++) {
                uint64_t start = now_nsec(CLOCK_MONOTONIC), deadline = start + timeout_usec * NSEC_PER_USEC;
                bool echoed = false;
                int r;

                r = post_message(q, RDMA_MSG_PING, i, error);
                if (r < 0)
                        return r;
                /* The echo ends the round trip; our SEND's own completion may come before or after. */
                while (!echoed) {
                        struct ibv_wc wc;
                        unsigned slot;

                        r = poll_one(q, deadline, NULL, &wc, error);
                        if (r < 0)
                                return r;
                        if (r == 0)
                                return rdma_error_set(
                                        error,
                                        -ETIMEDOUT,
                                        "No echo of RDMA ping %u within %" PRIu64
                                        " ms: the peer stopped answering",
                                        i,
                                        timeout_usec / USEC_PER_MSEC);
                        if (!(wc.wr_id & RDMA_WR_RECV))
                                continue;
                        slot = wc.wr_id & RDMA_WR_SLOT_MASK;
                        echoed = get_be32(recv_slot(q, slot)) == RDMA_MSG_PING &&
                                get_be32(recv_slot(q, slot) + 4) == i;
                        if (echoed)
                                rtts_nsec[i] = now_nsec(CLOCK_MONOTONIC) - start;
                        r = repost_receive(q, slot, error);
                        if (r < 0)
                                return r;
                }
        }
        /* The last pings' own completions: the send queue is empty for what comes next. */
        return drain_sends(q, now_nsec(CLOCK_MONOTONIC) + timeout_usec * NSEC_PER_USEC, NULL, error);
}

int rdma_qp_bye(RdmaQp *q, uint64_t timeout_usec, RdmaError *error) {
        uint64_t deadline = now_nsec(CLOCK_MONOTONIC) + timeout_usec * NSEC_PER_USEC;
        int r;

        r = post_message(q, RDMA_MSG_BYE, 0, error);
        if (r < 0)
                return r;
        /* RC: the completion comes with the peer's acknowledgement, so the bye has arrived. */
        return drain_sends(q, deadline, NULL, error);
}

/* The sooner of the session's deadline and idle_nsec from now. */
static uint64_t serve_deadline(uint64_t deadline, uint64_t idle_nsec) {
        uint64_t idle = now_nsec(CLOCK_MONOTONIC) + idle_nsec;

        return idle < deadline ? idle : deadline;
}

int rdma_qp_serve(
        RdmaQp *q, uint64_t idle_usec, uint64_t deadline_usec, const atomic_bool *stop, RdmaError *error) {
        uint64_t deadline = deadline_usec * NSEC_PER_USEC, idle = idle_usec * NSEC_PER_USEC;
        uint64_t until = serve_deadline(deadline, idle);

        for (;;) {
                struct ibv_wc wc;
                uint32_t kind, sequence;
                unsigned slot;
                int r;

                r = poll_one(q, until, stop, &wc, error);
                if (r < 0)
                        return r;
                if (r == 0)
                        return rdma_error_set(
                                error,
                                -ETIMEDOUT,
                                until >= deadline ? "The prober did not finish in time."
                                                  : "The prober went silent before its bye.");
                if (!(wc.wr_id & RDMA_WR_RECV))
                        continue;
                /* A message from the prober: it is still there. */
                until = serve_deadline(deadline, idle);

                slot = wc.wr_id & RDMA_WR_SLOT_MASK;
                kind = get_be32(recv_slot(q, slot));
                sequence = get_be32(recv_slot(q, slot) + 4);
                r = repost_receive(q, slot, error);
                if (r < 0)
                        return r;
                if (kind == RDMA_MSG_BYE)
                        return drain_sends(q, until, stop, error);
                if (kind != RDMA_MSG_PING)
                        continue;
                /* A full send queue here means our echoes are not acknowledged: wait for one first. */
                while (q->sends_in_flight >= RDMA_SEND_DEPTH) {
                        r = poll_one(q, until, stop, &wc, error);
                        if (r <= 0)
                                return r < 0
                                        ? r
                                        : rdma_error_set(
                                                  error, -ETIMEDOUT, "The prober stopped taking echoes.");
                        if (wc.wr_id & RDMA_WR_RECV)
                                return rdma_error_set(
                                        error, -EPROTO, "The prober sent a ping before its echo came.");
                }
                r = post_message(q, RDMA_MSG_PING, sequence, error);
                if (r < 0)
                        return r;
        }
}

static int post_write(RdmaQp *q, size_t chunk, uint64_t remote_offset, unsigned index, RdmaError *error) {
        struct ibv_sge sge = {
                .addr = (uintptr_t) (q->buffer + RDMA_CONTROL_SIZE),
                .length = (uint32_t) chunk,
                .lkey = q->data_mr->lkey,
        };
        struct ibv_send_wr wr = {
                .wr_id = RDMA_WR_WRITE | (index & RDMA_WR_SLOT_MASK),
                .sg_list = &sge,
                .num_sge = 1,
                .opcode = IBV_WR_RDMA_WRITE,
                .send_flags = IBV_SEND_SIGNALED,
                .wr.rdma = { .remote_addr = q->remote.addr + remote_offset, .rkey = q->remote.rkey },
        };
        struct ibv_send_wr *bad;
        int r = ibv_post_send(q->qp, &wr, &bad);

        return r == 0 ? 0 : verbs_error(error, r, "ibv_post_send (RDMA WRITE)");
}

int rdma_qp_write_run(RdmaQp *q, uint64_t max_bytes, uint64_t max_usec, RdmaError *error, RdmaWriteResult *ret) {
        RdmaWriteResult result = {};
        uint64_t start, end, posted = 0, slots;
        unsigned in_flight = 0, index = 0;
        size_t chunk;

        if (q->remote.length == 0 || q->remote.rkey == 0)
                return rdma_error_set(error, -EINVAL, "The peer exposes no buffer to RDMA-write into.");
        chunk = q->write_area;
        if (chunk > RDMA_QP_WRITE_CHUNK)
                chunk = RDMA_QP_WRITE_CHUNK;
        if (chunk > q->remote.length)
                chunk = q->remote.length;
        /* A run smaller than one chunk (the peer round's single path-MTU write) writes just that. */
        if (max_bytes > 0 && chunk > max_bytes)
                chunk = max_bytes;
        slots = q->remote.length / chunk;
        /* A pattern, so that the peer (and a test) can tell written bytes from its zeros. */
        for (size_t i = 0; i < chunk; i++)
                q->buffer[RDMA_CONTROL_SIZE + i] = (uint8_t) (i * 7U + 1U);

        start = now_nsec(CLOCK_MONOTONIC);
        end = start + max_usec * NSEC_PER_USEC;
        for (;;) {
                struct ibv_wc wc;
                int r;

                /* Keep the send queue full until a bound is reached, then let it drain. */
                while (in_flight < RDMA_SEND_DEPTH && posted < max_bytes && now_nsec(CLOCK_MONOTONIC) < end) {
                        r = post_write(q, chunk, (index % slots) * chunk, index, error);
                        if (r < 0)
                                return r;
                        posted += chunk;
                        in_flight++;
                        index++;
                }
                if (in_flight == 0)
                        break;
                /* Grace beyond the run's end: longer than the transport's retries. */
                r = poll_one(q, end + RDMA_WRITE_GRACE_USEC * NSEC_PER_USEC, NULL, &wc, error);
                if (r < 0)
                        return r;
                if (r == 0)
                        return rdma_error_set(error, -ETIMEDOUT, "RDMA WRITEs to the peer did not complete.");
                if (!(wc.wr_id & RDMA_WR_WRITE))
                        continue;
                in_flight--;
                result.bytes += chunk;
                result.writes++;
                result.nsec = now_nsec(CLOCK_MONOTONIC) - start;
        }
        *ret = result;
        return 0;
}

#else

int rdma_qp_ping(RdmaQp *q, unsigned count, uint64_t timeout_usec, RdmaError *error, uint64_t *rtts_nsec) {
        return -EOPNOTSUPP;
}

int rdma_qp_write_run(RdmaQp *q, uint64_t max_bytes, uint64_t max_usec, RdmaError *error, RdmaWriteResult *ret) {
        return -EOPNOTSUPP;
}

int rdma_qp_bye(RdmaQp *q, uint64_t timeout_usec, RdmaError *error) {
        return -EOPNOTSUPP;
}

int rdma_qp_serve(
        RdmaQp *q, uint64_t idle_usec, uint64_t deadline_usec, const atomic_bool *stop, RdmaError *error) {
        return -EOPNOTSUPP;
}

#endif
