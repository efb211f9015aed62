/* SPDX-License-Identifier: MIT */
/* The libibverbs test double's queue pairs: PD, MR, CQ, RC QP with the specification's state machine,
 * and the wire between the open contexts (see fake-verbs.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fake-verbs-internal.h"

FakeMr *fake_mrs;
FakeQp *fake_qps;
static uint32_t fake_next_qpn = 0x11;
static uint32_t fake_next_key = 0x100;
static int fake_objects;
uint64_t fake_bytes_written, fake_sends_delivered;
static FakeVerbsTransition fake_transitions[FAKE_TRANSITIONS_MAX];
static size_t fake_n_transitions;

void fake_verbs_qp_reset(void) {
        (void) pthread_mutex_lock(&fake_verbs_lock);
        fake_objects = 0;
        fake_bytes_written = fake_sends_delivered = 0;
        fake_n_transitions = 0;
        (void) pthread_mutex_unlock(&fake_verbs_lock);
}

size_t fake_verbs_transitions(FakeVerbsTransition *ret, size_t max) {
        size_t n;

        (void) pthread_mutex_lock(&fake_verbs_lock);
        n = fake_n_transitions;
        memcpy(ret, fake_transitions, (n < max ? n : max) * sizeof(*ret));
        (void) pthread_mutex_unlock(&fake_verbs_lock);
        return n;
}

int fake_verbs_open_objects(void) {
        int n;

        (void) pthread_mutex_lock(&fake_verbs_lock);
        n = fake_objects;
        (void) pthread_mutex_unlock(&fake_verbs_lock);
        return n;
}

size_t fake_verbs_memory_regions(FakeVerbsMr *ret, size_t max) {
        size_t n = 0, i;

        (void) pthread_mutex_lock(&fake_verbs_lock);
        for (const FakeMr *m = fake_mrs; m; m = m->next)
                n++;
        /* The list is newest first: filled from its end. */
        i = n;
        for (const FakeMr *m = fake_mrs; m; m = m->next) {
                i--;
                if (i < max)
                        ret[i] = (FakeVerbsMr){ .addr = m->mr.addr,
                                                .length = m->mr.length,
                                                .access = m->access,
                                                .lkey = m->mr.lkey,
                                                .rkey = m->mr.rkey };
        }
        (void) pthread_mutex_unlock(&fake_verbs_lock);
        return n;
}

uint64_t fake_verbs_bytes_written(void) {
        uint64_t n;

        (void) pthread_mutex_lock(&fake_verbs_lock);
        n = fake_bytes_written;
        (void) pthread_mutex_unlock(&fake_verbs_lock);
        return n;
}

uint64_t fake_verbs_sends_delivered(void) {
        uint64_t n;

        (void) pthread_mutex_lock(&fake_verbs_lock);
        n = fake_sends_delivered;
        (void) pthread_mutex_unlock(&fake_verbs_lock);
        return n;
}

const char *ibv_wc_status_str(enum ibv_wc_status status) {
        switch (status) {
        case IBV_WC_SUCCESS:
                return "success";
        case IBV_WC_LOC_LEN_ERR:
                return "local length error";
        case IBV_WC_LOC_PROT_ERR:
                return "local protection error";
        case IBV_WC_WR_FLUSH_ERR:
                return "Work Request Flushed Error";
        case IBV_WC_REM_INV_REQ_ERR:
                return "invalid request error";
        case IBV_WC_REM_ACCESS_ERR:
                return "remote access error";
        case IBV_WC_RETRY_EXC_ERR:
                return "transport retry counter exceeded";
        case IBV_WC_RNR_RETRY_EXC_ERR:
                return "RNR retry counter exceeded";
        default:
                return "unknown";
        }
}

/* ---- PD, MR, CQ ---- */

struct ibv_pd *ibv_alloc_pd(struct ibv_context *context) {
        struct ibv_pd *pd = calloc(1, sizeof(struct ibv_pd));

        if (!pd) {
                errno = ENOMEM;
                return NULL;
        }
        pd->context = context;
        (void) pthread_mutex_lock(&fake_verbs_lock);
        fake_objects++;
        (void) pthread_mutex_unlock(&fake_verbs_lock);
        return pd;
}

int ibv_dealloc_pd(struct ibv_pd *pd) {
        int r = 0;

        (void) pthread_mutex_lock(&fake_verbs_lock);
        for (FakeMr *m = fake_mrs; m && r == 0; m = m->next)
                if (m->mr.pd == pd)
                        r = EBUSY;
        for (FakeQp *q = fake_qps; q && r == 0; q = q->next)
                if (q->qp.pd == pd)
                        r = EBUSY;
        if (r == 0) {
                fake_objects--;
                free(pd);
        }
        (void) pthread_mutex_unlock(&fake_verbs_lock);
        return r;
}

