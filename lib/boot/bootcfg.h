/* SPDX-License-Identifier: MIT */
/* The next boot's kernel command line: BLS entries, /etc/kernel/cmdline or /etc/default/grub. */
#pragma once

#include <errno.h>
#include <stdbool.h>

#include "basic/host.h"
#include "basic/macro.h"
#include "boot/boot-loader.h"
#include "boot/grub-cfg.h"

#define BLS_ENTRIES_DIR "/boot/loader/entries"
#define KERNEL_CMDLINE_FILE "/etc/kernel/cmdline"
#define GRUB_DEFAULT_FILE "/etc/default/grub"
#define GRUB_DEFAULT_DROPIN_DIR "/etc/default/grub.d"
/* What boot_config_load() looks at, in order, for messages that say what was not found: the Type #1
 * entries where systemd-boot (ESP at /efi, /boot or /boot/efi; XBOOTLDR at /boot) and GRUB's blscfg
 * read them, then the rest. */
#define BOOT_CONFIG_SEARCHED                                                                  \
        "/efi/loader/entries/*.conf, " BLS_ENTRIES_DIR                                        \
        "/*.conf, /boot/efi/loader/entries/*.conf, " KERNEL_CMDLINE_FILE ", " GRUB_CFG_DEBIAN \
        ", " GRUB_CFG_FEDORA ", " GRUB_DEFAULT_FILE

typedef enum BootConfigSource {
        BOOT_CONFIG_BLS,            /* a Boot Loader Specification entry (GRUB's blscfg, systemd-boot) */
        BOOT_CONFIG_KERNEL_CMDLINE, /* no entry found: /etc/kernel/cmdline, only what kernel-install
                                     * writes into the next entry */
        BOOT_CONFIG_GRUB_CFG,       /* the default entry of the generated grub.cfg, what GRUB boots
                                     * (Debian, Ubuntu: no BLS entries) */
        BOOT_CONFIG_GRUB_DEFAULT,   /* GRUB_CMDLINE_LINUX(_DEFAULT) for grub-mkconfig, where no grub.cfg
                                     * was found: what the next grub-mkconfig would write */
        _BOOT_CONFIG_SOURCE_MAX,
        _BOOT_CONFIG_SOURCE_INVALID = -EINVAL,
} BootConfigSource;

const char *boot_config_source_to_string(BootConfigSource s) _pure_;
BootConfigSource boot_config_source_from_string(const char *s) _pure_;

/* GRUB_CMDLINE_LINUX or _DEFAULT as grub-mkconfig reads them: /etc/default/grub, then the drop-ins. */
typedef struct GrubCmdlineVar {
        char *edited; /* its value as /etc/default/grub leaves it, before the drop-ins */
        char *set_by; /* the last drop-in of /etc/default/grub.d that assigns it; NULL when none does */
} GrubCmdlineVar;

typedef enum GrubCmdlineVarIndex {
        GRUB_VAR_LINUX,   /* GRUB_CMDLINE_LINUX */
        GRUB_VAR_DEFAULT, /* GRUB_CMDLINE_LINUX_DEFAULT */
        _GRUB_VAR_MAX,
} GrubCmdlineVarIndex;

extern const char *const grub_cmdline_var_names[_GRUB_VAR_MAX];

typedef struct BootConfig {
        BootConfigSource source;
        BootLoader loader;   /* the boot loader found (boot_loader_find()); _BOOT_LOADER_INVALID: none */
        char *path;          /* the file to fix, below the host root: "/boot/loader/entries/x.conf" */
        char *cmdline;       /* the command line the next boot gets, grub variables expanded */
        char *entry_id;      /* BLS: the entry's id (file name without .conf); grub.cfg: the entry's title */
        char *selected_by;   /* why this entry boots next ("picked by saved_entry in grubenv"); BLS and
                              * grub.cfg only */
        char **unresolved;   /* grub variables used by "options" (or the linux line) that nothing sets */
        char *first_title;   /* grub.cfg: the menu's first entry, when another one boots; else NULL */
        char *first_cmdline; /* and its command line (GRUB_CMDLINE_LINUX and _DEFAULT) */
        bool recovery;       /* grub.cfg: the entry is a recovery entry of 10_linux, which gets
                              * GRUB_CMDLINE_LINUX only, never _DEFAULT */
        char *linux_cmdline; /* grub-default: GRUB_CMDLINE_LINUX alone, what recovery entries get */
        char *unread;        /* grub.cfg: why the entry is a guess ("/boot/grub/grubenv could not be read:
                              * Permission denied", with GRUB_DEFAULT=saved); NULL when it is known */
        char *version;       /* BLS: the entry's kernel version ("version"); NULL when it has none */
        char *install_cmdline; /* systemd-boot and kernel-cmdline: the options the next `kernel-install add`
                                * writes (90-loaderentry.install), NULL when none of its sources was read */
        char *install_source;  /* and where it takes them: /etc/kernel/cmdline, /usr/lib/kernel/cmdline or
                                * /proc/cmdline */
        GrubCmdlineVar grub_vars[_GRUB_VAR_MAX]; /* grub-default */
} BootConfig;

