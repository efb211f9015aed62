/* SPDX-License-Identifier: MIT */
/* The routes part of a link's plan: the node's routes on the link against the kernel's main table, the
 * rule for halod's stray routes, and the forwarding switch; and reading that switch into the snapshot. */
#include <stdio.h>

#include "net/ipv4-forwarding.h"
#include "plan/route-plan.h"

/* Whether the kernel's route k is the profile route want on the link with ifindex: destination,
 * gateway and link, and the metric when the profile gives one. */
static bool route_satisfies(const RtnlRoute *k, const NodeRoute *want, int ifindex) {
        return k->dst.s_addr == want->to.address.s_addr && k->dst_len == want->to.prefixlen &&
                k->gateway.s_addr == want->via.s_addr && k->ifindex == ifindex &&
                (!want->has_metric || k->metric == want->metric);
}

static bool same_destination(const RtnlRoute *a, const RtnlRoute *b) {
        return a->dst.s_addr == b->dst.s_addr && a->dst_len == b->dst_len;
}

/* The kernel route that the replace of want overwrites (same destination and metric), else any route
 * for the destination: what the profile's route is shown replacing. */
static const RtnlRoute *kernel_route_for(const RtnlRoute *routes, size_t n, const RtnlRoute *want) {
        const RtnlRoute *any = NULL;

        for (size_t i = 0; i < n; i++) {
                if (!same_destination(&routes[i], want))
                        continue;
                if (routes[i].metric == want->metric)
                        return &routes[i];
                any = any ?: &routes[i];
        }
        return any;
}

/* A route of halod's on the link goes when it is none of the link's profile routes, unless a route
 * added here overwrites it in place (same destination and metric). */
static bool route_is_stray(
        const RtnlRoute *k, const ProfileNode *node, const char *link, int ifindex, const LinkPlanRoutes *p) {
        if (k->protocol != RTNL_ROUTE_PROTO_HALOD || k->ifindex != ifindex)
                return false;
        for (size_t i = 0; i < node->n_routes; i++)
                if (streq(node->routes[i].link, link) && route_satisfies(k, &node->routes[i], ifindex))
                        return false;
        for (size_t i = 0; i < p->n_add; i++)
                if (same_destination(k, &p->add[i].route) && k->metric == p->add[i].route.metric)
                        return false;
        return true;
}

int link_plan_routes_compute(
        const ProfileNode *node,
        const char *link,
        const RtnlRoute *routes,
        size_t n_routes,
        int forwarding,
        LinkPlan *lp) {
        LinkPlanRoutes *p;

        p = calloc(1, sizeof(LinkPlanRoutes));
        if (!p)
                return -ENOMEM;
        p->add = calloc(node->n_routes ?: 1, sizeof(RouteAdd));
        p->remove = calloc(n_routes ?: 1, sizeof(RtnlRoute));
        if (!p->add || !p->remove) {
                link_plan_routes_free(p);
                return -ENOMEM;
        }

        for (size_t i = 0; i < node->n_routes; i++) {
                const NodeRoute *want = &node->routes[i];
                RouteAdd *a;
                const RtnlRoute *from;
                bool present = false;

                if (!streq(want->link, link))
                        continue;
                for (size_t j = 0; j < n_routes && !present; j++)
                        present = route_satisfies(&routes[j], want, lp->ifindex);
                if (present)
                        continue;
                a = &p->add[p->n_add++];
                a->route = (RtnlRoute){
                        .dst = want->to.address,
                        .dst_len = want->to.prefixlen,
                        .gateway = want->via,
                        .ifindex = lp->ifindex,
                        .metric = want->has_metric ? want->metric : 0,
                        .protocol = RTNL_ROUTE_PROTO_HALOD,
                };
                from = kernel_route_for(routes, n_routes, &a->route);
                if (from) {
                        a->replaces = true;
                        a->from = *from;
                }
        }
        for (size_t j = 0; j < n_routes; j++)
                if (route_is_stray(&routes[j], node, link, lp->ifindex, p))
                        p->remove[p->n_remove++] = routes[j];
        /* forwarding: false leaves the switch alone: the host may forward for reasons of its own. */
        p->enable_forwarding = node->forwarding && forwarding == 0;

        if (link_plan_routes_is_empty(p)) {
                link_plan_routes_free(p);
                return 0;
        }
        link_plan_routes_free(lp->routes);
        lp->routes = p;
        return 0;
}

void link_plan_routes_free(LinkPlanRoutes *r) {
        if (!r)
                return;
        free(r->add);
        free(r->remove);
        free(r);
}

bool link_plan_routes_is_empty(const LinkPlanRoutes *r) {
        return !r || (r->n_add == 0 && r->n_remove == 0 && !r->enable_forwarding);
}

int link_plan_routes_changes(const LinkPlan *lp, PlanChanges *l) {
        const LinkPlanRoutes *p = lp->routes;
        char a[RTNL_ROUTE_STRING_MAX], b[RTNL_ROUTE_STRING_MAX];
        int r = 0;

        if (link_plan_routes_is_empty(p))
                return 0;
        /* In the order apply makes them (lib/apply/apply-routes.c): routes, then forwarding. */
        for (size_t i = 0; r >= 0 && i < p->n_add; i++)
                r = p->add[i].replaces ? plan_changes_add(
                                                 l,
                                                 lp->link,
                                                 lp->ifname,
                                                 LINK_FIELD_ROUTE,
                                                 rtnl_route_to_string(&p->add[i].from, a),
                                                 rtnl_route_to_string(&p->add[i].route, b))
                                       : plan_changes_add_item(
                                                 l,
                                                 lp->link,
                                                 lp->ifname,
                                                 LINK_FIELD_ROUTE,
                                                 /* add= */ true,
                                                 rtnl_route_to_string(&p->add[i].route, b));
        for (size_t i = 0; r >= 0 && i < p->n_remove; i++)
                r = plan_changes_add_item(
                        l,
                        lp->link,
                        lp->ifname,
                        LINK_FIELD_ROUTE,
                        /* add= */ false,
                        rtnl_route_to_string(&p->remove[i], a));
        if (r >= 0 && p->enable_forwarding)
                r = plan_changes_add(l, lp->link, lp->ifname, LINK_FIELD_FORWARDING, "off", "on");
        return r;
}

char *plan_change_routes_describe(const PlanChange *c, const char *label) {
        char *s = NULL;
        int r = -1;

        if (c->field == LINK_FIELD_FORWARDING)
                r = asprintf(&s, "%s: forwarding %s → %s", label, c->from, c->to);
        else if (c->field == LINK_FIELD_ROUTE) {
                if (c->op == PLAN_CHANGE_ADD)
                        r = asprintf(&s, "%s: route + %s", label, c->to);
                else if (c->op == PLAN_CHANGE_REMOVE)
                        r = asprintf(&s, "%s: route - %s (halod's, no longer in the profile)", label, c->from);
                else
                        r = asprintf(&s, "%s: route %s → %s", label, c->from, c->to);
        }
        return r < 0 ? NULL : s;
}
