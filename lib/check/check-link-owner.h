/* SPDX-License-Identifier: MIT */
/* link.<name>.owner: the systemd-networkd and netplan files that configure a fabric interface besides
 * halod's own. */
#pragma once

#include "check/checks.h"
#include "plan/plan.h"

/* The directories networkd reads .network files from, first wins for a name (systemd.network(5)). */
#define NETWORKD_DIRS                                                                     \
        "/etc/systemd/network", "/run/systemd/network", "/usr/local/lib/systemd/network", \
                "/usr/lib/systemd/network", "/lib/systemd/network"
#define NETPLAN_DIR "/etc/netplan"

/* The check of the node's link nl, whose plan lp resolved it to a netdev (nothing when it did not:
 * link.<name>.present says why), read through c->host's root; netdevs: the snapshot's netdev list
 * (the netdev's MAC address and driver). */
int check_link_owner(
        const NodeContext *c, const NetdevList *netdevs, const NodeLink *nl, const LinkPlan *lp, CheckList *out);
