/* SPDX-License-Identifier: MIT */
/* The pure half of planning: one link's plan from an observed kernel and firewalld state, the rule
 * for stray addresses, and the plan's description. No I/O, so that it is unit-tested. */
#pragma once

#include <stdbool.h>

#include "apply.h"
#include "rtnl.h"

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
