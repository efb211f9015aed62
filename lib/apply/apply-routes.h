/* SPDX-License-Identifier: MIT */
/* Applying the routes part of a link's plan (plan/route-plan.h): the forwarding switch and the routes,
 * set by halod itself over /proc/sys and rtnetlink after the backend's part, whatever the backend. */
#pragma once

#include "plan/plan.h"

/* Adds or replaces the profile's routes, removes halod's stray ones, then turns forwarding on. When a
 * route fails, takes back the routes it added that replaced nothing; a forwarding switch that cannot
 * be written leaves the routes in place. Returns negative errno and says in ret_error what failed,
 * with the kernel's own words; 0 when the plan has nothing of it. */
int apply_routes_link(const LinkPlan *lp, char **ret_error);
