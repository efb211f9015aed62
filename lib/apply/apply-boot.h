/* SPDX-License-Identifier: MIT */
/* Carrying out the kernel command line part of the plan (kernel.boot: manage) as root: halod's files,
 * then the boot loader's tool; everything put back when a step fails. */
#pragma once

#include "basic/host.h"
#include "plan/boot-plan.h"

/* Writes (or, for an undo plan, removes or puts back) the plan's file and BOOT_UNDO_FILE, then runs each
 * command in order, its output going to this process's stderr. When a step fails, every file the plan
 * names (its own, the undo record, and the entries and grub.cfg the tools rewrite) is put back as it was
 * and ret_error says what failed and that nothing was left changed. Commands run only on the running
 * system (h's root "" or "/"): -EOPNOTSUPP on a host tree. Never reboots. */
int apply_boot(const Host *h, const BootPlan *bp, char **ret_error);
