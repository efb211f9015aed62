/* SPDX-License-Identifier: MIT */
/* Applying the network part of a node: the plan (plan/plan.h) carried out through a backend. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "apply/backend.h"
#include "plan/plan.h"

typedef enum ApplyFlags {
        /* Apply although the profile says mode: verify (haloctl apply --force). */
        APPLY_FORCE = 1 << 0,
        /* Take each link over from the configuration that holds it (haloctl apply --adopt, never halod;
         * lib/apply/adopt.h), also a link whose kernel state needs no change; the takeovers come first
         * among the changes, as LINK_FIELD_OWNER records. */
        APPLY_ADOPT = 1 << 1,
        /* Only the /etc/hosts block (haloctl apply --only hosts., as halod-helper.service runs it for
         * halod): the links are neither applied nor in the way when they cannot be. */
        APPLY_HOSTS_ONLY = 1 << 2,
        /* Everything but the /etc/hosts block: the caller cannot write the file (halod in its sandbox)
         * and has halod-helper.service write it. */
        APPLY_NO_HOSTS = 1 << 3,
} ApplyFlags;

/* Plans from snapshot (a snapshot of c: what it holds of the kernel and firewalld is taken as the
 * state right before the change; what it lacks is read), applies the plan through the backend, link
 * by link, rolling each link back on failure, and then verifies from the kernel. When something
 * changed, the snapshot's link state is read again once for that verification, and on return
 * describes the host after the apply: the caller's checks report from it without reading the kernel
 * again. snapshot may be NULL (one of its own). ret_changes: the change records of what changed
 * (none: nothing to do). Refuses (-EPERM, with a message) when the profile says mode: verify, unless
 * APPLY_FORCE. On failure returns negative errno and ret_error names the link and the reason. */
int apply_node(
        const NodeContext *c,
        const Backend *backend,
        ApplyFlags flags,
        Snapshot *snapshot,
        PlanChanges *ret_changes,
        char **ret_error);
