/* SPDX-License-Identifier: MIT */
/* nic.fw-lldp-agent and nic.enable-roce, set at halod's start, after a reload that changes them and
 * when a link's netdev comes back (daemon/manager-nic-runtime.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "profile/profile.h"
#include "snapshot/fabric.h"

typedef struct Manager Manager;

/* Sets what differs of the NIC's runtime settings the profile asks for, in enforce mode; logs what it
 * set and what it could not. Returns the number of settings it made. */
int manager_apply_nic_runtime(Manager *m);
/* After a reload: sets them when the new profile asks for other settings than the old one (or the mode
 * now lets halod change the host). */
void manager_nic_runtime_reloaded(Manager *m, const Profile *old, const ProfileNode *old_node);
/* Whether a link of ports has a netdev that is not the one of the same link in old (another ifindex):
 * its driver was reloaded or reset, or its NIC came (back), and the driver's runtime state with it. */
bool nic_runtime_netdev_came_back(const FabricPort *old, size_t n_old, const FabricPort *ports, size_t n) _pure_;
/* Sets them once the host lane is idle (now, when it is). */
void manager_nic_runtime_due(Manager *m);
