/* SPDX-License-Identifier: MIT */
/* An RC queue pair for the RDMA probe: its resources, and RESET → INIT → RTR → RTS with the peer's
 * details. Every libibverbs failure comes back as negative errno with the step named for the user. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/random.h>

#include "basic/rdma-mtu.h"
#include "config.h"
#include "rdma/rdma-qp.h"

int rdma_error_set(RdmaError *error, int r, const char *format, ...) {
        va_list ap;

        if (error) {
                va_start(ap, format);
                (void) vsnprintf(error->message, sizeof(error->message), format, ap);
                va_end(ap);
        }
        return r;
}

#if HAVE_LIBIBVERBS

#        include "rdma/rdma-qp-internal.h"

/* RC transport settings: about 1.07 s before a retry (4.096 µs × 2^18, NCCL's default
 * NCCL_IB_TIMEOUT), 7 retries, and receiver-not-ready retries without end (the responder always has
 * receives posted). The ACK timeout must exceed the time the path takes to acknowledge what the
 * probe keeps in flight (16 writes of 64 KiB, RDMA_SEND_DEPTH × RDMA_QP_WRITE_CHUNK): perftest's 14
 * (67 ms) is shorter than 1 MiB takes over a slow path (soft-RoCE under QEMU's emulator: ~200 ms),
 * and then the requester retransmits everything in flight before the first acknowledgement can
 * come back, again and again (6040 duplicate requests against 2800 sends in the vm suite): the
 * writes did not complete within the run, and rxe's retry path answered some probes' SENDs with
 * "remote invalid request error" (status 9). A real loss costs a second instead of 67 ms. */
#        define RDMA_ACK_TIMEOUT 18
#        define RDMA_RETRY_COUNT 7
#        define RDMA_RNR_RETRY_INFINITE 7
#        define RDMA_MIN_RNR_TIMER 12
#        define RDMA_HOP_LIMIT 64

static const char *rdma_qp_state_to_string(enum ibv_qp_state s) {
        switch (s) {
        case IBV_QPS_RESET:
                return "RESET";
        case IBV_QPS_INIT:
                return "INIT";
        case IBV_QPS_RTR:
                return "RTR";
        case IBV_QPS_RTS:
                return "RTS";
        case IBV_QPS_SQD:
                return "SQD";
        case IBV_QPS_SQE:
                return "SQE";
        case IBV_QPS_ERR:
                return "ERR";
        default:
                return "UNKNOWN";
        }
}

RdmaQp *rdma_qp_free(RdmaQp *q) {
        if (!q)
                return NULL;
        /* The reverse order of creation: a CQ, a region or a PD that something still uses is busy. */
        if (q->qp)
                (void) sym_ibv_destroy_qp(q->qp);
        if (q->cq)
                (void) sym_ibv_destroy_cq(q->cq);
        if (q->data_mr)
                (void) sym_ibv_dereg_mr(q->data_mr);
        if (q->control_mr)
                (void) sym_ibv_dereg_mr(q->control_mr);
        if (q->pd)
                (void) sym_ibv_dealloc_pd(q->pd);
        if (q->buffer)
                (void) munmap(q->buffer, q->buffer_size);
        return mfree(q);
}

int rdma_qp_modify(RdmaQp *q, enum ibv_qp_state to, struct ibv_qp_attr *attr, int mask, RdmaError *error) {
        int r;

        attr->qp_state = to;
        r = sym_ibv_modify_qp(q->qp, attr, mask);
        if (r != 0) {
                r = r > 0 ? -r : -EIO;
                return rdma_error_set(
                        error,
                        r,
                        "ibv_modify_qp to %s failed: %s (queue pair %u on %s port %u is in %s, attribute mask "
                        "0x%x)",
                        rdma_qp_state_to_string(to),
                        strerror(-r),
                        q->qp->qp_num,
                        q->device->name,
                        q->port,
                        rdma_qp_state_to_string(q->qp->state),
                        (unsigned) mask);
        }
        return 0;
}