struct ibv_mr *(ibv_reg_mr) (struct ibv_pd *pd, void *addr, size_t length, int access) {
        FakeMr *m;

        /* The specification: remote write needs local write. */
        if (!pd || !addr || length == 0 ||
            ((access & IBV_ACCESS_REMOTE_WRITE) && !(access & IBV_ACCESS_LOCAL_WRITE))) {
                errno = EINVAL;
                return NULL;
        }
        m = calloc(1, sizeof(FakeMr));
        if (!m) {
                errno = ENOMEM;
                return NULL;
        }
        (void) pthread_mutex_lock(&fake_verbs_lock);
        m->mr = (struct ibv_mr){
                .context = pd->context,
                .pd = pd,
                .addr = addr,
                .length = length,
                .lkey = fake_next_key,
                .rkey = fake_next_key ^ 0xa5a50000U, /* differs from lkey: the right key must travel */
        };
        fake_next_key++;
        m->access = access;
        m->next = fake_mrs;
        fake_mrs = m;
        fake_objects++;
        (void) pthread_mutex_unlock(&fake_verbs_lock);
        return &m->mr;
}

struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova, unsigned access) {
        if (iova != (uintptr_t) addr) {
                errno = EOPNOTSUPP;
                return NULL;
        }
        return (ibv_reg_mr) (pd, addr, length, (int) access);
}

int ibv_dereg_mr(struct ibv_mr *mr) {
        (void) pthread_mutex_lock(&fake_verbs_lock);
        for (FakeMr **m = &fake_mrs; *m; m = &(*m)->next)
                if (&(*m)->mr == mr) {
                        FakeMr *gone = *m;

                        *m = gone->next;
                        free(gone);
                        fake_objects--;
                        break;
                }
        (void) pthread_mutex_unlock(&fake_verbs_lock);
        return 0;
}

struct ibv_cq *ibv_create_cq(
        struct ibv_context *context, int cqe, void *cq_context, struct ibv_comp_channel *channel, int comp_vector) {
        FakeCq *c;

        if (cqe < 1 || cqe > FAKE_MAX_CQE || channel || comp_vector != 0) {
                errno = EINVAL;
                return NULL;
        }
        c = calloc(1, sizeof(FakeCq));
        if (c)
                c->ring = calloc((size_t) cqe, sizeof(FakeCqe));
        if (!c || !c->ring) {
                if (c)
                        free(c);
                errno = ENOMEM;
                return NULL;
        }
        c->cq.context = context;
        c->cq.cq_context = cq_context;
        c->cq.cqe = cqe;
        (void) pthread_mutex_lock(&fake_verbs_lock);
        fake_objects++;
        (void) pthread_mutex_unlock(&fake_verbs_lock);
        return &c->cq;
}

int ibv_destroy_cq(struct ibv_cq *cq) {
        FakeCq *c = (FakeCq *) cq;

        (void) pthread_mutex_lock(&fake_verbs_lock);
        for (FakeQp *q = fake_qps; q; q = q->next)
                if (q->qp.send_cq == cq || q->qp.recv_cq == cq) {
                        (void) pthread_mutex_unlock(&fake_verbs_lock);
                        return EBUSY;
                }
        fake_objects--;
        (void) pthread_mutex_unlock(&fake_verbs_lock);
        free(c->ring);
        free(c);
        return 0;
}

FakeQp *fake_qp_by_number(uint32_t qpn) {
        for (FakeQp *q = fake_qps; q; q = q->next)
                if (q->qp.qp_num == qpn)
                        return q;
        return NULL;
}

/* ---- QP and its state machine ---- */

static void log_transition(FakeQp *q, enum ibv_qp_state to) {
        if (fake_n_transitions < FAKE_TRANSITIONS_MAX)
                fake_transitions[fake_n_transitions] = (FakeVerbsTransition){
                        .qpn = q->qp.qp_num,
                        .from = q->qp.state,
                        .to = to,
                };
        fake_n_transitions++;
        q->qp.state = to;
}

/* ERR: every posted receive is flushed. */
void fake_qp_to_error(FakeQp *q) {
        if (q->qp.state != IBV_QPS_ERR)
                log_transition(q, IBV_QPS_ERR);
        for (; q->rq_count > 0; q->rq_count--) {
                FakeRecv *r = &q->rq[q->rq_head];
                struct ibv_wc wc = { .wr_id = r->wr_id,
                                     .status = IBV_WC_WR_FLUSH_ERR,
                                     .opcode = IBV_WC_RECV,
                                     .qp_num = q->qp.qp_num };

                fake_cq_push(q->qp.recv_cq, &wc, 0);
                q->rq_head = (q->rq_head + 1) % q->cap.max_recv_wr;
        }
}

