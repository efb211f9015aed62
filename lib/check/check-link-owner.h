/* SPDX-License-Identifier: MIT */
/* link.<name>.owner: the systemd-networkd and netplan files that configure a fabric interface besides
 * halod's own. */
#pragma once

#include "check/checks.h"
#include "plan/plan.h"

/* The check of the node's link nl, the snapshot's port port, whose plan lp resolved it to a netdev
 * (nothing when it did not: link.<name>.present says why), from the snapshot s: its netdev list (the
 * netdev's MAC address and driver), the port's identity and the networkd and netplan files
 * (SNAPSHOT_NET_CONFIG, read by the caller). */
int check_link_owner(
        const NodeContext *c,
        const Snapshot *s,
        size_t port,
        const NodeLink *nl,
        const LinkPlan *lp,
        CheckList *out);