BootConfig *boot_config_free(BootConfig *c);
DEFINE_TRIVIAL_CLEANUP_FUNC(BootConfig *, boot_config_free);

/* Finds the next boot's command line below the host root. Returns 0; -ENOENT when none of
 * BOOT_CONFIG_SEARCHED exists; another negative errno when a file that decides it cannot be read,
 * with that file in *ret_failed_path (may be NULL). */
int boot_config_load(const Host *h, BootConfig **ret, char **ret_failed_path);

/* What /etc/default/grub and /etc/default/grub.d/\*.cfg give the default entry: what grub-mkconfig
 * writes into grub.cfg the next time it runs. Returns 0, -ENOENT without /etc/default/grub, or the
 * error of a file that cannot be read (in *ret_failed_path). */
int boot_config_load_grub_default(const Host *h, BootConfig **ret, char **ret_failed_path);

/* /etc/default/grub, then /etc/default/grub.d/\*.cfg in name order: grub-mkconfig sources them so
 * (Debian's and Ubuntu's grub2, where Ubuntu's cloud images put 50-cloudimg-settings.cfg). A drop-in
 * directory that cannot be read is as good as none. Paths below the host root. */
int grub_default_files(const Host *h, char ***ret);

/* The kernel-install command that writes version's entry anew: "kernel-install add VERSION IMAGE",
 * with the image where the host keeps it (/usr/lib/modules/VERSION/vmlinuz, else /boot/vmlinuz-VERSION);
 * $(uname -r) when version is NULL. */
int kernel_install_add_command(const Host *h, const char *version, char **ret);

/* The command that regenerates grub.cfg on this host: "update-grub" where grub lives in /boot/grub
 * (Debian, Ubuntu), "grub2-mkconfig -o /boot/grub2/grub.cfg" where it lives in /boot/grub2 (Fedora,
 * RHEL, openSUSE); without either, by /etc/os-release's ID and ID_LIKE. */
const char *grub_mkconfig_command(const Host *h);

/* One BLS entry file (https://uapi-group.org/specifications/specs/boot_loader_specification/). */
typedef struct BlsEntry {
        char *id;   /* set by the caller: the file name without ".conf" */
        char *path; /* set by the caller: the file below the host root */
        char *title;
        char *version;
        char *machine_id;
        char *sort_key;
        char *linux_path; /* the "linux" key */
        char *options;    /* every "options" line, joined with a space; NULL when there is none */
} BlsEntry;

void bls_entry_done(BlsEntry *e);
/* Parses the text of an entry. Unknown keys are ignored, as the specification asks. */
int bls_entry_parse(const char *text, BlsEntry *ret);
/* The order boot loaders show entries in: with sort-key first, by sort-key, machine-id, then the
 * newest version, then id; the first entry is the default. Negative when a comes first. */
int bls_entry_compare(const BlsEntry *a, const BlsEntry *b);
/* The UAPI Version Format Specification order (systemd's strverscmp_improved(), rpm-like):
 * "6.17.7-300.fc43" > "6.9.12-200.fc42", "1.0~rc1" < "1.0". NULL sorts first. */
int bls_version_compare(const char *a, const char *b) _pure_;

/* systemd-boot's loader.conf: the pattern of its last "default" line, NULL in *ret when none. */
int loader_conf_default(const char *text, char **ret);

/* Parses a grub environment block (/boot/grub2/grubenv): "name=value" lines, '#' comments and
 * padding, backslash escapes. Returns a strv of "name=value". */
int grubenv_parse(const char *text, char ***ret_env);
/* Expands grub's $name and ${name} in s from env ("name=value" strv); an unset variable expands to
 * nothing and is added to *ret_unresolved (once). */
int grub_expand_variables(const char *s, char *const *env, char **ret, char ***ret_unresolved);

/* Reads the variable assignments of a shell file such as /etc/default/grub: quoting ('', "",
 * backslashes), $VAR, ${VAR}, ${VAR:-word}, ${VAR:+word} from earlier assignments and from the
 * incoming *env, "export". Command substitutions and other commands are skipped, not run.
 * Assignments are merged into *env ("NAME=value", a later one replaces an earlier one); names
 * assigned are appended to *ret_assigned when not NULL. */
int shell_assignments_parse(const char *text, char ***env, char ***ret_assigned);
/* The value of name in a "name=value" strv, or NULL. */
const char *env_get(char *const *env, const char *name) _pure_;