struct ibv_qp *ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr) {
        FakeQp *q;

        if (!pd || !attr || attr->qp_type != IBV_QPT_RC || !attr->send_cq || !attr->recv_cq || attr->srq ||
            attr->cap.max_send_wr < 1 || attr->cap.max_send_wr > FAKE_MAX_WR || attr->cap.max_recv_wr < 1 ||
            attr->cap.max_recv_wr > FAKE_MAX_WR || attr->cap.max_send_sge > FAKE_MAX_SGE ||
            attr->cap.max_recv_sge > FAKE_MAX_SGE || attr->cap.max_inline_data > FAKE_MAX_INLINE) {
                errno = EINVAL;
                return NULL;
        }
        q = calloc(1, sizeof(FakeQp));
        if (q)
                q->rq = calloc(attr->cap.max_recv_wr, sizeof(FakeRecv));
        if (!q || !q->rq) {
                if (q)
                        free(q);
                errno = ENOMEM;
                return NULL;
        }
        q->cap = attr->cap;
        q->sq_sig_all = attr->sq_sig_all;
        q->qp.context = pd->context;
        q->qp.qp_context = attr->qp_context;
        q->qp.pd = pd;
        q->qp.send_cq = attr->send_cq;
        q->qp.recv_cq = attr->recv_cq;
        q->qp.state = IBV_QPS_RESET;
        q->qp.qp_type = IBV_QPT_RC;

        (void) pthread_mutex_lock(&fake_verbs_lock);
        q->qp.qp_num = fake_next_qpn++;
        q->next = fake_qps;
        fake_qps = q;
        fake_objects++;
        (void) pthread_mutex_unlock(&fake_verbs_lock);
        return &q->qp;
}

/* RESET (and destruction): posted receives, waiting messages and send-queue entries are gone. */
static void drop_queues(FakeQp *q) {
        for (unsigned i = 0; i < q->pending_count; i++)
                free(q->pending[(q->pending_head + i) % FAKE_PENDING_MAX].data);
        q->pending_count = q->rq_count = 0;
        q->sq_used = q->sq_unsignaled = 0;
}

int ibv_destroy_qp(struct ibv_qp *qp) {
        FakeQp *q = (FakeQp *) qp;

        (void) pthread_mutex_lock(&fake_verbs_lock);
        for (FakeQp **p = &fake_qps; *p; p = &(*p)->next)
                if (*p == q) {
                        *p = q->next;
                        break;
                }
        /* Messages it sent that still wait at a peer lose their sender. */
        for (FakeQp *o = fake_qps; o; o = o->next)
                for (unsigned i = 0; i < o->pending_count; i++) {
                        FakeMessage *m = &o->pending[(o->pending_head + i) % FAKE_PENDING_MAX];

                        if (m->from == q)
                                m->from = NULL;
                }
        drop_queues(q);
        fake_objects--;
        (void) pthread_mutex_unlock(&fake_verbs_lock);
        free(q->rq);
        free(q);
        return 0;
}

typedef struct FakeTransition {
        enum ibv_qp_state from, to;
        int required, optional;
} FakeTransition;

/* The RC rows of the specification's table of QP attributes (IBA 11.2.5.3, "QP State Transition
 * Properties"), as the kernel's ib_modify_qp_is_ok() checks them. */
static const FakeTransition fake_rc_transitions[] = {
        { IBV_QPS_RESET, IBV_QPS_INIT, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS, 0 },
        { IBV_QPS_INIT, IBV_QPS_INIT, IBV_QP_STATE, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS },
        { IBV_QPS_INIT,
          IBV_QPS_RTR,
          IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER,
          IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX },
        { IBV_QPS_RTR,
          IBV_QPS_RTS,
          IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                  IBV_QP_MAX_QP_RD_ATOMIC,
          IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_MIN_RNR_TIMER | IBV_QP_ALT_PATH |
                  IBV_QP_PATH_MIG_STATE },
        { IBV_QPS_RTS,
          IBV_QPS_RTS,
          IBV_QP_STATE,
          IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_MIN_RNR_TIMER | IBV_QP_ALT_PATH |
                  IBV_QP_PATH_MIG_STATE },
};

FakeVerbsDevice *fake_device_of(const FakeQp *q) {
        return ((FakeContext *) q->qp.context)->fake;
}

