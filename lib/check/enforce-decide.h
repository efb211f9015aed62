/* SPDX-License-Identifier: MIT */
/* Whether an enforcing verify re-applies (lib/check/enforce-decide.c): decided from the plan of what
 * it read, never from the checks' ids or texts. */
#pragma once

#include <stdbool.h>

#include "plan/plan.h"

/* True when a link of p whose checks only selects (NULL: all) differs from the profile or cannot be
 * applied (the apply then says why): its link settings, addresses, zone and routes when the link's
 * link.<name>. checks are selected, its DCB and host QoS when its qos.<name>. checks are. */
bool plan_drifted(const Plan *p, const char *only) _pure_;
