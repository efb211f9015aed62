/* SPDX-License-Identifier: MIT */
/* Publishing what a verify found: merge the checks into the published list, judge Health
 * (manager-verify.c). */
#pragma once

#include <stdbool.h>

#include "check/check.h"
#include "snapshot/snapshot.h"

typedef struct Manager Manager;

/* Publishes a run of the local checks that only selected (r < 0: they could not run): merges them
 * into the published list, lets the watch know what they covered when they read the kernel's links
 * (kernel_read: snapshot_read_kernel() of their snapshot), and after a full run asks for the peer
 * checks. */
int manager_publish_local_checks(Manager *m, const char *only, int r, CheckList *fresh, bool kernel_read);
/* Merges fresh checks into the published list — the peer checks (peers true: every peer.* id) or the
 * local ones selected by only — judges Health and Summary, and announces what changed. */
int manager_publish_checks(Manager *m, const char *only, bool peers, CheckList *fresh);
