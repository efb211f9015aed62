/* SPDX-License-Identifier: MIT */
/* Finds the next boot's kernel command line below a host root, and says which file it came from. */
#include <stdio.h>

#include "basic/strv.h"
#include "boot/bootcfg-internal.h"
#include "boot/bootcfg.h"

static const char *const grubenv_paths[] = {
        "/boot/grub2/grubenv", /* Fedora, RHEL */
        "/boot/grub/grubenv",  /* Debian, Ubuntu */
};

static const char *const boot_config_source_table[_BOOT_CONFIG_SOURCE_MAX] = {
        [BOOT_CONFIG_BLS] = "bls",
        [BOOT_CONFIG_KERNEL_CMDLINE] = "kernel-cmdline",
        [BOOT_CONFIG_GRUB_CFG] = "grub-cfg",
        [BOOT_CONFIG_GRUB_DEFAULT] = "grub-default",
};

DEFINE_STRING_TABLE_LOOKUP(boot_config_source, BootConfigSource);

BootConfig *boot_config_free(BootConfig *c) {
        if (!c)
                return NULL;
        free(c->path);
        free(c->cmdline);
        free(c->entry_id);
        free(c->selected_by);
        strv_free(c->unresolved);
        free(c->first_title);
        free(c->first_cmdline);
        free(c->unread);
        free(c->linux_cmdline);
        free(c->version);
        free(c->install_cmdline);
        free(c->install_source);
        for (size_t i = 0; i < ELEMENTSOF(c->grub_vars); i++) {
                free(c->grub_vars[i].edited);
                free(c->grub_vars[i].set_by);
        }
        return mfree(c);
}

int bootcfg_set_failed_path(char **ret_failed_path, const char *path, int r) {
        if (ret_failed_path) {
                free(*ret_failed_path);
                *ret_failed_path = strdup(path);
        }
        return r;
}

static int load_grubenv_file(const Host *h, const char *path, char ***ret_env, char **ret_note) {
        _cleanup_(freep) char *text = NULL;
        int r;

        r = host_read_file(h, path, HOST_FILE_MAX, &text, NULL);
        if (r == -ENOENT || r == -ENOTDIR)
                return 0;
        if (r < 0) {
                if (asprintf(ret_note, "%s could not be read: %s", path, strerror(-r)) < 0)
                        return -ENOMEM;
                return 1;
        }
        r = grubenv_parse(text, ret_env);
        return r < 0 ? r : 1;
}

/* The grub environment, if any: variables for $kernelopts, and saved_entry. A grubenv that cannot
 * be read (it is root-only on Fedora) is not an error: *ret_note then says why it was not used. */
int bootcfg_load_grubenv(const Host *h, char ***ret_env, char **ret_note) {
        for (size_t i = 0; i < ELEMENTSOF(grubenv_paths); i++) {
                int r = load_grubenv_file(h, grubenv_paths[i], ret_env, ret_note);

                if (r != 0)
                        return r < 0 ? r : 0;
        }
        return 0;
}

int bootcfg_load_grubenv_beside(const Host *h, const char *grub_cfg, char ***ret_env, char **ret_note) {
        _cleanup_(freep) char *path = NULL;
        const char *slash = strrchr(grub_cfg, '/');
        int r;

        if (!slash || asprintf(&path, "%.*s/grubenv", (int) (slash - grub_cfg), grub_cfg) < 0)
                return -ENOMEM;
        r = load_grubenv_file(h, path, ret_env, ret_note);
        return r < 0 ? r : 0;
}

static int cmp_entries(const void *a, const void *b) {
        return bls_entry_compare(a, b);
}

static BlsEntry *find_entry(BlsEntries *l, const char *key) {
        for (size_t i = 0; i < l->n; i++)
                if (streq(l->entries[i].id, key))
                        return &l->entries[i];
        for (size_t i = 0; i < l->n; i++)
                if (streq_ptr(l->entries[i].title, key))
                        return &l->entries[i];
        return NULL;
}

/* GRUB_DEFAULT of /etc/default/grub, which grub2-mkconfig turns into grub.cfg's "set default=": "saved"
 * (Fedora's) means saved_entry. NULL when unset or unreadable: then saved_entry decides. */
static int load_grub_default(const Host *h, char **ret) {
        _cleanup_(strv_freep) char **env = NULL;
        _cleanup_(freep) char *text = NULL;
        const char *v;
        int r;

        *ret = NULL;
        r = host_read_file(h, GRUB_DEFAULT_FILE, HOST_FILE_MAX, &text, NULL);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return 0;
        r = shell_assignments_parse(text, &env, NULL);
        if (r < 0)
                return r;
        v = env_get(env, "GRUB_DEFAULT");
        if (v && !(*ret = strdup(v)))
                return -ENOMEM;
        return 0;
}

