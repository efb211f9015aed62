/* SPDX-License-Identifier: MIT */
/* Planning a link's DCB (PFC, the DSCP entries of the APP table, the APP trust order) from the driver's
 * state: pure functions, no I/O; and the change records and lines of that part of the plan. */
#include <stdio.h>

#include "basic/errorf.h"
#include "plan/plan.h"
#include "plan/qos-plan-dcb.h"

LinkPlanDcb *link_plan_dcb_free(LinkPlanDcb *d) {
        return mfree(d);
}

bool link_plan_dcb_is_empty(const LinkPlanDcb *d) {
        return !d || (!d->pfc_change && !d->trust_change && d->n_add == 0 && d->n_remove == 0);
}

static uint8_t trust_selector(QosTrust t) {
        return t == QOS_TRUST_DSCP ? IEEE_8021QAZ_APP_SEL_DSCP : DCBNL_APP_SEL_PCP;
}

static void plan_dscp(const ProfileQos *q, LinkPlanDcb *d) {
        const DcbState *b = &d->before;

        for (unsigned dscp = 0; dscp < QOS_DSCP_VALUES; dscp++) {
                struct dcb_app want = {
                        .selector = IEEE_8021QAZ_APP_SEL_DSCP,
                        .priority = (uint8_t) q->dscp_priority[dscp],
                        .protocol = (uint16_t) dscp,
                };

                if (q->dscp_priority[dscp] < 0)
                        continue;
                if (!dcb_state_has_app(b, &want))
                        d->add[d->n_add++] = want;
                /* Another priority for the same DSCP would leave the driver to pick one of the two. */
                for (size_t i = 0; i < b->n_apps && d->n_remove < DCB_APPS_MAX; i++)
                        if (b->apps[i].selector == want.selector && b->apps[i].protocol == want.protocol &&
                            b->apps[i].priority != want.priority)
                                d->remove[d->n_remove++] = b->apps[i];
        }
}

/* The trust: where the driver has a trust table, the wanted selector first and the others it trusts
 * after it, in their order. Where it has none (mlx5, ice), the driver trusts DSCP exactly while its APP
 * table has DSCP entries: mlx5e_dcbnl_ieee_setapp() (en_dcbnl.c) switches the port to DSCP trust when
 * the first one is added, ice_dcbnl_setapp() (ice_dcb_nl.c) to DSCP mode. A profile that asks for
 * trust: dscp and leaves the map to the NIC (validate accepts it: halod.yaml(5), QOS) gets the one
 * entry that changes nothing in the ConnectX firmware's default map, DSCP >> 3: RoCE's DSCP (of
 * roce-tos; 26: 3 for 106), else DSCP 0: 0. With trust: pcp, DSCP entries cannot go without taking
 * away what someone else set: that is for the person to say. */
static int plan_trust(const ProfileQos *q, LinkPlanDcb *d, LinkPlan *lp) {
        const DcbState *b = &d->before;
        uint8_t want = trust_selector(q->trust);
        size_t dscp_after;

        if (q->trust < 0)
                return 0;
        if (b->has_trust) {
                if (b->n_trust > 0 && b->trust[0] == want)
                        return 0;
                d->trust_change = true;
                d->trust_to[d->n_trust_to++] = want;
                for (size_t i = 0; i < b->n_trust && d->n_trust_to < DCB_TRUST_MAX; i++)
                        if (b->trust[i] != want)
                                d->trust_to[d->n_trust_to++] = b->trust[i];
                return 0;
        }

        dscp_after = dcb_state_count_selector(b, IEEE_8021QAZ_APP_SEL_DSCP) + d->n_add - d->n_remove;
        if (lp->error)
                return 0;
        if (q->trust == QOS_TRUST_DSCP && dscp_after == 0 && d->n_add < ELEMENTSOF(d->add)) {
                unsigned dscp = q->roce_tos >= 0 ? (unsigned) q->roce_tos >> 2 : 0;

                d->add[d->n_add++] = (struct dcb_app){ .selector = IEEE_8021QAZ_APP_SEL_DSCP,
                                                       .priority = (uint8_t) (dscp >> 3),
                                                       .protocol = (uint16_t) dscp };
                d->n_add_for_trust = 1;
                return 0;
        }
        if (q->trust == QOS_TRUST_PCP && dscp_after > 0)
                return errorf(
                        &lp->error,
                        0,
                        "the driver of %s has no APP trust table (DCB_ATTR_DCB_APP_TRUST_TABLE) and trusts DSCP "
                        "while its APP table maps DSCP values; remove them (dcb app flush dev %s dscp-prio) or "
                        "make the link's qos: say trust: dscp",
                        lp->ifname,
                        lp->ifname);
        return 0;
}