bool fake_device_has_gid(
        const FakeVerbsDevice *f, uint32_t port, const uint8_t *gid, uint32_t index, bool by_index) {
        const struct ibv_gid_entry *t;
        size_t n;

        fake_verbs_current_table(f, &t, &n);
        for (size_t i = 0; i < n; i++)
                if (t[i].port_num == port &&
                    (by_index ? t[i].gid_index == index : memcmp(t[i].gid.raw, gid, sizeof(t[i].gid.raw)) == 0))
                        return true;
        return false;
}

/* The values the device can take; the mask was checked before. */
static bool values_ok(const FakeQp *q, const struct ibv_qp_attr *a, int mask) {
        const FakeVerbsDevice *f = fake_device_of(q);

        if ((mask & IBV_QP_PORT) && a->port_num != 1)
                return false;
        if ((mask & IBV_QP_PKEY_INDEX) && a->pkey_index != 0)
                return false;
        if ((mask & IBV_QP_ACCESS_FLAGS) &&
            (a->qp_access_flags &
             ~(IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)))
                return false;
        if (mask & IBV_QP_AV) {
                /* RoCE has no LIDs: without a GRH a packet has no destination. */
                if (!a->ah_attr.is_global || (a->ah_attr.port_num != 0 && a->ah_attr.port_num != q->port))
                        return false;
                if (!fake_device_has_gid(f, q->port, NULL, a->ah_attr.grh.sgid_index, true))
                        return false;
        }
        if ((mask & IBV_QP_PATH_MTU) && (a->path_mtu < IBV_MTU_256 || a->path_mtu > f->active_mtu))
                return false;
        if ((mask & IBV_QP_DEST_QPN) && a->dest_qp_num > FAKE_24BIT)
                return false;
        if ((mask & IBV_QP_RQ_PSN) && a->rq_psn > FAKE_24BIT)
                return false;
        if ((mask & IBV_QP_SQ_PSN) && a->sq_psn > FAKE_24BIT)
                return false;
        if ((mask & IBV_QP_TIMEOUT) && a->timeout > 31)
                return false;
        if ((mask & IBV_QP_RETRY_CNT) && a->retry_cnt > 7)
                return false;
        if ((mask & IBV_QP_RNR_RETRY) && a->rnr_retry > 7)
                return false;
        return true;
}

static void apply_attributes(FakeQp *q, const struct ibv_qp_attr *a, int mask) {
        if (mask & IBV_QP_PORT)
                q->port = a->port_num;
        if (mask & IBV_QP_ACCESS_FLAGS)
                q->access = a->qp_access_flags;
        if (mask & IBV_QP_AV)
                q->ah = a->ah_attr;
        if (mask & IBV_QP_PATH_MTU)
                q->path_mtu = a->path_mtu;
        if (mask & IBV_QP_DEST_QPN)
                q->dest_qpn = a->dest_qp_num;
        if (mask & IBV_QP_RQ_PSN)
                q->rq_psn = a->rq_psn;
        if (mask & IBV_QP_SQ_PSN)
                q->sq_psn = a->sq_psn;
}

int ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask) {
        FakeQp *q = (FakeQp *) qp;
        const FakeTransition *t = NULL;
        enum ibv_qp_state to = attr->qp_state;
        int r = EINVAL;

        if (!(mask & IBV_QP_STATE))
                return EINVAL; /* the double changes states only */

        (void) pthread_mutex_lock(&fake_verbs_lock);
        if (to == IBV_QPS_RESET || to == IBV_QPS_ERR) {
                if ((mask & ~(IBV_QP_STATE | IBV_QP_CUR_STATE)) == 0) {
                        if (to == IBV_QPS_ERR)
                                fake_qp_to_error(q);
                        else {
                                log_transition(q, to);
                                drop_queues(q);
                        }
                        r = 0;
                }
                (void) pthread_mutex_unlock(&fake_verbs_lock);
                return r;
        }
        for (size_t i = 0; i < sizeof(fake_rc_transitions) / sizeof(fake_rc_transitions[0]); i++)
                if (fake_rc_transitions[i].from == qp->state && fake_rc_transitions[i].to == to)
                        t = &fake_rc_transitions[i];
        /* Every required attribute, and none that the transition does not take. */
        if (t && (mask & t->required) == t->required && (mask & ~(t->required | t->optional)) == 0 &&
            values_ok(q, attr, mask)) {
                apply_attributes(q, attr, mask);
                log_transition(q, to);
                r = 0;
        }
        (void) pthread_mutex_unlock(&fake_verbs_lock);
        return r;
}
