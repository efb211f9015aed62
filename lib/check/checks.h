/* SPDX-License-Identifier: MIT */
/* Runs every group of checks (kernel, gpu, node, nic, rdma, links) for one node of a profile. */
#pragma once

#include "check/check-history.h"
#include "check/check-parts.h"
#include "check/check.h"
#include "profile/node-context.h"
#include "snapshot/snapshot.h"

/* A group adds its checks to out, judging what the snapshot of the run holds: the caller read the parts
 * the registry names for it (check_registry_parts()) before; a group reads nothing. before: the history
 * of the verify before; after: the one it leaves, a copy of before into which a group writes what it
 * judged now (check-history.h); both NULL for a run that keeps none (haloctl check). It returns
 * negative errno only for allocation failures: everything the host does wrong is an outcome, not an
 * error. */
typedef int (*CheckSnapshotGroupFunc)(
        const NodeContext *c, const Snapshot *s, const CheckHistory *before, CheckHistory *after, CheckList *out);

/* Runs the groups whose checks can match only (comma-separated id prefixes; NULL: all) and keeps
 * only the checks selected by it. snapshot: the facts of c to judge, read by the caller beforehand
 * with snapshot_read(snapshot, check_registry_parts(c, only)); before and after: the history, as
 * CheckSnapshotGroupFunc says (NULL: none kept). */
int checks_run(
        const NodeContext *c,
        const Snapshot *snapshot,
        const CheckHistory *before,
        CheckHistory *after,
        const char *only,
        CheckList *out);
/* True when only can select a check of the group whose ids start with prefix ("peer."). */
bool checks_group_selected(const char *prefix, const char *only);
