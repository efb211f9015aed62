/* SPDX-License-Identifier: MIT */
/* The routes and the forwarding switch of one link, made after the backend's part: a route through a
 * gateway needs the link's address and the link up, which the backend provides; and NetworkManager
 * leaves a route of another protocol alone (halod(8), Routes and forwarding). */
#include <stdio.h>

#include "apply/apply-routes.h"
#include "basic/errorf.h"
#include "net/ipv4-forwarding.h"
#include "plan/route-plan.h"

/* Takes back the first n_added routes, those that replaced none (a replaced route's old gateway is
 * not kept: the error says so). */
static void rollback(Rtnl *rtnl, const LinkPlan *lp, size_t n_added) {
        const LinkPlanRoutes *p = lp->routes;

        for (size_t i = n_added; i > 0; i--)
                if (!p->add[i - 1].replaces)
                        (void) rtnl_delete_route(rtnl, &p->add[i - 1].route, NULL);
}

static int apply_routes(const LinkPlan *lp, const char *label, char **ret_error) {
        const LinkPlanRoutes *p = lp->routes;
        _cleanup_(rtnl_closep) Rtnl *rtnl = NULL;
        char s[RTNL_ROUTE_STRING_MAX];
        size_t n_added = 0;
        int r;

        if (p->n_add == 0 && p->n_remove == 0)
                return 0;
        r = rtnl_open(&rtnl);
        if (r < 0)
                return errorf(ret_error, r, "%s: cannot open rtnetlink: %s", label, strerror(-r));
        for (; n_added < p->n_add; n_added++) {
                _cleanup_(freep) char *e = NULL;

                r = rtnl_replace_route(rtnl, &p->add[n_added].route, &e);
                if (r < 0) {
                        rollback(rtnl, lp, n_added);
                        return errorf(
                                ret_error,
                                r,
                                "%s: the kernel refused the route %s: %s; check that the gateway is on the "
                                "link's subnet and the link is up",
                                label,
                                rtnl_route_to_string(&p->add[n_added].route, s),
                                e ?: strerror(-r));
                }
        }
        for (size_t i = 0; i < p->n_remove; i++) {
                _cleanup_(freep) char *e = NULL;

                r = rtnl_delete_route(rtnl, &p->remove[i], &e);
                if (r == -ESRCH)
                        continue; /* gone already (with an address, say): what was wanted */
                if (r < 0) {
                        rollback(rtnl, lp, n_added);
                        return errorf(
                                ret_error,
                                r,
                                "%s: cannot remove halod's old route %s: %s",
                                label,
                                rtnl_route_to_string(&p->remove[i], s),
                                e ?: strerror(-r));
                }
        }
        return 0;
}

int apply_routes_link(const LinkPlan *lp, char **ret_error) {
        const LinkPlanRoutes *p = lp->routes;
        _cleanup_(freep) char *label = NULL;
        int r;

        if (link_plan_routes_is_empty(p))
                return 0;
        label = link_plan_label(lp);
        if (!label)
                return -ENOMEM;

        r = apply_routes(lp, label, ret_error);
        if (r < 0)
                return r;
        /* Last, and on its own: the routes are right whether or not this node forwards, so a switch
         * that cannot be set does not take them back. */
        if (p->enable_forwarding) {
                r = ipv4_forwarding_write(lp->ifname, true);
                if (r < 0)
                        return errorf(
                                ret_error,
                                r,
                                "%s: cannot turn on IPv4 forwarding on %s (net.ipv4.conf.%s.forwarding): %s",
                                label,
                                lp->ifname,
                                lp->ifname,
                                strerror(-r));
        }
        return 0;
}
