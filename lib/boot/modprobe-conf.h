/* SPDX-License-Identifier: MIT */
/* What keeps a kernel module from loading at boot: modprobe.d's blacklist and install lines, and the
 * kernel command line's module_blacklist= and modprobe.blacklist=. */
#pragma once

#include "basic/host.h"
#include "basic/macro.h"
#include "boot/cmdline.h"

/* The directories kmod reads, highest precedence first: a file name in an earlier one hides the file
 * of the same name in the later ones (modprobe.d(5)). */
#define MODPROBE_CONF_DIRS                                                                        \
        "/etc/modprobe.d", "/run/modprobe.d", "/usr/local/lib/modprobe.d", "/usr/lib/modprobe.d", \
                "/lib/modprobe.d"

typedef struct ModuleBlock {
        char *source;  /* "/etc/modprobe.d/blacklist-rdma.conf", or "/proc/cmdline" */
        unsigned line; /* 1-based line of the source; 0 for the command line */
        char *text;    /* the line (continuations joined) or the parameter, as written */
} ModuleBlock;

void module_block_done(ModuleBlock *b);

/* Whether one modprobe.d file's text keeps module from loading: "blacklist MOD" (no loading through
 * an alias, which is how the RDMA drivers load, on the auxiliary bus of their NIC's driver) or
 * "install MOD /bin/false" (or /bin/true, or an exit: nothing loads). Module names compare as kmod
 * does, '-' and '_' alike. Returns 1 with the first such line in ret (source left NULL), 0 when the
 * text has none, -ENOMEM. */
int modprobe_conf_find_block(const char *text, const char *module, ModuleBlock *ret);

/* The same for a command line: module_blacklist= (the kernel refuses the module) and
 * modprobe.blacklist= (kmod treats it as blacklisted), comma-separated lists. */
int kernel_cmdline_find_module_block(const KernelCmdline *c, const char *module, ModuleBlock *ret);

/* Looks below the host root: /proc/cmdline and the .conf files of MODPROBE_CONF_DIRS in kmod's order.
 * Returns 1 with the first block found, 0 when nothing keeps the module from loading, -ENOMEM. Files
 * that cannot be read are named in ret_unreadable (may be NULL), for the caller to say it could not
 * look there. */
int module_find_block(const Host *h, const char *module, ModuleBlock *ret, char ***ret_unreadable);
/* The same with the running kernel's command line already read (the snapshot's: snapshot/
 * snapshot-host.h): cmdline split, NULL when it could not be read (cmdline_read_error, the errno of
 * reading /proc/cmdline) or split (cmdline_read_error 0: nothing to look at there). */
int module_find_block_with_cmdline(
        const Host *h,
        const KernelCmdline *cmdline,
        int cmdline_read_error,
        const char *module,
        ModuleBlock *ret,
        char ***ret_unreadable);
