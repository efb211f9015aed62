/* SPDX-License-Identifier: MIT */
/* Runs every group of checks (kernel, gpu, node, nic, rdma, links) for one node of a profile. */
#pragma once

#include "check/check.h"
#include "profile/node-context.h"
#include "snapshot/snapshot.h"

/* A group adds its checks to out, judging what the snapshot of the run holds: it reads the parts it
 * needs into the snapshot, so that the host is read once per run (s NULL: a snapshot of its own). It
 * returns negative errno only for allocation failures: everything the host does wrong is an outcome,
 * not an error. */
typedef int (*CheckSnapshotGroupFunc)(const NodeContext *c, Snapshot *s, CheckList *out);

/* Runs the groups whose checks can match only (comma-separated id prefixes; NULL: all) and keeps
 * only the checks selected by it. snapshot: the snapshot of c to judge from and to fill (the caller
 * may hand it on, to an apply or the metrics); NULL for one of the run's own. */
int checks_run(const NodeContext *c, Snapshot *snapshot, const char *only, CheckList *out);
/* True when only can select a check of the group whose ids start with prefix ("peer."). */
bool checks_group_selected(const char *prefix, const char *only);