static int post_receives(RdmaQp *q, RdmaError *error) {
        for (unsigned slot = 0; slot < RDMA_RECV_DEPTH; slot++) {
                struct ibv_sge sge = {
                        .addr = (uintptr_t) (q->buffer + slot * RDMA_MSG_SIZE),
                        .length = RDMA_MSG_SIZE,
                        .lkey = q->control_mr->lkey,
                };
                struct ibv_recv_wr wr = { .wr_id = RDMA_WR_RECV | slot, .sg_list = &sge, .num_sge = 1 }, *bad;
                int r = ibv_post_recv(q->qp, &wr, &bad);

                if (r != 0)
                        return rdma_error_set(
                                error, r > 0 ? -r : -EIO, "ibv_post_recv failed: %s", strerror(r > 0 ? r : EIO));
        }
        return 0;
}

/* The port must be up, and the GID entry must exist: both are named when they are not. */
static int check_port_and_gid(RdmaQp *q, RdmaError *error) {
        struct ibv_port_attr port;
        struct ibv_gid_entry entry;
        char state[RDMA_STATE_STRING_MAX];
        int r;

        r = verbs_query_port(q->context, (uint8_t) q->port, &port);
        if (r != 0)
                return rdma_error_set(
                        error,
                        r > 0 ? -r : -EIO,
                        "ibv_query_port of %s port %u failed: %s",
                        q->device->name,
                        q->port,
                        strerror(r > 0 ? r : EIO));
        if (port.state != IBV_PORT_ACTIVE)
                return rdma_error_set(
                        error,
                        -ENETDOWN,
                        "%s port %u is %s, not ACTIVE: the link must be up (see 'haloctl check --only rdma.')",
                        q->device->name,
                        q->port,
                        rdma_port_state_to_string(port.state, state));
        q->active_mtu = port.active_mtu;

        r = verbs_query_gid_ex(q->context, q->port, q->gid_index, &entry, 0);
        if (r != 0)
                return rdma_error_set(
                        error,
                        -EINVAL,
                        "GID index %u of %s port %u: %s. The probe sends from the RoCE GID of this node's "
                        "fabric address (rdma.gid); see 'haloctl check --only rdma.gid'",
                        q->gid_index,
                        q->device->name,
                        q->port,
                        r == ENODATA || r == EINVAL ? "no such entry" : strerror(r));
        memcpy(q->gid.raw, entry.gid.raw, sizeof(q->gid.raw));
        return 0;
}

/* One region of q's buffer; the failure names it and the likely cause. */
static int register_one(
        RdmaQp *q,
        size_t offset,
        size_t length,
        int access,
        const char *what,
        RdmaError *error,
        struct ibv_mr **ret) {
        struct ibv_mr *mr = verbs_reg_mr(q->pd, q->buffer + offset, length, access);

        if (!mr)
                return rdma_error_set(
                        error,
                        negative_errno(),
                        "ibv_reg_mr of the %s (%zu KiB) on %s failed: %s%s",
                        what,
                        length / 1024,
                        q->device->name,
                        strerror(errno ?: EIO),
                        errno == ENOMEM || errno == EPERM
                                ? " (is the locked-memory limit too low? see rdma.memlock)"
                                : "");
        *ret = mr;
        return 0;
}

/* The slots and the write area are registered apart: a memory region grants its access to all of
 * it, and a peer holding the rkey of one region over the whole buffer could RDMA-write into the
 * receive and send slots, outside the window the hello advertises. Only the write area, and only when
 * exposed, takes remote writes. */
static int register_regions(RdmaQp *q, RdmaError *error) {
        int r;

        r = register_one(
                q, 0, RDMA_CONTROL_SIZE, IBV_ACCESS_LOCAL_WRITE, "message slots", error, &q->control_mr);
        if (r < 0)
                return r;
        return register_one(
                q,
                RDMA_CONTROL_SIZE,
                q->write_area,
                IBV_ACCESS_LOCAL_WRITE | (q->exposed ? IBV_ACCESS_REMOTE_WRITE : 0),
                "write area",
                error,
                &q->data_mr);
}

