/* SPDX-License-Identifier: MIT */
/* A plan as change records (plan/change-record.h), in apply's order, and as the lines haloctl and the
 * journal show: the parts' records and words come from the parts' files. */
#include <stdio.h>

#include "basic/etc-hosts.h"
#include "basic/strv.h"
#include "plan/hosts-plan.h"
#include "plan/plan.h"
#include "plan/qos-plan-host.h"
#include "plan/route-plan.h"

static int add_change(PlanChanges *l, const LinkPlan *lp, LinkField field, const char *from, const char *to) {
        return plan_changes_add(l, lp->link, lp->ifname, field, from, to);
}

static int link_plan_changes(const LinkPlan *lp, PlanChanges *l) {
        char a[IPV4_PREFIX_STRING_MAX], b[IPV4_PREFIX_STRING_MAX];
        int r;

        /* DCB first: apply makes it before the backend's part (lib/apply/apply-qos-dcb.c says why). */
        r = link_plan_dcb_changes(lp, l);
        if (r >= 0 && lp->mtu_from != lp->mtu_to) {
                (void) snprintf(a, sizeof(a), "%u", lp->mtu_from);
                (void) snprintf(b, sizeof(b), "%u", lp->mtu_to);
                r = add_change(l, lp, LINK_FIELD_MTU, a, b);
        }
        if (r >= 0 && lp->set_up)
                r = add_change(l, lp, LINK_FIELD_UP, "down", "up");
        for (size_t i = 0; r >= 0 && i < lp->n_remove_addresses; i++) {
                const RtnlAddress *old = &lp->remove_addresses[i];
                Ipv4Prefix p = { .address = old->address, .prefixlen = old->prefixlen };

                r = plan_changes_add_item(
                        l,
                        lp->link,
                        lp->ifname,
                        LINK_FIELD_ADDRESS,
                        /* add= */ false,
                        ipv4_prefix_to_string(&p, a));
        }
        if (r >= 0 && lp->add_address)
                r = plan_changes_add_item(
                        l,
                        lp->link,
                        lp->ifname,
                        LINK_FIELD_ADDRESS,
                        /* add= */ true,
                        ipv4_prefix_to_string(&lp->address, b));
        if (r >= 0 && lp->zone_to)
                r = add_change(l, lp, LINK_FIELD_ZONE, strempty(lp->zone_from), lp->zone_to);
        /* After the backend's part: apply writes them last (lib/apply/apply-qos-host.c). */
        if (r >= 0)
                r = link_plan_qos_host_changes(lp, l);
        /* Last: a route through a gateway needs the link's address (lib/apply/apply-routes.c). */
        if (r >= 0)
                r = link_plan_routes_changes(lp, l);
        return r;
}

int plan_changes(const Plan *p, PlanChanges *ret) {
        int r;

        for (size_t i = 0; i < p->n_links; i++) {
                if (p->links[i].error)
                        continue;
                r = link_plan_changes(&p->links[i], ret);
                if (r < 0)
                        return r;
        }
        /* After the links: apply writes the file last (lib/apply/apply-hosts.c). */
        return hosts_plan_changes(p->hosts, ret);
}

char *plan_change_describe(const PlanChange *c) {
        _cleanup_(freep) char *label = NULL;
        char *s = NULL;
        int r = -1;

        if (isempty(c->ifname))
                label = strdup(c->link);
        else if (asprintf(&label, "%s (%s)", c->link, c->ifname) < 0)
                label = NULL;
        if (!label)
                return NULL;

        switch (c->field) {
        case LINK_FIELD_MTU:
                r = asprintf(&s, "%s: mtu %s → %s", label, c->from, c->to);
                break;
        case LINK_FIELD_UP:
                r = asprintf(&s, "%s: link %s → %s", label, c->from, c->to);
                break;
        case LINK_FIELD_ADDRESS:
        case LINK_FIELD_HOSTS:
                r = c->op == PLAN_CHANGE_REMOVE ? asprintf(&s, "%s: - %s", label, c->from)
                                                : asprintf(&s, "%s: + %s", label, c->to);
                break;
        case LINK_FIELD_ZONE:
                r = asprintf(&s, "%s: zone %s → %s", label, isempty(c->from) ? "(none)" : c->from, c->to);
                break;
        case LINK_FIELD_OWNER:
                r = asprintf(&s, "%s: adopt %s: %s", label, c->from, c->to);
                break;
        case LINK_FIELD_QOS_PFC:
        case LINK_FIELD_QOS_TRUST:
        case LINK_FIELD_QOS_DSCP:
                s = plan_change_dcb_describe(c, label);
                r = s ? 0 : -1;
                break;
        case LINK_FIELD_QOS_ECN:
        case LINK_FIELD_QOS_TOS:
                s = plan_change_qos_host_describe(c, label);
                r = s ? 0 : -1;
                break;
        case LINK_FIELD_ROUTE:
        case LINK_FIELD_FORWARDING:
                s = plan_change_routes_describe(c, label);
                r = s ? 0 : -1;
                break;
        default:
                break;
        }
        return r < 0 ? NULL : s;
}

int plan_describe(const Plan *p, char ***ret_lines) {
        _cleanup_(strv_freep) char **lines = NULL;
        int r;

        /* An empty, allocated list: callers can tell "nothing" from "failed". */
        lines = calloc(1, sizeof(char *));
        if (!lines)
                return -ENOMEM;
        for (size_t i = 0; i < p->n_links; i++) {
                const LinkPlan *lp = &p->links[i];
                _cleanup_(plan_changes_done) PlanChanges changes = {};

                if (lp->error) {
                        _cleanup_(freep) char *label = link_plan_label(lp);

                        if (!label || strv_extendf(&lines, "%s: cannot apply: %s", label, lp->error) < 0)
                                return -ENOMEM;
                        continue;
                }
                r = link_plan_changes(lp, &changes);
                if (r < 0)
                        return r;
                for (size_t k = 0; k < changes.n_changes; k++)
                        if (strv_consume(&lines, plan_change_describe(&changes.changes[k])) < 0)
                                return -ENOMEM;
        }
        if (p->hosts && p->hosts->error) {
                if (strv_extendf(&lines, "%s: cannot apply: %s", ETC_HOSTS_PATH, p->hosts->error) < 0)
                        return -ENOMEM;
        } else if (p->hosts) {
                _cleanup_(plan_changes_done) PlanChanges changes = {};

                r = hosts_plan_changes(p->hosts, &changes);
                if (r < 0)
                        return r;
                for (size_t k = 0; k < changes.n_changes; k++)
                        if (strv_consume(&lines, plan_change_describe(&changes.changes[k])) < 0)
                                return -ENOMEM;
        }
        *ret_lines = TAKE_PTR(lines);
        return 0;
}
