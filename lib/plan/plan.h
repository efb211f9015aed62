/* SPDX-License-Identifier: MIT */
/* The plan: the one comparison of the profile against the snapshot of the host (snapshot/snapshot.h),
 * link by link. The link checks report from it, apply carries out its changes through a backend, and
 * the journal gets its change records. link-plan.c is the pure half (one link's plan from an observed
 * state, the rule for stray addresses; no I/O, so that it is unit-tested); plan-change.c turns plans
 * into change records (plan/change-record.h) and lines; plan-node.c plans every link of a node from a
 * snapshot. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "net/rtnl.h"
#include "plan/change-record.h"
#include "plan/qos-plan-dcb.h"
#include "profile/node-context.h"
#include "snapshot/snapshot.h"

/* plan/qos-plan-host.h */
typedef struct LinkPlanQosHost LinkPlanQosHost;
/* plan/hosts-plan.h */
typedef struct HostsPlan HostsPlan;
/* plan/route-plan.h */
typedef struct LinkPlanRoutes LinkPlanRoutes;

/* What the profile wants of the link as a whole: a backend that configures a link whole (networkd's
 * file, NetworkManager's profile) writes it all, whatever the comparison found. */
typedef struct LinkWant {
        uint32_t mtu; /* 0: leave alone */
        char *zone;   /* the firewall zone; NULL: leave alone */
        bool ipv6;
        /* The node's routes (those of every link) and whether it forwards; borrowed from the profile,
         * which outlives the plan. */
        const NodeRoute *routes;
        size_t n_routes;
        bool forwarding;
} LinkWant;

typedef struct LinkPlan {
        char *link;       /* logical name */
        char *ifname;     /* resolved netdev; NULL when it did not resolve (error says why) */
        int ifindex;      /* the netdev's index in the kernel; 0 when the kernel does not have it */
        uint32_t max_mtu; /* the largest MTU the netdev takes; 0: the kernel did not say */

        /* The comparison, also for a link that cannot be applied (error), so that the checks report
         * every difference; only the netdev missing leaves it empty. */
        uint32_t mtu_from, mtu_to;     /* equal: no change */
        bool set_up;                   /* the link is down and must go up */
        RtnlAddress *remove_addresses; /* in the kernel's order (address_is_removed()) */
        size_t n_remove_addresses;
        bool add_address;          /* the node's address is missing and must be added */
        Ipv4Prefix address;        /* the node's address on the link */
        char *zone_from, *zone_to; /* both NULL: no change; zone_from "" is no zone */
        LinkPlanDcb *dcb; /* plan/qos-plan-dcb.h; NULL when the link's qos: asks nothing of DCB or its state
                           * was not read */
        LinkPlanQosHost *qos_host; /* ECN and the RoCE ToS to change; NULL: nothing */
        LinkPlanRoutes *routes;    /* routes and forwarding to change (plan/route-plan.h); NULL: nothing */

        LinkWant want;
        /* Take the link over from the configuration that holds it now (haloctl apply --adopt,
         * lib/apply/adopt.h) instead of refusing: apply_node() sets it, halod itself never does. */
        bool adopt;

        char *error; /* why this link cannot be applied, or NULL */
} LinkPlan;

typedef struct Plan {
        LinkPlan *links;
        size_t n_links;
        HostsPlan *hosts; /* halod's block in /etc/hosts (health.hosts: manage); NULL: nothing to change */
} Plan;

/* Plans every link of the snapshot's node, reading the parts of the host it needs into the snapshot
 * (SNAPSHOT_PORTS, SNAPSHOT_LINKS and SNAPSHOT_DCB) unless it has them. Never changes anything. Returns 0,
 * -EINVAL without a node, or the error that kept the kernel from being read. */
int plan_from_snapshot(Snapshot *s, Plan *ret);
/* The same on a snapshot of its own. */
int plan_node(const NodeContext *c, Plan *ret);
/* The plan of the node's link i from what the snapshot holds, without reading anything: a snapshot
 * without the kernel's state plans every resolved link as missing from the kernel. */
int link_plan_from_snapshot(const Snapshot *s, size_t i, LinkPlan *ret);
void plan_done(Plan *p);
bool plan_is_empty(const Plan *p) _pure_;
bool plan_has_errors(const Plan *p) _pure_;
/* One human line per change, "rdma0 (veth0): mtu 1500 → 9000", and one per link that cannot be
 * applied, "rdma0 (veth0): cannot apply: ...". */
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
 * address is on another interface, the zone does not exist) go to ret->error; fw_error is why
 * firewalld could not tell the zone. Returns 0 or -ENOMEM. */
int link_plan_compute(
        const ProfileLink *pl,
        const NodeLink *nl,
        const char *ifname,
        const char *resolve_error,
        const RtnlState *state,
        const FirewallView *fw,
        const char *fw_error,
        LinkPlan *ret);
void link_plan_done(LinkPlan *lp);
/* True when the link has nothing to change (whether or not it can be applied). */
bool link_plan_is_empty(const LinkPlan *lp) _pure_;
/* The same for what the backend carries out (MTU, up, addresses, zone), the qos parts (DCB, ECN, the
 * RoCE ToS) and the routes and forwarding left aside. */
bool link_plan_settings_are_empty(const LinkPlan *lp) _pure_;
/* True when the link shows what the profile asks of its MTU, address and zone, as the plan compared
 * them with the kernel and firewalld (NetworkManager then reapplies nothing). Inline: the NetworkManager
 * module (lib/apply/nm-module.h) takes headers only. */
static inline bool link_plan_shows_settings(const LinkPlan *lp) {
        return lp->mtu_from == lp->mtu_to && !lp->add_address && !lp->zone_to;
}

/* "rdma0 (veth0)" or "rdma0" when it did not resolve. */
char *link_plan_label(const LinkPlan *lp);

/* Appends to *ret (empty, or the records before them) the changes of every link that can be applied, link by
 * link in the order apply makes them (the DCB part first: PFC, DSCP entries, trust; then MTU, up,
 * addresses removed, added, zone; then ECN, the RoCE ToS). */
int plan_changes(const Plan *p, PlanChanges *ret);
/* "rdma0 (veth0): mtu 1500 → 9000", "rdma0 (veth0): + 192.168.100.1/30", ... */
char *plan_change_describe(const PlanChange *c);
