/* SPDX-License-Identifier: MIT */
/* What the files of boot_config_load() share; not for other rooms. */
#pragma once

#include "basic/host.h"
#include "boot/bootcfg.h"

/* Sets *ret_failed_path (may be NULL) to path, and returns r. */
int bootcfg_set_failed_path(char **ret_failed_path, const char *path, int r);
/* The grub environment block, if any ("name=value" strv); one that cannot be read is not an error:
 * *ret_note then says why it was not used. */
int bootcfg_load_grubenv(const Host *h, char ***ret_env, char **ret_note);
/* The same from the grubenv in grub_cfg's directory: GRUB reads $prefix/grubenv, beside its grub.cfg. */
int bootcfg_load_grubenv_beside(const Host *h, const char *grub_cfg, char ***ret_env, char **ret_note);
/* The default entry of a generated grub.cfg into c (bootcfg-grub.c). -ENOENT when there is no
 * grub.cfg with a menu to read. */
int boot_config_from_grub_cfg(const Host *h, BootConfig *c, char **ret_failed_path);

typedef struct BlsEntries {
        BlsEntry *entries;
        size_t n;
} BlsEntries;

void bls_entries_done(BlsEntries *l);
/* Appends the entries (*.conf) of dir below the host root to out. A missing dir adds nothing; an
 * unreadable one or entry is an error, with its path in *ret_failed_path. */
int bls_entries_load(const Host *h, const char *dir, BlsEntries *out, char **ret_failed_path);
/* The next boot as systemd-boot picks it from the entries of the dirs of f (bootcfg-sdboot.c). */
int boot_config_from_sd_boot(const Host *h, const BootLoaderFound *f, BootConfig *c, char **ret_failed_path);
/* What the next `kernel-install add` writes into a new entry's options, and where it reads it from
 * (bootcfg-kernel-install.c). -ENOENT when none of its sources can be read. */
int kernel_install_cmdline(const Host *h, char **ret_cmdline, char **ret_source);
/* What the next grub-mkconfig writes, into c (bootcfg-grub-default.c). -ENOENT without /etc/default/grub. */
int bootcfg_fill_grub_default(const Host *h, BootConfig *c, char **ret_failed_path);
