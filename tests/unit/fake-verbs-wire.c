/* SPDX-License-Identifier: MIT */
/* The libibverbs test double's wire: posting sends and receives, delivery between the open contexts,
 * polling completion queues (see fake-verbs.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fake-verbs-internal.h"

void fake_cq_push(struct ibv_cq *cq, const struct ibv_wc *wc, unsigned sq_release) {
        FakeCq *c = (FakeCq *) cq;

        if (c->count == c->cq.cqe) {
                c->overrun = true; /* a consumer that does not poll: the CQ is broken from here on */
                return;
        }
        c->ring[(c->head + c->count) % c->cq.cqe] = (FakeCqe){ .wc = *wc, .sq_release = sq_release };
        c->count++;
}

static int fake_poll_cq(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc) {
        FakeCq *c = (FakeCq *) cq;
        int n = 0;

        (void) pthread_mutex_lock(&fake_verbs_lock);
        if (c->overrun) {
                (void) pthread_mutex_unlock(&fake_verbs_lock);
                return -EOVERFLOW;
        }
        for (; n < num_entries && c->count > 0; n++) {
                FakeCqe *e = &c->ring[c->head];
                FakeQp *q = e->sq_release > 0 ? fake_qp_by_number(e->wc.qp_num) : NULL;

                wc[n] = e->wc;
                if (q)
                        q->sq_used -= e->sq_release <= q->sq_used ? e->sq_release : q->sq_used;
                c->head = (c->head + 1) % c->cq.cqe;
                c->count--;
        }
        (void) pthread_mutex_unlock(&fake_verbs_lock);
        return n;
}

static int fake_req_notify_cq(struct ibv_cq *cq, int solicited_only) {
        return 0;
}

/* A send-queue completion: always for an error, else when signaled; it frees the entries of the
 * unsignaled sends before it too. */
void fake_complete_send(FakeQp *q, uint64_t wr_id, enum ibv_wc_opcode op, enum ibv_wc_status st, bool signaled) {
        struct ibv_wc wc = { .wr_id = wr_id, .status = st, .opcode = op, .qp_num = q->qp.qp_num };

        if (st == IBV_WC_SUCCESS && !signaled) {
                q->sq_unsignaled++;
                return;
        }
        fake_cq_push(q->qp.send_cq, &wc, q->sq_unsignaled + 1);
        q->sq_unsignaled = 0;
}

/* ---- the wire ---- */

static const FakeMr *find_mr(const struct ibv_pd *pd, uint32_t key, bool remote, uint64_t addr, size_t length) {
        for (const FakeMr *m = fake_mrs; m; m = m->next) {
                uint64_t start = (uintptr_t) m->mr.addr;

                if (m->mr.pd != pd || (remote ? m->mr.rkey : m->mr.lkey) != key)
                        continue;
                if (remote && !(m->access & IBV_ACCESS_REMOTE_WRITE))
                        return NULL;
                if (addr < start || length > m->mr.length || addr - start > m->mr.length - length)
                        return NULL;
                return m;
        }
        return NULL;
}

/* The QP a packet of q reaches: the destination GID picks the device, dest_qp_num the QP, and it must
 * be connected back to q. */
static FakeQp *route(const FakeQp *q) {
        FakeQp *p = fake_qp_by_number(q->dest_qpn);

        if (!p || (p->qp.state != IBV_QPS_RTR && p->qp.state != IBV_QPS_RTS) || p->dest_qpn != q->qp.qp_num)
                return NULL;
        if (!fake_device_has_gid(fake_device_of(p), p->port, q->ah.grh.dgid.raw, 0, false))
                return NULL;
        return p;
}

/* Sequence numbers: both ends count the packets of each message at their path MTU; an end that
 * expects another PSN, or a packet larger than the receiver's path MTU, is a transport that retries
 * until it gives up. */
static bool advance_psn(FakeQp *from, FakeQp *to, size_t length) {
        size_t mtu = (size_t) 128 << from->path_mtu;
        uint32_t packets = length == 0 ? 1 : (uint32_t) ((length + mtu - 1) / mtu);

        if (from->sq_psn != to->rq_psn || from->path_mtu > to->path_mtu)
                return false;
        from->sq_psn = (from->sq_psn + packets) & FAKE_24BIT;
        to->rq_psn = (to->rq_psn + packets) & FAKE_24BIT;
        return true;
}