static int pick_entry(
        const Host *h, BlsEntries *l, char *const *grubenv, const char *note, BlsEntry **ret, char **ret_why) {
        _cleanup_(freep) char *grub_default = NULL;
        const char *saved = env_get(grubenv, "saved_entry");
        BlsEntry *pick = NULL;
        int r;

        r = load_grub_default(h, &grub_default);
        if (r < 0)
                return r;

        if (!isempty(grub_default) && !streq(grub_default, "saved")) {
                char *end;
                unsigned long i = strtoul(grub_default, &end, 10);

                /* A menu position (entries in the order grub shows them), an entry id, or a title. */
                if (*end == '\0' && grub_default[0] >= '0' && grub_default[0] <= '9')
                        pick = i < l->n ? &l->entries[i] : NULL;
                else
                        pick = find_entry(l, grub_default);
                r = pick ? asprintf(ret_why, "picked by GRUB_DEFAULT=%s in " GRUB_DEFAULT_FILE, grub_default)
                         : asprintf(
                                   ret_why,
                                   "the newest version; GRUB_DEFAULT=%s in " GRUB_DEFAULT_FILE
                                   " names no entry",
                                   grub_default);
        } else if (!isempty(saved)) {
                pick = find_entry(l, saved);
                r = pick ? asprintf(ret_why, "picked by saved_entry in grubenv")
                         : asprintf(
                                   ret_why,
                                   "the newest version; saved_entry=%s in grubenv names no entry",
                                   saved);
        } else if (note)
                r = asprintf(ret_why, "the newest version; %s", note);
        else
                r = asprintf(ret_why, "the newest version");
        if (r < 0)
                return -ENOMEM;

        *ret = pick ?: &l->entries[0];
        return 0;
}

/* The grub.cfg that runs GRUB's blscfg: on UEFI RHEL 8 the full one on the ESP, whose grubenv the
 * grub2-efi package links /boot/grub2/grubenv to (ln -sf ../efi/EFI/<vendor>/grubenv); else the one in
 * /boot/grub2 or /boot/grub. The ESP's stub of Fedora 34 and later, which only hands over to
 * /boot/grub2/grub.cfg, runs no blscfg and is passed by. -ENOENT when none does. */
static int find_blscfg_grub_cfg(const Host *h, char **ret_path, GrubCfg *ret_cfg) {
        _cleanup_(strv_freep) char **paths = NULL, **vendors = NULL;
        int r;

        r = host_list_directory(h, "/boot/efi/EFI", &vendors);
        if (r == -ENOMEM)
                return r;
        STRV_FOREACH(v, vendors) {
                r = strv_extendf(&paths, "/boot/efi/EFI/%s/grub.cfg", *v);
                if (r < 0)
                        return r;
        }
        r = strv_extend(&paths, GRUB_CFG_FEDORA);
        if (r >= 0)
                r = strv_extend(&paths, GRUB_CFG_DEBIAN);
        if (r < 0)
                return r;
        STRV_FOREACH(p, paths) {
                _cleanup_(grub_cfg_done) GrubCfg cfg = {};
                _cleanup_(freep) char *text = NULL;

                if (host_read_file(h, *p, HOST_FILE_MAX, &text, NULL) < 0)
                        continue;
                r = grub_cfg_parse(text, &cfg);
                if (r < 0)
                        return r;
                if (!cfg.blscfg)
                        continue;
                *ret_path = strdup(*p);
                if (!*ret_path)
                        return -ENOMEM;
                *ret_cfg = cfg;
                cfg = (GrubCfg){};
                return 0;
        }
        return -ENOENT;
}

/* The variables GRUB's blscfg expands an entry's options with: the grubenv beside the grub.cfg GRUB
 * reads, then the fallbacks that grub.cfg sets (bootcfg.c). */
static int bootcfg_load_bls_env(const Host *h, char ***ret_env, char **ret_note) {
        _cleanup_(strv_freep) char **env = NULL;
        _cleanup_(grub_cfg_done) GrubCfg cfg = {};
        _cleanup_(freep) char *path = NULL;
        int r;

        r = find_blscfg_grub_cfg(h, &path, &cfg);
        if (r == -ENOENT)
                return bootcfg_load_grubenv(h, ret_env, ret_note);
        if (r < 0)
                return r;
        r = bootcfg_load_grubenv_beside(h, path, &env, ret_note);
        if (r < 0)
                return r;
        /* 10_linux writes `if [ -z "${kernelopts}" ]; then set kernelopts="..."; fi` for a grubenv
         * without kernelopts (a recreated one), and tuned's 00_tuned `set tuned_params=...`: what
         * grubenv does not set, grub.cfg's own sets give. */
        STRV_FOREACH(v, cfg.env) {
                _cleanup_(freep) char *name = strndup(*v, strcspn(*v, "="));

                if (!name)
                        return -ENOMEM;
                if (env_get(env, name))
                        continue;
                r = strv_extend(&env, *v);
                if (r < 0)
                        return r;
        }
        *ret_env = TAKE_PTR(env);
        return 0;
}

