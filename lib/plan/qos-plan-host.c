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

int link_plan_qos_host_changes(const LinkPlan *lp, PlanChanges *l) {
        const LinkPlanQosHost *p = lp->qos_host;
        int r;

        if (link_plan_qos_host_is_empty(p))
                return 0;
        /* One record a priority, both points in it. */
        for (unsigned prio = 0; prio < QOS_PRIORITIES; prio++) {
                bool changes[_ROCE_ECN_POINT_MAX] = {}, any = false, on = false;
                char from[32], to[32];

                for (size_t i = 0; i < p->n_ecn; i++)
                        if (p->ecn[i].priority == prio) {
                                changes[p->ecn[i].point] = any = true;
                                on = p->ecn[i].on;
                        }
                if (!any)
                        continue;
                (void) snprintf(
                        from,
                        sizeof(from),
                        "%u:%s/%s",
                        prio,
                        on_off(changes[ROCE_ECN_NP] ? !on : on),
                        on_off(changes[ROCE_ECN_RP] ? !on : on));
                (void) snprintf(to, sizeof(to), "%u:%s/%s", prio, on_off(on), on_off(on));
                r = plan_changes_add(l, lp->link, lp->ifname, LINK_FIELD_QOS_ECN, from, to);
                if (r < 0)
                        return r;
        }
        if (p->tos_to >= 0) {
                char from[16] = "", to[16];

                if (p->tos_from >= 0)
                        (void) snprintf(from, sizeof(from), "%d", p->tos_from);
                (void) snprintf(to, sizeof(to), "%d", p->tos_to);
                r = plan_changes_add(l, lp->link, lp->ifname, LINK_FIELD_QOS_TOS, from, to);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* "3:off/on" into the priority and the two points' words. */
static bool parse_ecn(const char *s, unsigned *ret_prio, char ret_np[8], char ret_rp[8]) {
        return sscanf(s, "%u:%7[a-z]/%7[a-z]", ret_prio, ret_np, ret_rp) == 3;
}

char *plan_change_qos_host_describe(const PlanChange *c, const char *label) {
        char np_from[8], rp_from[8], np_to[8], rp_to[8];
        unsigned prio, prio_to;
        char *s = NULL;
        int r = -1;

        switch (c->field) {
        case LINK_FIELD_QOS_ECN:
                if (!parse_ecn(c->from, &prio, np_from, rp_from) || !parse_ecn(c->to, &prio_to, np_to, rp_to))
                        r = asprintf(&s, "%s: ecn %s → %s", label, c->from, c->to);
                else if (streq(np_from, rp_from))
                        r = asprintf(&s, "%s: ecn %s → %s (priority %u)", label, np_from, np_to, prio);
                else
                        r = asprintf(
                                &s,
                                "%s: ecn %s (notification point), %s (reaction point) → %s (priority %u)",
                                label,
                                np_from,
                                rp_from,
                                np_to,
                                prio);
                break;
        case LINK_FIELD_QOS_TOS:
                r = isempty(c->from) ? asprintf(
                                               &s,
                                               "%s: roce-tos → %s (creating rdma_cm's configfs directory for "
                                               "the device first)",
                                               label,
                                               c->to)
                                     : asprintf(&s, "%s: roce-tos %s → %s", label, c->from, c->to);
                break;
        default:
                break;
        }
        return r < 0 ? NULL : s;
}
