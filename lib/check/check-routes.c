/* SPDX-License-Identifier: MIT */
/* link.<name>.routes: every profile route of the link in the kernel's main table with its gateway (and
 * metric when given); link.<name>.forwarding: the link's IPv4 forwarding switch on when the node asks. */
#include <arpa/inet.h>
#include <stdio.h>

#include "basic/strv.h"
#include "check/check-routes.h"
#include "plan/route-plan.h"

/* "10.0.3.0/24 via 10.0.2.3, 10.0.4.0/24 via 10.0.2.3 metric 100": the link's profile routes. */
static int wanted_routes(const ProfileNode *node, const char *link, size_t *ret_n, char **ret) {
        _cleanup_(strv_freep) char **l = NULL;
        size_t n = 0;

        for (size_t i = 0; i < node->n_routes; i++) {
                const NodeRoute *w = &node->routes[i];
                RtnlRoute k = { .dst = w->to.address,
                                .dst_len = w->to.prefixlen,
                                .gateway = w->via,
                                .metric = w->metric };
                char s[RTNL_ROUTE_STRING_MAX];

                if (!streq(w->link, link))
                        continue;
                n++;
                if (strv_extend(&l, rtnl_route_to_string(&k, s)) < 0)
                        return -ENOMEM;
        }
        *ret = l ? strv_join(l, ", ") : strdup("");
        *ret_n = n;
        return *ret ? 0 : -ENOMEM;
}

static int check_routes(
        const ProfileNode *node, const NodeLink *nl, const LinkPlan *lp, const char *label, CheckList *out) {
        const LinkPlanRoutes *p = lp->routes;
        _cleanup_(strv_freep) char **wrong = NULL;
        _cleanup_(freep) char *want = NULL, *joined = NULL;
        size_t n;
        int r;

        r = wanted_routes(node, nl->link, &n, &want);
        if (r < 0)
                return r;
        for (size_t i = 0; p && i < p->n_add; i++) {
                char a[RTNL_ROUTE_STRING_MAX], b[RTNL_ROUTE_STRING_MAX];

                r = p->add[i].replaces
                        ? strv_extendf(
                                  &wrong,
                                  "%s is %s",
                                  rtnl_route_to_string(&p->add[i].route, a),
                                  rtnl_route_to_string(&p->add[i].from, b))
                        : strv_extendf(&wrong, "%s is missing", rtnl_route_to_string(&p->add[i].route, a));
                if (r < 0)
                        return -ENOMEM;
        }
        if (!wrong)
                return check_list_add_link(
                        out,
                        nl->link,
                        "routes",
                        CHECK_PASS,
                        want,
                        want,
                        "%s has its %zu route%s: %s",
                        label,
                        n,
                        n == 1 ? "" : "s",
                        want);
        joined = strv_join(wrong, "; ");
        if (!joined)
                return -ENOMEM;
        return check_list_add_link(
                out,
                nl->link,
                "routes",
                CHECK_FAIL,
                want,
                joined,
                "%s: %s (the kernel's main table); haloctl apply adds them",
                label,
                joined);
}

static int check_forwarding(const NodeLink *nl, const char *label, int state, CheckList *out) {
        if (state < 0)
                return check_list_add_link(
                        out,
                        nl->link,
                        "forwarding",
                        CHECK_FAIL,
                        "on",
                        "",
                        "cannot read /proc/sys/net/ipv4/conf/%s/forwarding: %s",
                        label,
                        strerror(-state));
        if (state == 0)
                return check_list_add_link(
                        out,
                        nl->link,
                        "forwarding",
                        CHECK_FAIL,
                        "on",
                        "off",
                        "%s does not forward IPv4, and the profile's forwarding: true says the chain goes through this node; haloctl apply turns it on",
                        label);
        return check_list_add_link(
                out, nl->link, "forwarding", CHECK_PASS, "on", "on", "%s forwards IPv4", label);
}

/* In this order; each only where the profile asks (tests/docs/test-docs.sh reads the list). */
static const char *const route_checks[] = { "routes", "forwarding" };

int check_link_routes(
        const ProfileNode *node,
        const NodeLink *nl,
        const LinkPlan *lp,
        int forwarding_state,
        const char *skip,
        CheckList *out) {
        _cleanup_(freep) char *label = NULL;
        bool has_routes = false;
        int r = 0;

        for (size_t i = 0; i < node->n_routes; i++)
                has_routes = has_routes || streq(node->routes[i].link, nl->link);
        if (!has_routes && !node->forwarding)
                return 0;
        label = link_plan_label(lp);
        if (!label)
                return -ENOMEM;
        if (skip) {
                for (size_t i = 0; r >= 0 && i < ELEMENTSOF(route_checks); i++)
                        if (i == 0 ? has_routes : node->forwarding)
                                r = check_list_skip_link(
                                        out, nl->link, route_checks[i], "%s %s", nl->link, skip);
                return r;
        }
        if (has_routes)
                r = check_routes(node, nl, lp, label, out);
        if (r >= 0 && node->forwarding)
                r = check_forwarding(nl, label, forwarding_state, out);
        return r;
}
