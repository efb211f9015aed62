/* SPDX-License-Identifier: MIT */
/* The kernel command line, split with the kernel's own rules (lib/boot/cmdline.c next_arg(), kernel/params.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "basic/kernel-param-name.h" /* kernel_param_name_equal() */
#include "basic/macro.h"

/* A command line longer than this is refused: the kernel's own limit (COMMAND_LINE_SIZE) is 4 KiB
 * on most architectures and 2 KiB on x86 before 6.x; boot configs are bounded by it too. */
#define KERNEL_CMDLINE_MAX (64U * 1024U)

typedef struct KernelParam {
        char *name;  /* as written, quotes removed: "amdgpu.gttsize", "pcie-aspm" */
        char *value; /* NULL for a bare parameter ("quiet"); "" for "name=" */
} KernelParam;

typedef struct KernelCmdline {
        KernelParam *params; /* in command-line order, repeats kept */
        size_t n_params;
        char **init_args; /* what follows "--": handed to init, never kernel parameters */
        bool has_separator;
} KernelCmdline;

KernelCmdline *kernel_cmdline_free(KernelCmdline *c);
DEFINE_TRIVIAL_CLEANUP_FUNC(KernelCmdline *, kernel_cmdline_free);

/* Splits s (a trailing newline is fine) exactly as the kernel does. Returns 0, -E2BIG beyond
 * KERNEL_CMDLINE_MAX, -ENOMEM. Any string parses: the kernel refuses nothing either. */
int kernel_cmdline_parse(const char *s, KernelCmdline **ret);

/* The last occurrence of name (the one that takes effect), or NULL. */
const KernelParam *kernel_cmdline_find(const KernelCmdline *c, const char *name) _pure_;

/* Splits one required parameter ("iommu=pt", "quiet", "dyndbg=\"file foo.c +p\"") into name and
 * value (NULL when bare), quotes removed. -EINVAL when it is empty or more than one parameter. */
int kernel_param_parse_one(const char *s, char **ret_name, char **ret_value);

/* Formats a parameter the way it would be written on a command line: name, name=value, or
 * name="value" when the value holds whitespace. NULL on allocation failure. */
char *kernel_param_to_string(const char *name, const char *value);

/* For every entry of required that c does not satisfy, one line: "name" or "name=value" when the
 * parameter is absent, "name=value (have name=other)" when its effective value differs.
 * A bare requirement is satisfied by any occurrence; name=value by the last occurrence only.
 * Returns the number of lines (0: all present), -EINVAL when a requirement does not parse,
 * -ENOMEM. *ret_missing is NULL when nothing is missing. */
int kernel_cmdline_missing(const KernelCmdline *c, char **required, char ***ret_missing);
