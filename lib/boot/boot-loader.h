/* SPDX-License-Identifier: MIT */
/* Which boot loader reads the next boot's command line on a host, and which tool writes it: the one
 * place that decides, for the check that reads the boot configuration and for what writes it. */
#pragma once

#include <errno.h>

#include "basic/host.h"
#include "basic/macro.h"

/* The systemd Boot Loader Interface's vendor GUID: systemd-boot's EFI variables. */
#define EFIVAR_LOADER_GUID "4a67b082-0a4c-41cf-b6c7-440b29bb8c4f"
#define EFIVARS_DIR "/sys/firmware/efi/efivars"

typedef enum BootLoader {
        BOOT_LOADER_SYSTEMD_BOOT, /* Type #1 entries on the ESP and XBOOTLDR; kernel-install writes them */
        BOOT_LOADER_GRUB_BLS,     /* GRUB's blscfg reads /boot/loader/entries; grubby edits them */
        BOOT_LOADER_GRUB,         /* GRUB reads the grub.cfg grub-mkconfig writes */
        _BOOT_LOADER_MAX,
        _BOOT_LOADER_INVALID = -EINVAL,
} BootLoader;

const char *boot_loader_to_string(BootLoader l) _pure_;
BootLoader boot_loader_from_string(const char *s) _pure_;

typedef struct BootLoaderFound {
        BootLoader loader;
        /* systemd-boot: the ESP it is loaded from ("/efi", "/boot" or "/boot/efi", as kernel-install
         * searches them), where loader/loader.conf lives; NULL for GRUB. */
        char *esp;
        /* The directories of Type #1 entries the loader reads, in the order it reads them: the ESP's
         * loader/entries, then XBOOTLDR's /boot/loader/entries (systemd-boot); /boot/loader/entries
         * (GRUB's blscfg); none for GRUB without BLS. */
        char **entries_dirs;
        const char *why; /* what gave the loader away, for messages: "entries on the ESP" */
} BootLoaderFound;

void boot_loader_found_done(BootLoaderFound *f);

/* Decides which boot loader boots this host, from what lies below the host root: systemd-boot when
 * the running boot says so (its LoaderInfo EFI variable), when Type #1 entries lie on an ESP (only
 * systemd-boot reads those), or when systemd-boot is installed on an ESP (EFI/systemd, loader.conf)
 * and no grub.cfg is; else GRUB with BLS when /boot/loader/entries holds entries; else GRUB when a
 * grub.cfg exists. -ENOENT when none of these is there; -EACCES (or -EPERM) when nothing else was found
 * and an ESP's entries cannot be read (an ESP mounted with umask=0077), with their directory in
 * *ret_failed_path (may be NULL). */
int boot_loader_find(const Host *h, BootLoaderFound *ret, char **ret_failed_path);

/* The tool that writes the command line for l on this host: "kernel-install" (systemd-boot),
 * "grubby" (GRUB with BLS), or grub_mkconfig_command() (GRUB: update-grub or grub2-mkconfig). */
const char *boot_loader_tool(const Host *h, BootLoader l);

/* An EFI variable of the Boot Loader Interface below the host root (LoaderEntryDefault, LoaderInfo):
 * its UTF-16 string as ASCII (other characters as '?'). -ENOENT when it is not set. */
int efivar_read_loader_string(const Host *h, const char *name, char **ret);
/* The same for the bytes of an efivarfs file (4 bytes of attributes, then UTF-16LE up to a NUL). */
int efivar_decode_string(const char *data, size_t size, char **ret);
