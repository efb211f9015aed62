/* SPDX-License-Identifier: MIT */
/* Which facts a run of checks needs: the registry's parts of every check the selection picks, less those
 * the profile does not ask for. The caller reads them once, before the checks judge (checks_run()). */
#pragma once

#include "profile/node-context.h"
#include "snapshot/snapshot.h"

/* The snapshot parts checks_run(c, …, only, …) judges: the parts of every check only selects
 * (comma-separated id prefixes; NULL: all), of the groups checks_run() runs. A part is left out where
 * the check would not look at it: a profile without the section it judges (rdma:, nic:, a qos: for the
 * pause counters, kernel.cmdline for the kernel. checks), no node, or a tree below --root for what only
 * the running kernel shows (rtnetlink and DCB: the ports then). */
SnapshotPart check_registry_parts(const NodeContext *c, const char *only);
/* The same for the checks only halod runs, after checks_run(): fabric.<NODE>.transport, whose sample
 * (SNAPSHOT_TRANSPORT) is read whenever only selects the group and a node is selected. */
SnapshotPart check_registry_daemon_parts(const NodeContext *c, const char *only);
