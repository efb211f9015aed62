/* SPDX-License-Identifier: MIT */
/* Finds the next boot's kernel command line below a host root, and says which file it came from. */
#include <dirent.h>
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

typedef struct BlsEntries {
        BlsEntry *entries;
        size_t n;
} BlsEntries;

static void bls_entries_done(BlsEntries *l) {
        for (size_t i = 0; i < l->n; i++)
                bls_entry_done(&l->entries[i]);
        free(l->entries);
}

static int load_bls_entries(const Host *h, BlsEntries *out, char **ret_failed_path) {
        _cleanup_(closedirp) DIR *d = NULL;
        _cleanup_(freep) char *dir = NULL;
        int r;

        r = host_path(h, BLS_ENTRIES_DIR, &dir);
        if (r < 0)
                return r;
        d = opendir(dir);
        if (!d) {
                if (errno == ENOENT || errno == ENOTDIR)
                        return 0;
                return bootcfg_set_failed_path(ret_failed_path, BLS_ENTRIES_DIR, negative_errno());
        }

        for (struct dirent *de; (errno = 0, de = readdir(d));) {
                _cleanup_(freep) char *path = NULL, *text = NULL;
                _cleanup_(bls_entry_done) BlsEntry e = {};
                size_t l = strlen(de->d_name);
                BlsEntry *a;

                if (de->d_name[0] == '.' || l <= 5 || !streq(de->d_name + l - 5, ".conf"))
                        continue;
                if (asprintf(&path, BLS_ENTRIES_DIR "/%s", de->d_name) < 0)
                        return -ENOMEM;
                r = host_read_file(h, path, HOST_FILE_MAX, &text, NULL);
                if (r == -EISDIR || r == -ENOENT) /* a directory, a dangling symlink */
                        continue;
                if (r < 0)
                        return bootcfg_set_failed_path(ret_failed_path, path, r);
                r = bls_entry_parse(text, &e);
                if (r < 0)
                        return r;
                e.id = strndup(de->d_name, l - 5);
                a = realloc(out->entries, sizeof(BlsEntry) * (out->n + 1));
                if (!e.id || !a)
                        return -ENOMEM;
                out->entries = a;
                out->entries[out->n++] = e;
                e = (BlsEntry){};
        }
        if (errno > 0)
                return bootcfg_set_failed_path(ret_failed_path, BLS_ENTRIES_DIR, -errno);
        return 0;
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

static int boot_config_from_bls(const Host *h, BlsEntries *l, BootConfig *c) {
        _cleanup_(strv_freep) char **env = NULL;
        _cleanup_(freep) char *note = NULL;
        BlsEntry *pick;
        int r;

        r = bootcfg_load_grubenv(h, &env, &note);
        if (r < 0)
                return r;

        /* In the order boot loaders list them: without a saved or configured default, the first. */
        qsort(l->entries, l->n, sizeof(BlsEntry), cmp_entries);
        r = pick_entry(h, l, env, note, &pick, &c->selected_by);
        if (r < 0)
                return r;

        if (asprintf(&c->path, BLS_ENTRIES_DIR "/%s.conf", pick->id) < 0)
                return -ENOMEM;
        c->entry_id = strdup(pick->id);
        if (!c->entry_id)
                return -ENOMEM;
        c->source = BOOT_CONFIG_BLS;

        /* Older Fedora writes "options $kernelopts" and keeps the parameters in grubenv. */
        return grub_expand_variables(strempty(pick->options), env, &c->cmdline, &c->unresolved);
}

static int boot_config_from_grub_default(const Host *h, BootConfig *c, char **ret_failed_path) {
        _cleanup_(strv_freep) char **env = NULL, **grubenv = NULL, **files = NULL, **dropins = NULL;
        _cleanup_(freep) char *joined = NULL, *note = NULL;
        const char *linux_args, *default_args;
        int r;

        r = strv_extend(&files, GRUB_DEFAULT_FILE);
        if (r < 0)
                return r;

        /* grub-mkconfig sources /etc/default/grub.d/\*.cfg after it (Ubuntu's cloud images do), in
         * name order; a drop-in directory that cannot be read is as good as none. */
        r = host_list_directory(h, GRUB_DEFAULT_DROPIN_DIR, &dropins);
        if (r == -ENOMEM)
                return r;
        STRV_FOREACH(d, dropins) {
                size_t l = strlen(*d);

                if ((*d)[0] == '.' || l <= 4 || !streq(*d + l - 4, ".cfg"))
                        continue;
                r = strv_extendf(&files, GRUB_DEFAULT_DROPIN_DIR "/%s", *d);
                if (r < 0)
                        return r;
        }

        STRV_FOREACH(f, files) {
                _cleanup_(strv_freep) char **assigned = NULL;
                _cleanup_(freep) char *text = NULL;

                r = host_read_file(h, *f, HOST_FILE_MAX, &text, NULL);
                if ((r == -ENOENT || r == -ENOTDIR) && f == files)
                        return -ENOENT;
                if (r < 0)
                        return bootcfg_set_failed_path(ret_failed_path, *f, r);
                r = shell_assignments_parse(text, &env, &assigned);
                if (r < 0)
                        return r;
                /* The file to fix is the last one that sets the command line. */
                if (f == files || strv_contains(assigned, "GRUB_CMDLINE_LINUX") ||
                    strv_contains(assigned, "GRUB_CMDLINE_LINUX_DEFAULT")) {
                        free(c->path);
                        c->path = strdup(*f);
                        if (!c->path)
                                return -ENOMEM;
                }
        }

        /* The default menu entry gets both; recovery entries only GRUB_CMDLINE_LINUX. */
        linux_args = strempty(env_get(env, "GRUB_CMDLINE_LINUX"));
        default_args = strempty(env_get(env, "GRUB_CMDLINE_LINUX_DEFAULT"));
        if (asprintf(&joined, "%s%s%s", linux_args, *linux_args && *default_args ? " " : "", default_args) < 0)
                return -ENOMEM;

        /* The generated grub.cfg keeps "$tuned_params" and the like for grub to expand at boot. */
        r = bootcfg_load_grubenv(h, &grubenv, &note);
        if (r < 0)
                return r;
        r = grub_expand_variables(joined, grubenv, &c->cmdline, &c->unresolved);
        if (r < 0)
                return r;
        c->linux_cmdline = strdup(linux_args);
        if (!c->linux_cmdline)
                return -ENOMEM;
        c->source = BOOT_CONFIG_GRUB_DEFAULT;
        return 0;
}

int boot_config_load_grub_default(const Host *h, BootConfig **ret, char **ret_failed_path) {
        _cleanup_(boot_config_freep) BootConfig *c = calloc(1, sizeof(BootConfig));
        int r;

        if (!c)
                return -ENOMEM;
        r = boot_config_from_grub_default(h, c, ret_failed_path);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(c);
        return 0;
}

int boot_config_load(const Host *h, BootConfig **ret, char **ret_failed_path) {
        _cleanup_(boot_config_freep) BootConfig *c = NULL;
        _cleanup_(bls_entries_done) BlsEntries entries = {};
        _cleanup_(freep) char *text = NULL;
        int r;

        c = calloc(1, sizeof(BootConfig));
        if (!c)
                return -ENOMEM;

        r = load_bls_entries(h, &entries, ret_failed_path);
        if (r < 0)
                return r;
        if (entries.n > 0) {
                r = boot_config_from_bls(h, &entries, c);
                if (r < 0)
                        return r;
                *ret = TAKE_PTR(c);
                return 0;
        }

        r = host_read_file(h, KERNEL_CMDLINE_FILE, HOST_FILE_MAX, &text, NULL);
        if (r >= 0) {
                c->source = BOOT_CONFIG_KERNEL_CMDLINE;
                c->path = strdup(KERNEL_CMDLINE_FILE);
                if (!c->path)
                        return -ENOMEM;
                c->cmdline = TAKE_PTR(text);
                *ret = TAKE_PTR(c);
                return 0;
        }
        if (r != -ENOENT && r != -ENOTDIR)
                return bootcfg_set_failed_path(ret_failed_path, KERNEL_CMDLINE_FILE, r);

        /* GRUB boots what grub.cfg says, not what /etc/default/grub says until update-grub runs. */
        r = boot_config_from_grub_cfg(h, c, ret_failed_path);
        if (r >= 0) {
                *ret = TAKE_PTR(c);
                return 0;
        }
        if (r != -ENOENT)
                return r;

        r = boot_config_from_grub_default(h, c, ret_failed_path);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(c);
        return 0;
}
