/* SPDX-License-Identifier: MIT */
/* What kernel.cmdline-next's advice reads of the host besides the next boot's configuration: the
 * /etc/default/grub an update-grub would take the command line from, the tool that writes each boot
 * loader's command line, and the `kernel-install add` that writes the entry anew. */
#pragma once

#include "boot/boot-loader.h"
#include "boot/bootcfg.h"

typedef struct BootFixFacts {
        BootConfig *grub_default; /* boot_config_load_grub_default(); NULL: grub_default_error says why */
        int grub_default_error;
        const char *tools[_BOOT_LOADER_MAX]; /* boot_loader_tool() of each boot loader */
        char *install_add;                   /* kernel_install_add_command() for boot's version */
} BootFixFacts;

/* Reads them below the host root for the boot configuration boot (NULL: none was found). Returns 0 (what
 * could not be read is recorded) or -ENOMEM. */
int boot_fix_facts_read(const Host *h, const BootConfig *boot, BootFixFacts *ret);
void boot_fix_facts_done(BootFixFacts *f);