/* Hands waiting SENDs to posted receives, in order. */
static void deliver_pending(FakeQp *to) {
        while (to->pending_count > 0 && to->rq_count > 0) {
                FakeMessage *m = &to->pending[to->pending_head];
                FakeRecv *rv = &to->rq[to->rq_head];
                struct ibv_wc wc = {
                        .wr_id = rv->wr_id,
                        .opcode = IBV_WC_RECV,
                        .byte_len = (uint32_t) m->length,
                        .qp_num = to->qp.qp_num,
                        .src_qp = m->from ? m->from->qp.qp_num : 0,
                };
                size_t capacity = 0, done = 0;

                for (int i = 0; i < rv->num_sge; i++)
                        capacity += rv->sge[i].length;
                if (m->length > capacity) {
                        wc.status = IBV_WC_LOC_LEN_ERR;
                        if (m->from)
                                fake_complete_send(
                                        m->from, m->wr_id, IBV_WC_SEND, IBV_WC_REM_INV_REQ_ERR, true);
                } else {
                        for (int i = 0; i < rv->num_sge && done < m->length; i++) {
                                size_t n = m->length - done < rv->sge[i].length ? m->length - done
                                                                                : rv->sge[i].length;

                                memcpy((void *) (uintptr_t) rv->sge[i].addr, m->data + done, n);
                                done += n;
                        }
                        fake_sends_delivered++;
                        if (m->from)
                                fake_complete_send(m->from, m->wr_id, IBV_WC_SEND, IBV_WC_SUCCESS, m->signaled);
                }
                fake_cq_push(to->qp.recv_cq, &wc, 0);
                free(m->data);
                to->pending_head = (to->pending_head + 1) % FAKE_PENDING_MAX;
                to->pending_count--;
                to->rq_head = (to->rq_head + 1) % to->cap.max_recv_wr;
                to->rq_count--;
        }
}

static int fake_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad) {
        FakeQp *q = (FakeQp *) qp;
        int r = 0;

        (void) pthread_mutex_lock(&fake_verbs_lock);
        for (; wr; wr = wr->next) {
                FakeRecv *rv;

                if (q->qp.state == IBV_QPS_RESET || wr->num_sge < 0 ||
                    wr->num_sge > (int) q->cap.max_recv_sge) {
                        r = EINVAL;
                        break;
                }
                if (q->rq_count >= q->cap.max_recv_wr) {
                        r = ENOMEM;
                        break;
                }
                for (int i = 0; i < wr->num_sge && r == 0; i++)
                        if (!find_mr(qp->pd, wr->sg_list[i].lkey, false, wr->sg_list[i].addr, wr->sg_list[i].length))
                                r = EINVAL;
                if (r != 0)
                        break;
                rv = &q->rq[(q->rq_head + q->rq_count) % q->cap.max_recv_wr];
                *rv = (FakeRecv){ .wr_id = wr->wr_id, .num_sge = wr->num_sge };
                memcpy(rv->sge, wr->sg_list, (size_t) wr->num_sge * sizeof(struct ibv_sge));
                q->rq_count++;
        }
        if (r != 0)
                *bad = wr;
        if (q->qp.state == IBV_QPS_ERR)
                fake_qp_to_error(q); /* flushed at once */
        else
                deliver_pending(q);
        (void) pthread_mutex_unlock(&fake_verbs_lock);
        return r;
}

/* The bytes of a work request: inline ones straight from memory, else through a local key. */
static int gather(const FakeQp *q, const struct ibv_send_wr *wr, uint8_t **ret, size_t *ret_length) {
        size_t length = 0, done = 0;
        uint8_t *data;

        for (int i = 0; i < wr->num_sge; i++)
                length += wr->sg_list[i].length;
        if ((wr->send_flags & IBV_SEND_INLINE) && length > q->cap.max_inline_data)
                return EINVAL;
        data = malloc(length > 0 ? length : 1);
        if (!data)
                return ENOMEM;
        for (int i = 0; i < wr->num_sge; i++) {
                const struct ibv_sge *s = &wr->sg_list[i];

                if (!(wr->send_flags & IBV_SEND_INLINE) &&
                    !find_mr(q->qp.pd, s->lkey, false, s->addr, s->length)) {
                        free(data);
                        return EFAULT; /* a local protection error */
                }
                memcpy(data + done, (const void *) (uintptr_t) s->addr, s->length);
                done += s->length;
        }
        *ret = data;
        *ret_length = length;
        return 0;
}

