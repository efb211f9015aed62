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
