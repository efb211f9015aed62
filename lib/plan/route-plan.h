/* SPDX-License-Identifier: MIT */
/* The routes and the IPv4 forwarding switch of a node's links (the node's routes: and forwarding:),
 * which halod sets itself over rtnetlink and /proc/sys whatever the backend. The snapshot reads the
 * kernel's main-table routes with SNAPSHOT_LINKS (net/rtnl.h) and, when the node asks for forwarding,
 * each port's switch (Snapshot.forwarding); the plan compares them with the profile
 * (route-plan.c); apply makes the difference (lib/apply/apply-routes.c); link.<name>.routes and
 * link.<name>.forwarding report it (lib/check/check-routes.c). */
#pragma once

#include "plan/plan.h"

/* One route to add, or to put in place of the kernel's route for the same destination and metric. */
typedef struct RouteAdd {
        RtnlRoute route; /* what the kernel gets (protocol RTNL_ROUTE_PROTO_HALOD) */
        bool replaces;   /* the kernel has a route for the destination that differs: from */
        RtnlRoute from;
} RouteAdd;

struct LinkPlanRoutes {
        RouteAdd *add; /* in the profile's (destination) order */
        size_t n_add;
        RtnlRoute *remove; /* halod's routes on the link that the profile no longer has */
        size_t n_remove;
        bool enable_forwarding; /* the node asks for forwarding and the link's switch is off */
};

/* The routes part of the link's plan (lp->ifindex set: the kernel has the link) from the kernel's
 * routes and the switch (forwarding: 1 on, 0 off, negative: not read); sets lp->routes when something
 * is to change. Returns 0 or -ENOMEM. */
int link_plan_routes_compute(
        const ProfileNode *node,
        const char *link,
        const RtnlRoute *routes,
        size_t n_routes,
        int forwarding,
        LinkPlan *lp);
void link_plan_routes_free(LinkPlanRoutes *r);
bool link_plan_routes_is_empty(const LinkPlanRoutes *r) _pure_;
/* Appends its change records in apply's order: LINK_FIELD_ROUTE "" → "10.0.3.0/24 via 10.0.2.3"
 * (added), "10.0.3.0/24 via 10.0.2.9" → "10.0.3.0/24 via 10.0.2.3" (replaced), "10.0.9.0/24 via
 * 10.0.2.3" → "" (removed); then LINK_FIELD_FORWARDING "off" → "on". */
int link_plan_routes_changes(const LinkPlan *lp, PlanChanges *l);
/* "rdma0 (veth0): route + 10.0.3.0/24 via 10.0.2.3", "rdma0 (veth0): forwarding off → on". */
char *plan_change_routes_describe(const PlanChange *c, const char *label);