int rdma_qp_new(
        RdmaDevice *d, uint32_t gid_index, size_t write_area, bool expose, RdmaError *error, RdmaQp **ret) {
        _cleanup_(rdma_qp_freep) RdmaQp *q = NULL;
        struct ibv_qp_init_attr init = {
                .qp_type = IBV_QPT_RC,
                .cap = {
                        .max_send_wr = RDMA_SEND_DEPTH,
                        .max_recv_wr = RDMA_RECV_DEPTH,
                        .max_send_sge = 1,
                        .max_recv_sge = 1,
                        .max_inline_data = RDMA_MSG_SIZE,
                },
        };
        struct ibv_qp_attr attr = {};
        int r;

        if (!d || !d->context || d->port == 0 || write_area == 0 || write_area > RDMA_QP_EXPOSED_SIZE)
                return rdma_error_set(error, -EINVAL, "No RDMA device to set up a queue pair on.");

        q = calloc(1, sizeof(RdmaQp));
        if (!q)
                return rdma_error_set(error, -ENOMEM, "Out of memory.");
        q->device = d;
        q->context = d->context;
        q->port = d->port;
        q->gid_index = gid_index;
        q->exposed = expose;
        q->write_area = write_area;

        r = check_port_and_gid(q, error);
        if (r < 0)
                return r;
        if (getrandom(&q->psn, sizeof(q->psn), GRND_NONBLOCK) != sizeof(q->psn))
                q->psn = (uint32_t) (uintptr_t) q;
        q->psn &= 0xffffffU;

        /* Mapped, not malloc()ed: glibc raises its mmap threshold to the size of the first such
         * buffer it frees, so the next 1 MiB responder buffer came from the thread's heap and stayed
         * resident there after the session (halod's RSS on an RDMA node, bench/RESULTS.md). A mapping
         * goes back to the kernel when the queue pair does, and starts page-aligned and zeroed. */
        q->buffer_size = RDMA_CONTROL_SIZE + write_area;
        q->buffer = mmap(NULL, q->buffer_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (q->buffer == MAP_FAILED) {
                q->buffer = NULL;
                return rdma_error_set(error, -ENOMEM, "Out of memory for the RDMA buffer.");
        }

        q->pd = sym_ibv_alloc_pd(q->context);
        if (!q->pd)
                return rdma_error_set(
                        error,
                        negative_errno(),
                        "ibv_alloc_pd on %s failed: %s",
                        d->name,
                        strerror(errno ?: EIO));

        /* Registered memory is pinned: it counts against RLIMIT_MEMLOCK (rdma.memlock). */
        r = register_regions(q, error);
        if (r < 0)
                return r;

        q->cq = sym_ibv_create_cq(q->context, RDMA_CQ_DEPTH, NULL, NULL, 0);
        if (!q->cq)
                return rdma_error_set(
                        error,
                        negative_errno(),
                        "ibv_create_cq on %s failed: %s",
                        d->name,
                        strerror(errno ?: EIO));

        init.send_cq = q->cq;
        init.recv_cq = q->cq;
        q->qp = sym_ibv_create_qp(q->pd, &init);
        if (!q->qp)
                return rdma_error_set(
                        error,
                        negative_errno(),
                        "ibv_create_qp (RC) on %s failed: %s",
                        d->name,
                        strerror(errno ?: EIO));
        q->max_inline = init.cap.max_inline_data;

        attr.pkey_index = 0;
        attr.port_num = (uint8_t) q->port;
        attr.qp_access_flags = expose ? IBV_ACCESS_REMOTE_WRITE : 0;
        r = rdma_qp_modify(
                q,
                IBV_QPS_INIT,
                &attr,
                IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS,
                error);
        if (r < 0)
                return r;
        /* Receives may be posted from INIT on: the peer's first ping finds them there. */
        r = post_receives(q, error);
        if (r < 0)
                return r;

        *ret = TAKE_PTR(q);
        return 0;
}

void rdma_qp_local(const RdmaQp *q, PeerRdmaHello *ret) {
        PeerRdmaHello h = {
                .status = PEER_RDMA_OK,
                .mtu = (uint16_t) rdma_mtu_to_bytes(q->active_mtu),
                .qpn = q->qp->qp_num,
                .psn = q->psn,
                .gid_index = q->gid_index,
        };

        memcpy(h.gid, q->gid.raw, sizeof(h.gid));
        if (q->exposed) {
                h.rkey = q->data_mr->rkey;
                h.addr = (uintptr_t) (q->buffer + RDMA_CONTROL_SIZE);
                h.length = q->write_area;
        }
        *ret = h;
}

int rdma_qp_connect(RdmaQp *q, const PeerRdmaHello *remote, RdmaError *error) {
        enum ibv_mtu remote_mtu = (enum ibv_mtu) rdma_mtu_from_bytes(remote->mtu);
        struct ibv_qp_attr rtr = {
                .path_mtu = remote_mtu < q->active_mtu ? remote_mtu : q->active_mtu,
                .dest_qp_num = remote->qpn,
                .rq_psn = remote->psn,
                .max_dest_rd_atomic = 1,
                .min_rnr_timer = RDMA_MIN_RNR_TIMER,
                .ah_attr = {
                        /* RoCE has no LIDs: the route is the GRH, from our GID entry to theirs. */
                        .is_global = 1,
                        .grh = {
                                .sgid_index = (uint8_t) q->gid_index,
                                .hop_limit = RDMA_HOP_LIMIT,
                        },
                        .port_num = (uint8_t) q->port,
                },
        };
        struct ibv_qp_attr rts = {
                .timeout = RDMA_ACK_TIMEOUT,
                .retry_cnt = RDMA_RETRY_COUNT,
                .rnr_retry = RDMA_RNR_RETRY_INFINITE,
                .sq_psn = q->psn,
                .max_rd_atomic = 1,
        };
        int r;

        if (remote->status != PEER_RDMA_OK || remote_mtu == 0 || remote->qpn == 0)
                return rdma_error_set(error, -EINVAL, "The peer's queue-pair details are incomplete.");
        if (q->gid_index > UINT8_MAX)
                return rdma_error_set(
                        error,
                        -ERANGE,
                        "GID index %u of %s port %u is beyond what an address vector can carry (255).",
                        q->gid_index,
                        q->device->name,
                        q->port);
        memcpy(rtr.ah_attr.grh.dgid.raw, remote->gid, sizeof(remote->gid));

        r = rdma_qp_modify(
                q,
                IBV_QPS_RTR,
                &rtr,
                IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                        IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER,
                error);
        if (r < 0)
                return r;
        r = rdma_qp_modify(
                q,
                IBV_QPS_RTS,
                &rts,
                IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
                        IBV_QP_MAX_QP_RD_ATOMIC,
                error);
        if (r < 0)
                return r;
        q->remote = *remote;
        return 0;
}

const char *rdma_qp_state_name(const RdmaQp *q) {
        return rdma_qp_state_to_string(q->qp->state);
}

uint32_t rdma_qp_number(const RdmaQp *q) {
        return q->qp->qp_num;
}

uint8_t *rdma_qp_write_area(const RdmaQp *q, size_t *ret_size) {
        *ret_size = q->write_area;
        return q->buffer + RDMA_CONTROL_SIZE;
}

#else

int rdma_qp_new(
        RdmaDevice *d, uint32_t gid_index, size_t write_area, bool expose, RdmaError *error, RdmaQp **ret) {
        if (error)
                (void) snprintf(error->message, sizeof(error->message), "halod was built without libibverbs.");
        return -EOPNOTSUPP;
}

RdmaQp *rdma_qp_free(RdmaQp *q) {
        return NULL;
}

void rdma_qp_local(const RdmaQp *q, PeerRdmaHello *ret) {
        *ret = (PeerRdmaHello){ .status = PEER_RDMA_NO_DEVICE };
}

int rdma_qp_connect(RdmaQp *q, const PeerRdmaHello *remote, RdmaError *error) {
        return -EOPNOTSUPP;
}

const char *rdma_qp_state_name(const RdmaQp *q) {
        return "RESET";
}

uint32_t rdma_qp_number(const RdmaQp *q) {
        return 0;
}

uint8_t *rdma_qp_write_area(const RdmaQp *q, size_t *ret_size) {
        *ret_size = 0;
        return NULL;
}

#endif
