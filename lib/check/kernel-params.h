/* SPDX-License-Identifier: MIT */
/* The kernel parameters the kernel. checks compare (kernel-params.c). */
#pragma once

#include <stdbool.h>

#include "basic/host.h"
#include "boot/cmdline.h"
#include "profile/node-context.h"

#define PROC_CMDLINE "/proc/cmdline"

/* True when the profile's kernel.cmdline requires name=value (value NULL: name with any value or
 * none); names compare as the kernel compares them ('-' and '_' alike). */
bool kernel_profile_requires(const NodeContext *c, const char *name, const char *value);

/* The running kernel's command line (/proc/cmdline below the host root): 1 and the parsed line (and
 * the raw one when ret_raw is not NULL); 0 with *ret_error set when it cannot be read or parsed;
 * -ENOMEM. For kernel.cmdline and kernel.cmdline-next. */
int kernel_load_running_cmdline(const Host *h, KernelCmdline **ret, char **ret_raw, int *ret_error);
/* The profile's kernel.cmdline; NULL when it asks for none. */
char **kernel_required_params(const NodeContext *c);
