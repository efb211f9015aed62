/* SPDX-License-Identifier: MIT */
/* What grub-mkconfig writes into grub.cfg next: GRUB_CMDLINE_LINUX(_DEFAULT) of /etc/default/grub and
 * the drop-ins read after it, and which drop-in set each last. */
#include <stdio.h>

#include "basic/strv.h"
#include "boot/bootcfg-internal.h"
#include "boot/bootcfg.h"

const char *const grub_cmdline_var_names[_GRUB_VAR_MAX] = {
        [GRUB_VAR_LINUX] = "GRUB_CMDLINE_LINUX",
        [GRUB_VAR_DEFAULT] = "GRUB_CMDLINE_LINUX_DEFAULT",
};

int grub_default_files(const Host *h, char ***ret) {
        _cleanup_(strv_freep) char **files = NULL, **dropins = NULL;
        int r;

        r = strv_extend(&files, GRUB_DEFAULT_FILE);
        if (r < 0)
                return r;
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
        *ret = TAKE_PTR(files);
        return 0;
}

/* Notes what one file did to the two variables: their values after /etc/default/grub, and the last
 * drop-in that assigns each; the file to fix is the last one that sets the command line. */
static int note_assignments(BootConfig *c, const char *file, bool main_file, char *const *env, char **assigned) {
        for (GrubCmdlineVarIndex i = 0; i < _GRUB_VAR_MAX; i++) {
                GrubCmdlineVar *v = &c->grub_vars[i];
                char **field = main_file ? &v->edited : &v->set_by;
                const char *value = main_file ? strempty(env_get(env, grub_cmdline_var_names[i])) : file;

                if (!main_file && !strv_contains(assigned, grub_cmdline_var_names[i]))
                        continue;
                free(*field);
                *field = strdup(value);
                if (!*field)
                        return -ENOMEM;
        }
        if (main_file || strv_contains(assigned, grub_cmdline_var_names[GRUB_VAR_LINUX]) ||
            strv_contains(assigned, grub_cmdline_var_names[GRUB_VAR_DEFAULT])) {
                free(c->path);
                c->path = strdup(file);
                if (!c->path)
                        return -ENOMEM;
        }
        return 0;
}

static int boot_config_from_grub_default(const Host *h, BootConfig *c, char **ret_failed_path) {
        _cleanup_(strv_freep) char **env = NULL, **grubenv = NULL, **files = NULL;
        _cleanup_(freep) char *joined = NULL, *note = NULL;
        const char *linux_args, *default_args;
        int r;

        r = grub_default_files(h, &files);
        if (r < 0)
                return r;
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
                r = note_assignments(c, *f, f == files, env, assigned);
                if (r < 0)
                        return r;
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
        c->loader = _BOOT_LOADER_INVALID;
        r = boot_config_from_grub_default(h, c, ret_failed_path);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(c);
        return 0;
}

int bootcfg_fill_grub_default(const Host *h, BootConfig *c, char **ret_failed_path) {
        return boot_config_from_grub_default(h, c, ret_failed_path);
}