static int boot_config_from_bls(const Host *h, BlsEntries *l, BootConfig *c) {
        _cleanup_(strv_freep) char **env = NULL;
        _cleanup_(freep) char *note = NULL;
        BlsEntry *pick;
        int r;

        r = bootcfg_load_bls_env(h, &env, &note);
        if (r < 0)
                return r;

        /* In the order boot loaders list them: without a saved or configured default, the first. */
        qsort(l->entries, l->n, sizeof(BlsEntry), cmp_entries);
        r = pick_entry(h, l, env, note, &pick, &c->selected_by);
        if (r < 0)
                return r;

        c->path = strdup(pick->path);
        c->entry_id = strdup(pick->id);
        c->version = pick->version ? strdup(pick->version) : NULL;
        if (!c->path || !c->entry_id || (pick->version && !c->version))
                return -ENOMEM;
        c->source = BOOT_CONFIG_BLS;

        /* Older Fedora writes "options $kernelopts" and keeps the parameters in grubenv. */
        return grub_expand_variables(strempty(pick->options), env, &c->cmdline, &c->unresolved);
}

/* Where no entry was found: /etc/kernel/cmdline is only what kernel-install writes into the next
 * entry (a unified kernel image keeps its command line inside, where it is not read). */
static int boot_config_from_kernel_cmdline(const Host *h, BootConfig *c, char **ret_failed_path) {
        _cleanup_(freep) char *text = NULL;
        int r;

        r = host_read_file(h, KERNEL_CMDLINE_FILE, HOST_FILE_MAX, &text, NULL);
        if (r == -ENOTDIR)
                r = -ENOENT;
        if (r == -ENOENT)
                return r;
        if (r < 0)
                return bootcfg_set_failed_path(ret_failed_path, KERNEL_CMDLINE_FILE, r);
        c->source = BOOT_CONFIG_KERNEL_CMDLINE;
        c->path = strdup(KERNEL_CMDLINE_FILE);
        if (!c->path)
                return -ENOMEM;
        c->cmdline = TAKE_PTR(text);
        return 0;
}

static int boot_config_from_loader(
        const Host *h, const BootLoaderFound *f, BootConfig *c, char **ret_failed_path) {
        _cleanup_(bls_entries_done) BlsEntries entries = {};
        int r;

        switch (f->loader) {
        case BOOT_LOADER_SYSTEMD_BOOT:
                r = boot_config_from_sd_boot(h, f, c, ret_failed_path);
                if (r < 0)
                        return r;
                /* What a kernel update writes next; a source that cannot be read says nothing. */
                r = kernel_install_cmdline(h, &c->install_cmdline, &c->install_source);
                return r == -ENOMEM ? r : 0;
        case BOOT_LOADER_GRUB_BLS:
                r = bls_entries_load(h, BLS_ENTRIES_DIR, &entries, ret_failed_path);
                if (r < 0)
                        return r;
                return entries.n > 0 ? boot_config_from_bls(h, &entries, c) : -ENOENT;
        default:
                /* GRUB boots what grub.cfg says, not what /etc/default/grub says until update-grub runs. */
                return boot_config_from_grub_cfg(h, c, ret_failed_path);
        }
}

int boot_config_load(const Host *h, BootConfig **ret, char **ret_failed_path) {
        _cleanup_(boot_loader_found_done) BootLoaderFound f = {};
        _cleanup_(boot_config_freep) BootConfig *c = NULL;
        int r;

        c = calloc(1, sizeof(BootConfig));
        if (!c)
                return -ENOMEM;
        c->loader = _BOOT_LOADER_INVALID;

        r = boot_loader_find(h, &f, ret_failed_path);
        if (r < 0 && r != -ENOENT)
                return r;
        if (r >= 0) {
                c->loader = f.loader;
                r = boot_config_from_loader(h, &f, c, ret_failed_path);
                if (r != -ENOENT)
                        goto done;
        }
        r = boot_config_from_kernel_cmdline(h, c, ret_failed_path);
        if (r >= 0) {
                int k = kernel_install_cmdline(h, &c->install_cmdline, &c->install_source);

                r = k == -ENOMEM ? k : 0;
                goto done;
        }
        if (r != -ENOENT)
                return r;
        r = bootcfg_fill_grub_default(h, c, ret_failed_path);
done:
        if (r < 0)
                return r;
        *ret = TAKE_PTR(c);
        return 0;
}
