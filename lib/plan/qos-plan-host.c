/* SPDX-License-Identifier: MIT */
/* The host's qos part of a link's plan (ECN switches, the RoCE ToS): computed from the snapshot, as
 * change records, and in words. Pure: no I/O. */
#include <stdio.h>

#include "plan/qos-plan-host.h"

void link_plan_qos_host_free(LinkPlanQosHost *q) {
        if (!q)
                return;
        free(q->rdma_device);
        free(q);
}

bool link_plan_qos_host_is_empty(const LinkPlanQosHost *q) {
        return !q || (q->n_ecn == 0 && q->tos_to < 0);
}

static void plan_ecn(const ProfileQos *q, const SnapshotQosHost *sq, LinkPlanQosHost *p) {
        uint8_t wanted = roce_ecn_wanted_priorities(q);
        bool on = q->ecn > 0;

        if (q->ecn < 0 || sq->ecn_error < 0)
                return; /* not asked, or not known: qos.<link>.ecn says which */
        for (unsigned prio = 0; prio < QOS_PRIORITIES; prio++)
                for (RoceEcnPoint point = 0; point < _ROCE_ECN_POINT_MAX; point++)
                        if ((wanted & (1U << prio)) && !!(sq->ecn.on[point] & (1U << prio)) != on)
                                p->ecn[p->n_ecn++] = (QosEcnChange){ .priority = prio,
                                                                     .point = point,
                                                                     .on = on };
}

static int plan_tos(const ProfileQos *q, const SnapshotQosHost *sq, LinkPlanQosHost *p) {
        if (q->roce_tos < 0 || sq->rdma_error < 0 || sq->cm_error < 0)
                return 0;
        switch (sq->cm.state) {
        case RDMA_CM_READY:
                if (sq->cm.tos == (unsigned) q->roce_tos)
                        return 0;
                p->tos_from = (int) sq->cm.tos;
                break;
        case RDMA_CM_NO_DEVICE_DIR:
                /* What the kernel holds shows only once the directory is there. */
                p->create_cm_device = true;
                break;
        default:
                return 0; /* no configfs, or rdma_cm not loaded: nothing halod can write to */
        }
        p->tos_to = q->roce_tos;
        p->rdma_port = sq->rdma_port;
        p->rdma_device = strdup(sq->rdma_device);
        return p->rdma_device ? 0 : -ENOMEM;
}

int link_plan_qos_host_compute(const ProfileLink *pl, const SnapshotQosHost *sq, LinkPlan *lp) {
        LinkPlanQosHost *p;
        int r;

        if (!pl || !sq || !pl->qos.present)
                return 0;
        p = calloc(1, sizeof(LinkPlanQosHost));
        if (!p)
                return -ENOMEM;
        *p = (LinkPlanQosHost){ .tos_from = -1, .tos_to = -1 };
        plan_ecn(&pl->qos, sq, p);
        r = plan_tos(&pl->qos, sq, p);
        if (r < 0 || link_plan_qos_host_is_empty(p)) {
                link_plan_qos_host_free(p);
                return r;
        }
        link_plan_qos_host_free(lp->qos_host);
        lp->qos_host = p;
        return 0;
}

static const char *on_off(bool on) {
        return on ? "on" : "off";
}

/* "3:off/on": the journal's words for one priority's two points. */
static void ecn_words(unsigned prio, bool np, bool rp, char buf[static 32]) {
        (void) snprintf(buf, 32, "%u:%s/%s", prio, on_off(np), on_off(rp));
}

int link_plan_qos_host_changes(const LinkPlan *lp, PlanChanges *l) {
        const LinkPlanQosHost *p = lp->qos_host;
        int r;

        if (link_plan_qos_host_is_empty(p))
                return 0;
        /* One record a priority, both points in it. */
        for (unsigned prio = 0; prio < QOS_PRIORITIES; prio++) {
                bool changes[_ROCE_ECN_POINT_MAX] = {}, any = false, on = false;
                char from[32], to[32];
                PlanChangeEcn e;

                for (size_t i = 0; i < p->n_ecn; i++)
                        if (p->ecn[i].priority == prio) {
                                changes[p->ecn[i].point] = any = true;
                                on = p->ecn[i].on;
                        }
                if (!any)
                        continue;
                e = (PlanChangeEcn){
                        .priority = prio,
                        .np_from = changes[ROCE_ECN_NP] ? !on : on,
                        .rp_from = changes[ROCE_ECN_RP] ? !on : on,
                        .on = on,
                };
                ecn_words(prio, e.np_from, e.rp_from, from);
                ecn_words(prio, on, on, to);
                r = plan_changes_push(
                        l,
                        &(PlanChange){ .link = lp->link,
                                       .ifname = lp->ifname,
                                       .field = LINK_FIELD_QOS_ECN,
                                       .from = from,
                                       .to = to,
                                       .ecn = e });
                if (r < 0)
                        return r;
        }
        if (p->tos_to >= 0) {
                char from[16] = "", to[16];

                if (p->tos_from >= 0)
                        (void) snprintf(from, sizeof(from), "%d", p->tos_from);
                (void) snprintf(to, sizeof(to), "%d", p->tos_to);
                r = plan_changes_push(
                        l,
                        &(PlanChange){ .link = lp->link,
                                       .ifname = lp->ifname,
                                       .field = LINK_FIELD_QOS_TOS,
                                       .op = p->tos_from >= 0 ? PLAN_CHANGE_SET : PLAN_CHANGE_CREATE,
                                       .from = from,
                                       .to = to });
                if (r < 0)
                        return r;
        }
        return 0;
}

char *plan_change_qos_host_describe(const PlanChange *c, const char *label) {
        const PlanChangeEcn *e = &c->ecn;
        char *s = NULL;
        int r = -1;

        switch (c->field) {
        case LINK_FIELD_QOS_ECN:
                if (e->np_from == e->rp_from)
                        r = asprintf(
                                &s,
                                "%s: ecn %s → %s (priority %u)",
                                label,
                                on_off(e->np_from),
                                on_off(e->on),
                                e->priority);
                else
                        r = asprintf(
                                &s,
                                "%s: ecn %s (notification point), %s (reaction point) → %s (priority %u)",
                                label,
                                on_off(e->np_from),
                                on_off(e->rp_from),
                                on_off(e->on),
                                e->priority);
                break;
        case LINK_FIELD_QOS_TOS:
                r = c->op == PLAN_CHANGE_CREATE ? asprintf(
                                                          &s,
                                                          "%s: roce-tos → %s (creating rdma_cm's configfs "
                                                          "directory for the device first)",
                                                          label,
                                                          c->to)
                                                : asprintf(&s, "%s: roce-tos %s → %s", label, c->from, c->to);
                break;
        default:
                break;
        }
        return r < 0 ? NULL : s;
}
