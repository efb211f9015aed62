/* SPDX-License-Identifier: MIT */
/* Which boot loader boots a host (systemd-boot, GRUB with BLS, GRUB), and the tool that writes its
 * command line. */
#include <stdio.h>

#include "basic/strv.h"
#include "boot/boot-loader.h"
#include "boot/bootcfg.h"
#include "boot/grub-cfg.h"

/* Where kernel-install looks for the ESP (systemd src/shared/find-esp.c, find_esp_and_warn_at()). */
static const char *const esp_candidates[] = { "/efi", "/boot", "/boot/efi" };

static const char *const boot_loader_table[_BOOT_LOADER_MAX] = {
        [BOOT_LOADER_SYSTEMD_BOOT] = "systemd-boot",
        [BOOT_LOADER_GRUB_BLS] = "grub-bls",
        [BOOT_LOADER_GRUB] = "grub",
};

DEFINE_STRING_TABLE_LOOKUP(boot_loader, BootLoader);

void boot_loader_found_done(BootLoaderFound *f) {
        free(f->esp);
        strv_free(f->entries_dirs);
        *f = (BootLoaderFound){};
}

int efivar_decode_string(const char *data, size_t size, char **ret) {
        char *s;
        size_t n = 0;

        if (size < 4)
                return -EBADMSG;
        s = malloc((size - 4) / 2 + 1);
        if (!s)
                return -ENOMEM;
        for (size_t i = 4; i + 1 < size; i += 2) {
                unsigned c = (unsigned char) data[i] | (unsigned char) data[i + 1] << 8;

                if (c == 0)
                        break;
                s[n++] = c >= 0x20 && c < 0x7f ? (char) c : '?';
        }
        s[n] = '\0';
        *ret = s;
        return 0;
}

int efivar_read_loader_string(const Host *h, const char *name, char **ret) {
        _cleanup_(freep) char *path = NULL, *data = NULL;
        size_t size;
        int r;

        if (asprintf(&path, EFIVARS_DIR "/%s-" EFIVAR_LOADER_GUID, name) < 0)
                return -ENOMEM;
        r = host_read_file(h, path, 4096, &data, &size);
        if (r < 0)
                return r == -ENOTDIR ? -ENOENT : r;
        return efivar_decode_string(data, size, ret);
}

/* Whether dir holds a Type #1 entry (a *.conf file): 1 or 0; -EACCES or -EPERM when it cannot be
 * listed (an ESP mounted with umask=0077, read by user halod). */
static int has_entries(const Host *h, const char *dir) {
        _cleanup_(strv_freep) char **names = NULL;
        int r;

        r = host_list_directory(h, dir, &names);
        if (r == -ENOMEM || r == -EACCES || r == -EPERM)
                return r;
        STRV_FOREACH(n, names) {
                size_t l = strlen(*n);

                if ((*n)[0] != '.' && l > 5 && streq(*n + l - 5, ".conf"))
                        return 1;
        }
        return 0;
}

static bool is_sd_boot_esp(const Host *h, const char *esp) {
        _cleanup_(freep) char *bin = NULL, *conf = NULL;

        /* bootctl install puts the binary in EFI/systemd and writes loader/loader.conf. */
        if (asprintf(&bin, "%s/EFI/systemd", esp) < 0 || asprintf(&conf, "%s/loader/loader.conf", esp) < 0)
                return false;
        return host_path_exists(h, bin) || host_path_exists(h, conf);
}

static bool booted_by_sd_boot(const Host *h) {
        _cleanup_(freep) char *info = NULL;

        return efivar_read_loader_string(h, "LoaderInfo", &info) >= 0 && startswith(info, "systemd-boot");
}

static int found_sd_boot(const char *esp, const char *why, BootLoaderFound *ret) {
        _cleanup_(boot_loader_found_done)
                BootLoaderFound f = { .loader = BOOT_LOADER_SYSTEMD_BOOT, .why = why };
        int r;

        f.esp = strdup(esp);
        if (!f.esp)
                return -ENOMEM;
        r = strv_extendf(&f.entries_dirs, "%s/loader/entries", esp);
        /* XBOOTLDR is mounted at /boot when the ESP is elsewhere; systemd-boot reads both. */
        if (r >= 0 && !streq(esp, "/boot"))
                r = strv_extend(&f.entries_dirs, BLS_ENTRIES_DIR);
        if (r < 0)
                return r;
        *ret = f;
        f = (BootLoaderFound){};
        return 0;
}

int boot_loader_find(const Host *h, BootLoaderFound *ret, char **ret_failed_path) {
        const char *installed = NULL, *with_entries = NULL, *unreadable = NULL;
        bool grub_cfg = host_path_exists(h, GRUB_CFG_DEBIAN) || host_path_exists(h, GRUB_CFG_FEDORA);
        int r, unreadable_error = 0;

        for (size_t i = 0; i < ELEMENTSOF(esp_candidates); i++) {
                _cleanup_(freep) char *dir = NULL;

                if (!installed && is_sd_boot_esp(h, esp_candidates[i]))
                        installed = esp_candidates[i];
                /* /boot/loader/entries is GRUB's too; entries on /efi or /boot/efi only systemd-boot reads. */
                if (with_entries || streq(esp_candidates[i], "/boot"))
                        continue;
                if (asprintf(&dir, "%s/loader/entries", esp_candidates[i]) < 0)
                        return -ENOMEM;
                r = has_entries(h, dir);
                if (r == -ENOMEM)
                        return r;
                if (r > 0)
                        with_entries = esp_candidates[i];
                /* The directory, or the ESP above it, exists but cannot be read. */
                if (r < 0 && !unreadable) {
                        unreadable = esp_candidates[i];
                        unreadable_error = r;
                }
        }

        if (installed && booted_by_sd_boot(h))
                return found_sd_boot(installed, "systemd-boot started this boot (LoaderInfo)", ret);
        if (with_entries)
                return found_sd_boot(with_entries, "Type #1 entries on the ESP", ret);
        if (installed && !grub_cfg)
                return found_sd_boot(installed, "systemd-boot installed on the ESP, no grub.cfg", ret);
        r = has_entries(h, BLS_ENTRIES_DIR);
        if (r == -ENOMEM)
                return r;
        if (r > 0) {
                *ret = (BootLoaderFound){ .loader = BOOT_LOADER_GRUB_BLS, .why = "GRUB's blscfg" };
                return strv_extend(&ret->entries_dirs, BLS_ENTRIES_DIR);
        }
        if (grub_cfg) {
                *ret = (BootLoaderFound){ .loader = BOOT_LOADER_GRUB, .why = "grub.cfg" };
                return 0;
        }
        /* Nothing else boots this host: the entries may well be on the ESP that cannot be read. */
        if (unreadable) {
                if (ret_failed_path) {
                        free(*ret_failed_path);
                        if (asprintf(ret_failed_path, "%s/loader/entries", unreadable) < 0)
                                return -ENOMEM;
                }
                return unreadable_error;
        }
        return -ENOENT;
}

const char *boot_loader_tool(const Host *h, BootLoader l) {
        switch (l) {
        case BOOT_LOADER_SYSTEMD_BOOT:
                return "kernel-install";
        case BOOT_LOADER_GRUB_BLS:
                return "grubby";
        default:
                return grub_mkconfig_command(h);
        }
}