static int read_error(const SnapshotDcb *sd, LinkPlan *lp) {
        if (lp->error)
                return 0;
        if (sd->error == -EOPNOTSUPP)
                return errorf(
                        &lp->error,
                        0,
                        "the driver of %s has no DCB support (the kernel answered EOPNOTSUPP), so the link's qos: "
                        "pfc, trust and dscp-priority cannot be applied; remove them from the profile, or match a "
                        "NIC whose driver has DCB (ice, mlx5_core)",
                        lp->ifname);
        return errorf(
                &lp->error,
                0,
                "cannot read the DCB state of %s: %s",
                lp->ifname,
                sd->message ?: strerror(-sd->error));
}

int link_plan_dcb_compute(const ProfileLink *pl, const SnapshotDcb *sd, LinkPlan *lp) {
        const ProfileQos *q;
        LinkPlanDcb *d;
        int r = 0;

        if (!pl || !qos_wants_dcb(&pl->qos) || !sd || !lp->ifname || sd->error == -ENOMEDIUM)
                return 0;
        q = &pl->qos;
        if (sd->error < 0)
                return read_error(sd, lp);
        /* Not knowing is not "off": a change pushed while ice's firmware agent owns DCB is the switch's
         * to overwrite. -ENOENT: the driver has no such flag, so no agent. */
        if (sd->lldp_agent < 0 && sd->lldp_agent != -ENOMEDIUM && sd->lldp_agent != -ENOENT)
                return lp->error ? 0
                                 : errorf(&lp->error,
                                          0,
                                          "cannot tell whether the firmware LLDP agent of %s owns DCB (the "
                                          "fw-lldp-agent private flag, SIOCETHTOOL): %s",
                                          lp->ifname,
                                          strerror(-sd->lldp_agent));

        d = calloc(1, sizeof(LinkPlanDcb));
        if (!d)
                return -ENOMEM;
        lp->dcb = d;
        d->before = sd->state;
        d->lldp_agent = sd->lldp_agent > 0;

        if (q->has_pfc) {
                if (!d->before.has_pfc)
                        r = lp->error ? 0
                                      : errorf(&lp->error,
                                               0,
                                               "the driver of %s reports no PFC state (DCB_ATTR_IEEE_PFC), so "
                                               "halod cannot set PFC on it",
                                               lp->ifname);
                else if (d->before.pfc.pfc_en != q->pfc) {
                        d->pfc_change = true;
                        d->pfc_to = q->pfc;
                }
        }
        if (r < 0)
                return r;
        if (q->has_dscp_map)
                plan_dscp(q, d);
        r = plan_trust(q, d, lp);
        if (r < 0)
                return r;

        if (d->lldp_agent && !link_plan_dcb_is_empty(d) && !lp->error)
                return errorf(
                        &lp->error,
                        0,
                        "the firmware LLDP agent of %s is on: the switch's DCBX settings win over the host's and "
                        "the driver refuses DCB changes; turn it off with ethtool --set-priv-flags %s "
                        "fw-lldp-agent off",
                        lp->ifname,
                        lp->ifname);
        return 0;
}

static int add_change(PlanChanges *l, const LinkPlan *lp, LinkField field, const char *from, const char *to) {
        return plan_changes_add(l, lp->link, lp->ifname, field, from, to);
}

