/* SPDX-License-Identifier: MIT */
/* Planning and applying the network part of a node: the difference between profile and kernel. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "backend.h"
#include "checks.h"

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
int plan_node(const CheckContext *c, Plan *ret);
void plan_done(Plan *p);
bool plan_is_empty(const Plan *p) _pure_;
bool plan_has_errors(const Plan *p) _pure_;
/* One human line per change, "rdma0 (veth0): mtu 1500 → 9000". */
int plan_describe(const Plan *p, char ***ret_lines);

/* Applies the plan through the backend, link by link, rolling each link back on failure; then
 * verifies from the kernel. ret_changes: the lines of what changed (empty: nothing to do).
 * On failure returns negative errno and ret_error names the link and the reason. */
int apply_node(const CheckContext *c, const Backend *backend, char ***ret_changes, char **ret_error);

/* apply_node() refuses (-EPERM, with a message) when the profile says mode: verify; with APPLY_FORCE
 * (haloctl apply --force) it applies anyway. */
typedef enum ApplyFlags {
        APPLY_FORCE = 1 << 0,
} ApplyFlags;

int apply_node_with_flags(
        const CheckContext *c, const Backend *backend, ApplyFlags flags, char ***ret_changes, char **ret_error);
