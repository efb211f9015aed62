/* SPDX-License-Identifier: MIT */
/* A kernel module's state below the host root: whether the running kernel has it, and what keeps it from
 * loading at the next boot (modprobe.d, the kernel command line), for rdma.driver. */
#pragma once

#include "boot/modprobe-conf.h"

typedef struct ModuleState {
        char *module;
        int loaded;  /* 1: /sys/module/<name> is there; 0: not; negative errno: could not look */
        int blocked; /* 1: block says what keeps it from loading; 0: nothing does */
        ModuleBlock block;
        char **unreadable; /* modprobe.d files that could not be read */
} ModuleState;

/* Reads module's state below the host root, with the running kernel's command line as the snapshot read
 * it (module_find_block_with_cmdline() takes it). Returns 0, or the negative errno of looking for a
 * block (-ENOMEM). */
int module_state_read(
        const Host *h, const KernelCmdline *cmdline, int cmdline_error, const char *module, ModuleState *ret);
void module_state_done(ModuleState *m);
