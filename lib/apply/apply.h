/* SPDX-License-Identifier: MIT */
/* Applying the network part of a node: the plan (plan/plan.h) carried out through a backend. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "apply/backend.h"
#include "plan/plan.h"

/* Applies the plan through the backend, link by link, rolling each link back on failure; then
 * verifies from the kernel. ret_changes: the lines of what changed (empty: nothing to do).
 * On failure returns negative errno and ret_error names the link and the reason. */
int apply_node(const NodeContext *c, const Backend *backend, char ***ret_changes, char **ret_error);

/* apply_node() refuses (-EPERM, with a message) when the profile says mode: verify; with APPLY_FORCE
 * (haloctl apply --force) it applies anyway. With APPLY_ADOPT (haloctl apply --adopt, never halod) it
 * takes each link over from the configuration that holds it (lib/apply/adopt.h), also a link whose
 * kernel state needs no change, and lists the takeovers among the changes. */
typedef enum ApplyFlags {
        APPLY_FORCE = 1 << 0,
        APPLY_ADOPT = 1 << 1,
} ApplyFlags;

int apply_node_with_flags(
        const NodeContext *c, const Backend *backend, ApplyFlags flags, char ***ret_changes, char **ret_error);