/* The record of one DSCP entry to add: the priorities the table has for it now, in the table's order. */
static PlanChangeDscp dscp_change(const DcbState *b, const struct dcb_app *add) {
        PlanChangeDscp d = { .dscp = (uint8_t) add->protocol, .to = add->priority };

        for (size_t i = 0; i < b->n_apps && d.n_from < ELEMENTSOF(d.from); i++)
                if (b->apps[i].selector == IEEE_8021QAZ_APP_SEL_DSCP && b->apps[i].protocol == add->protocol)
                        d.from[d.n_from++] = b->apps[i].priority;
        return d;
}

/* "0" or "0,5": the priorities; "none" without any. */
static const char *dscp_priorities(const uint8_t *prios, size_t n, char *buf, size_t size) {
        int k = 0;

        (void) snprintf(buf, size, "none");
        for (size_t i = 0; i < n && k >= 0 && (size_t) k < size; i++)
                k += snprintf(buf + k, size - k, "%s%u", i > 0 ? "," : "", prios[i]);
        return buf;
}

static int add_dscp_change(PlanChanges *l, const LinkPlan *lp, const struct dcb_app *add) {
        PlanChangeDscp d = dscp_change(&lp->dcb->before, add);
        char prios[32], from[48], to[16];

        /* The journal's words: "26:0" or "26:0,5", "26:none" without any; "26:3". */
        (void) snprintf(
                from, sizeof(from), "%u:%s", d.dscp, dscp_priorities(d.from, d.n_from, prios, sizeof(prios)));
        (void) snprintf(to, sizeof(to), "%u:%u", d.dscp, d.to);
        return plan_changes_push(
                l,
                &(PlanChange){ .link = lp->link,
                               .ifname = lp->ifname,
                               .field = LINK_FIELD_QOS_DSCP,
                               .from = from,
                               .to = to,
                               .dscp = d });
}

int link_plan_dcb_changes(const LinkPlan *lp, PlanChanges *l) {
        const LinkPlanDcb *d = lp->dcb;
        int r = 0;

        if (link_plan_dcb_is_empty(d))
                return 0;
        if (d->pfc_change) {
                char a[16], b[16];

                r = add_change(
                        l,
                        lp,
                        LINK_FIELD_QOS_PFC,
                        dcb_pfc_to_string(d->before.pfc.pfc_en, a),
                        dcb_pfc_to_string(d->pfc_to, b));
        }
        for (size_t i = 0; r >= 0 && i < d->n_add; i++)
                r = add_dscp_change(l, lp, &d->add[i]);
        if (r >= 0 && d->trust_change) {
                char a[DCB_TRUST_STRING_MAX], b[DCB_TRUST_STRING_MAX];

                r = add_change(
                        l,
                        lp,
                        LINK_FIELD_QOS_TRUST,
                        dcb_trust_to_string(d->before.trust, d->before.n_trust, a),
                        dcb_trust_to_string(d->trust_to, d->n_trust_to, b));
        }
        return r;
}

char *plan_change_dcb_describe(const PlanChange *c, const char *label) {
        char prios[32];
        char *s = NULL;
        int r = -1;

        switch (c->field) {
        case LINK_FIELD_QOS_PFC:
                r = asprintf(&s, "%s: pfc %s → %s", label, c->from, c->to);
                break;
        case LINK_FIELD_QOS_TRUST:
                r = asprintf(&s, "%s: trust %s → %s", label, c->from, c->to);
                break;
        case LINK_FIELD_QOS_DSCP:
                /* "dscp-priority 26: 0 → 3" */
                r = asprintf(
                        &s,
                        "%s: dscp-priority %u: %s → %u",
                        label,
                        c->dscp.dscp,
                        dscp_priorities(c->dscp.from, c->dscp.n_from, prios, sizeof(prios)),
                        c->dscp.to);
                break;
        default:
                break;
        }
        return r < 0 ? NULL : s;
}
