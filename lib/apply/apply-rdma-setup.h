/* SPDX-License-Identifier: MIT */
/* Carrying out the RDMA setup plan (plan/rdma-setup-plan.h) as root: the files halod owns written
 * atomically, the modules loaded, everything written put back when a step fails; and removing a part's
 * files again (--undo). */
#pragma once

#include "plan/rdma-setup-plan.h"

/* Writes the plan's files below h's root and, on the running system, has systemd-modules-load.service
 * load its modules (restarted: it reads the file just written).
 * Nothing is written when the plan has errors (-EINVAL). When a write or the load fails, every file
 * written is put back as it was. *ret_done gets one line per change made ("wrote …", "loaded …"); on
 * failure *ret_error says what failed and what was put back. */
int apply_rdma_setup(const Host *h, const RdmaSetupPlan *p, char ***ret_done, char **ret_error);

/* Removes halod's files of part (RDMA_SETUP_PART_*) below h's root: the paths removed are added to
 * *ret_removed. Modules already loaded stay loaded. -EINVAL for an unknown part. */
int undo_rdma_setup(const Host *h, const char *part, char ***ret_removed);