/* One work request on a QP in RTS, over the wire. */
static void transmit(FakeQp *q, const struct ibv_send_wr *wr, uint8_t *data, size_t length) {
        bool signaled = (wr->send_flags & IBV_SEND_SIGNALED) || q->sq_sig_all;
        enum ibv_wc_opcode op = wr->opcode == IBV_WR_SEND ? IBV_WC_SEND : IBV_WC_RDMA_WRITE;
        FakeQp *to = route(q);
        const FakeMr *m;

        if (!to || !advance_psn(q, to, length)) {
                free(data);
                fake_complete_send(q, wr->wr_id, op, IBV_WC_RETRY_EXC_ERR, true);
                fake_qp_to_error(q);
                return;
        }
        if (wr->opcode == IBV_WR_SEND) {
                if (to->pending_count >= FAKE_PENDING_MAX) {
                        free(data);
                        fake_complete_send(q, wr->wr_id, op, IBV_WC_RNR_RETRY_EXC_ERR, true);
                        fake_qp_to_error(q);
                        return;
                }
                to->pending[(to->pending_head + to->pending_count) % FAKE_PENDING_MAX] = (FakeMessage){
                        .from = q,
                        .wr_id = wr->wr_id,
                        .signaled = signaled,
                        .data = data,
                        .length = length,
                };
                to->pending_count++;
                deliver_pending(to);
                return;
        }

        m = (to->access & IBV_ACCESS_REMOTE_WRITE)
                ? find_mr(to->qp.pd, wr->wr.rdma.rkey, true, wr->wr.rdma.remote_addr, length)
                : NULL;
        if (!m) {
                free(data);
                fake_complete_send(q, wr->wr_id, op, IBV_WC_REM_ACCESS_ERR, true);
                fake_qp_to_error(q);
                return;
        }
        memcpy((void *) (uintptr_t) wr->wr.rdma.remote_addr, data, length);
        free(data);
        fake_bytes_written += length;
        fake_complete_send(q, wr->wr_id, op, IBV_WC_SUCCESS, signaled);
}

static int fake_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad) {
        FakeQp *q = (FakeQp *) qp;
        int r = 0;

        (void) pthread_mutex_lock(&fake_verbs_lock);
        for (; wr; wr = wr->next) {
                uint8_t *data = NULL;
                size_t length = 0;

                if ((q->qp.state != IBV_QPS_RTS && q->qp.state != IBV_QPS_ERR) ||
                    (wr->opcode != IBV_WR_SEND && wr->opcode != IBV_WR_RDMA_WRITE) || wr->num_sge < 0 ||
                    wr->num_sge > (int) q->cap.max_send_sge) {
                        r = EINVAL;
                        break;
                }
                if (q->sq_used >= q->cap.max_send_wr) {
                        r = ENOMEM;
                        break;
                }
                q->sq_used++;
                if (q->qp.state == IBV_QPS_ERR) {
                        fake_complete_send(q, wr->wr_id, IBV_WC_SEND, IBV_WC_WR_FLUSH_ERR, true);
                        continue;
                }
                r = gather(q, wr, &data, &length);
                if (r == EFAULT) {
                        r = 0;
                        fake_complete_send(q, wr->wr_id, IBV_WC_SEND, IBV_WC_LOC_PROT_ERR, true);
                        fake_qp_to_error(q);
                        continue;
                }
                if (r != 0) {
                        q->sq_used--;
                        break;
                }
                transmit(q, wr, data, length);
        }
        if (r != 0)
                *bad = wr;
        (void) pthread_mutex_unlock(&fake_verbs_lock);
        return r;
}

void fake_verbs_install_ops(struct ibv_context *context) {
        context->ops.post_send = fake_post_send;
        context->ops.post_recv = fake_post_recv;
        context->ops.poll_cq = fake_poll_cq;
        context->ops.req_notify_cq = fake_req_notify_cq;
}
