/* SPDX-License-Identifier: MIT */
/* What the two halves of the libibverbs test double share: the context, the lock, the GID tables. */
#pragma once

#include <pthread.h>

#include "fake-verbs.h"

typedef struct FakeContext {
        struct ibv_context context; /* first: the pointer handed out is this one */
        FakeVerbsDevice *fake;
} FakeContext;

#define FAKE_MAX_SGE 4
#define FAKE_MAX_WR 1024U
#define FAKE_MAX_CQE 4096
#define FAKE_MAX_INLINE 256U
#define FAKE_PENDING_MAX 64U
#define FAKE_TRANSITIONS_MAX 256U
#define FAKE_24BIT 0xffffffU

typedef struct FakeMr {
        struct ibv_mr mr;
        int access;
        struct FakeMr *next;
} FakeMr;

typedef struct FakeCqe {
        struct ibv_wc wc;
        unsigned sq_release; /* send-queue entries this completion frees when polled */
} FakeCqe;

typedef struct FakeCq {
        struct ibv_cq cq;
        FakeCqe *ring;
        int head, count;
        bool overrun;
} FakeCq;

typedef struct FakeRecv {
        uint64_t wr_id;
        struct ibv_sge sge[FAKE_MAX_SGE];
        int num_sge;
} FakeRecv;

typedef struct FakeQp FakeQp;

/* A SEND that arrived while the receiver had no receive posted (receiver-not-ready: RC retries). */
typedef struct FakeMessage {
        FakeQp *from; /* NULL once the sender is gone */
        uint64_t wr_id;
        bool signaled;
        uint8_t *data;
        size_t length;
} FakeMessage;

struct FakeQp {
        struct ibv_qp qp;
        struct ibv_qp_cap cap;
        bool sq_sig_all;
        FakeQp *next;

        uint8_t port;
        unsigned access;
        enum ibv_mtu path_mtu;
        uint32_t dest_qpn, rq_psn, sq_psn;
        struct ibv_ah_attr ah;

        FakeRecv *rq;
        unsigned rq_head, rq_count;
        FakeMessage pending[FAKE_PENDING_MAX];
        unsigned pending_head, pending_count;
        unsigned sq_used;       /* posted sends whose completion was not polled yet */
        unsigned sq_unsignaled; /* unsignaled sends done since the last signaled completion */
};

/* One lock over all of the double's state: a prober and a responder thread share it in a test. */
extern pthread_mutex_t fake_verbs_lock;

/* The GID table a query of f sees now (see FakeVerbsDevice.move_after and .flip). */
void fake_verbs_current_table(const FakeVerbsDevice *f, const struct ibv_gid_entry **ret, size_t *ret_n);
/* Fills the context's ops that <infiniband/verbs.h>'s inlines call: post_send, post_recv, poll_cq,
 * req_notify_cq. */
void fake_verbs_install_ops(struct ibv_context *context);
/* Forgets the queue-pair side's counters and transition log. */
void fake_verbs_qp_reset(void);

/* ---- shared by fake-verbs-qp.c and fake-verbs-wire.c; callers hold fake_verbs_lock ---- */
extern FakeMr *fake_mrs;
extern FakeQp *fake_qps;
extern uint64_t fake_bytes_written, fake_sends_delivered;

FakeQp *fake_qp_by_number(uint32_t qpn);
FakeVerbsDevice *fake_device_of(const FakeQp *q);
/* Whether the device's current GID table has, on port, the entry gid (or, by_index, the index). */
bool fake_device_has_gid(
        const FakeVerbsDevice *f, uint32_t port, const uint8_t *gid, uint32_t index, bool by_index);
/* ERR: the transition is logged and every posted receive flushed. */
void fake_qp_to_error(FakeQp *q);
void fake_cq_push(struct ibv_cq *cq, const struct ibv_wc *wc, unsigned sq_release);
/* A send-queue completion: always for an error, else when signaled; it frees the entries of the
 * unsignaled sends before it too. */
void fake_complete_send(FakeQp *q, uint64_t wr_id, enum ibv_wc_opcode op, enum ibv_wc_status st, bool signaled);
