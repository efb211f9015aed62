/* SPDX-License-Identifier: MIT */
/* The plan: what apply would change on each link of a node, from the kernel's and firewalld's state.
 * link-plan.c is the pure half (one link's plan from an observed state, the rule for stray
 * addresses, the description; no I/O, so that it is unit-tested); plan-read.c reads the host. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "net/rtnl.h"
#include "profile/node-context.h"

typedef struct LinkPlan {
        char *link;                /* logical name */
        char *ifname;              /* resolved netdev; NULL when it did not resolve (error says why) */
        uint32_t mtu_from, mtu_to; /* equal: no change */
        bool set_up;               /* the link is down and must go up */
        char **add_addresses;      /* "192.168.100.1/30" */
        char **remove_addresses;   /* stray addresses halod put there before */
        char *zone_from, *zone_to; /* both NULL: no change */
        char *error;               /* why this link cannot be applied, or NULL */
} LinkPlan;

typedef struct Plan {
        LinkPlan *links;
        size_t n_links;
} Plan;

/* Reads the kernel's (and firewalld's) state and computes what apply would change. Never changes
 * anything. */
int plan_node(const NodeContext *c, Plan *ret);
void plan_done(Plan *p);
bool plan_is_empty(const Plan *p) _pure_;
bool plan_has_errors(const Plan *p) _pure_;
/* One human line per change, "rdma0 (veth0): mtu 1500 → 9000". */
int plan_describe(const Plan *p, char ***ret_lines);

/* What firewalld said about one interface. */
typedef struct FirewallView {
        bool running;
        const char *zone; /* runtime zone of the interface, "" for none; NULL when not asked */
        char **zones;     /* the zones firewalld has; NULL when not asked */
} FirewallView;

/* An address on the link that halod removes when the link is to carry wanted: one halod added
 * before (IFA_PROTO is RTNL_ADDRESS_PROTO_HALOD), the wanted address with another prefix length, or
 * another address inside the wanted subnet. Everything else belongs to somebody else. */
bool address_is_stray(const RtnlAddress *a, const Ipv4Prefix *wanted) _pure_;

/* Whether apply removes link->addresses[i]: a stray address, or a secondary address in the subnet of
 * a stray primary one (the kernel deletes those with their primary). */
bool address_is_removed(const RtnlLink *link, size_t i, const Ipv4Prefix *wanted) _pure_;

/* Computes the plan of one link. ifname is the resolved netdev (NULL together with resolve_error when
 * it did not resolve). Problems that make the link impossible to apply (the netdev is gone, the
 * address is on another interface, the zone does not exist) go to ret->error. Returns 0 or
 * -ENOMEM. */
int link_plan_compute(
        const ProfileLink *pl,
        const NodeLink *nl,
        const char *ifname,
        const char *resolve_error,
        const RtnlState *state,
        const FirewallView *fw,
        LinkPlan *ret);
void link_plan_done(LinkPlan *lp);
bool link_plan_is_empty(const LinkPlan *lp) _pure_;

/* True when some link of the node asks for a firewall zone: only then is firewalld worth asking. */
bool node_wants_zones(const Profile *p, const ProfileNode *node) _pure_;

/* "rdma0 (veth0)" or "rdma0" when it did not resolve. */
char *link_plan_label(const LinkPlan *lp);
