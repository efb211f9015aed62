/* SPDX-License-Identifier: MIT */
/* Writing halod's block of the other nodes' names into /etc/hosts (health.hosts: manage). */
#pragma once

#include "plan/plan.h"

/* Replaces the file with the plan's text, atomically, keeping its owner, mode and SELinux label; never
 * through a symlink. 0 when the plan has nothing of it; negative errno with ret_error saying what and
 * why otherwise. */
int apply_hosts(const Plan *p, char **ret_error);
