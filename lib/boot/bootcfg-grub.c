/* SPDX-License-Identifier: MIT */
/* The next boot from a generated grub.cfg: the entry GRUB picks and its linux line; and the tool that
 * regenerates grub.cfg. */
#include <stdio.h>

#include "basic/os-release.h"
#include "basic/strv.h"
#include "boot/bootcfg-internal.h"
#include "boot/bootcfg.h"
#include "boot/grub-cfg.h"

/* The variables the linux line sees at boot: grubenv's (load_env), then the script's own `set`s. */
static int grub_cfg_env(char *const *grubenv, char *const *script, char ***ret) {
        _cleanup_(strv_freep) char **env = NULL;
        int r;

        STRV_FOREACH(v, (char **) grubenv) {
                r = strv_extend(&env, *v);
                if (r < 0)
                        return r;
        }
        STRV_FOREACH(v, (char **) script) {
                r = strv_env_replace_consume(&env, strdup(*v));
                if (r < 0 && r != -EINVAL)
                        return r;
        }
        *ret = TAKE_PTR(env);
        return 0;
}

/* Which entry GRUB boots, as 00_header's script decides: grubenv's next_entry once (grub-reboot),
 * else `set default=` (GRUB_DEFAULT; "${saved_entry}" for GRUB_DEFAULT=saved), else the first. When
 * the choice is grubenv's and grubenv could not be read, *ret_unread says so: the entry is a guess. */
static int grub_cfg_pick(
        const GrubCfg *cfg,
        char *const *grubenv,
        const char *note,
        const GrubMenuEntry **ret,
        char **ret_why,
        char **ret_unread) {
        const char *next = env_get(grubenv, "next_entry"), *name, *where;
        _cleanup_(strv_freep) char **unresolved = NULL;
        _cleanup_(freep) char *spec = NULL;
        const GrubMenuEntry *e;
        bool saved = false, named = false;
        int r;

        if (!isempty(next)) {
                spec = strdup(next);
                name = "next_entry";
                where = " in grubenv (grub-reboot: this boot only)";
        } else if (cfg->default_entry && strstr(cfg->default_entry, "saved_entry")) {
                r = grub_expand_variables(cfg->default_entry, grubenv, &spec, &unresolved);
                if (r < 0)
                        return r;
                name = "saved_entry";
                where = " in grubenv (GRUB_DEFAULT=saved)";
                saved = true;
        } else {
                spec = strdup(cfg->default_entry ?: "0");
                name = "default";
                where = " (GRUB_DEFAULT)";
        }
        if (!spec)
                return -ENOMEM;

        if (saved && note) {
                /* Not "saved_entry is not set": nobody looked. */
                e = grub_cfg_first(cfg);
                r = asprintf(
                        ret_why, "saved_entry unknown (%s); the first entry boots when it is not set", note);
                if (r >= 0 && !(*ret_unread = strdup(note)))
                        return -ENOMEM;
        } else if (saved && isempty(spec)) {
                e = grub_cfg_first(cfg);
                r = asprintf(ret_why, "saved_entry is not set in grubenv; GRUB boots the first entry");
        } else if ((e = grub_cfg_find(cfg, spec, &named)) && named)
                r = asprintf(ret_why, "picked by %s=\"%s\"%s", name, spec, where);
        else if (e)
                /* After a kernel purge, saved_entry often names a removed entry of the submenu. */
                r = asprintf(
                        ret_why,
                        "%s=\"%s\"%s names no entry at some level: GRUB boots the first entry of the menu it "
                        "reached",
                        name,
                        spec,
                        where);
        else {
                e = grub_cfg_first(cfg);
                r = asprintf(
                        ret_why, "the first entry: %s=\"%s\"%s leads to an empty submenu", name, spec, where);
        }
        if (r < 0)
                return -ENOMEM;
        *ret = e;
        return 0;
}

/* The default entry of a generated grub.cfg: what GRUB reads at boot, whatever /etc/default/grub says
 * since. 0 and the config; -ENOENT when there is no grub.cfg with a menu to read (none, or Fedora's
 * blscfg without entries). */
int boot_config_from_grub_cfg(const Host *h, BootConfig *c, char **ret_failed_path) {
        static const char *const paths[] = { GRUB_CFG_DEBIAN, GRUB_CFG_FEDORA };

        for (size_t i = 0; i < ELEMENTSOF(paths); i++) {
                _cleanup_(strv_freep) char **grubenv = NULL, **env = NULL;
                _cleanup_(freep) char *text = NULL, *note = NULL;
                _cleanup_(grub_cfg_done) GrubCfg cfg = {};
                const GrubMenuEntry *e;
                int r;

                r = host_read_file(h, paths[i], HOST_FILE_MAX, &text, NULL);
                if (r == -ENOENT || r == -ENOTDIR)
                        continue;
                if (r < 0)
                        return bootcfg_set_failed_path(ret_failed_path, paths[i], r);
                r = grub_cfg_parse(text, &cfg);
                if (r < 0)
                        return r;
                if (!grub_cfg_first(&cfg))
                        continue;

                r = bootcfg_load_grubenv_beside(h, paths[i], &grubenv, &note);
                if (r < 0)
                        return r;
                r = grub_cfg_pick(&cfg, grubenv, note, &e, &c->selected_by, &c->unread);
                if (r < 0)
                        return r;
                r = grub_cfg_env(grubenv, cfg.env, &env);
                if (r < 0)
                        return r;
                c->source = BOOT_CONFIG_GRUB_CFG;
                c->path = strdup(paths[i]);
                c->entry_id = strdup(e->title);
                if (!c->path || !c->entry_id)
                        return -ENOMEM;
                /* 10_linux's ids: gnulinux-6.8.0-49-generic-recovery-<uuid>; its titles: "(recovery mode)". */
                c->recovery = (e->id && strstr(e->id, "-recovery-")) || strstr(e->title, "(recovery mode)");
                /* The first entry is 10_linux's main one: a recovery or older entry that boots instead
                 * may lack what it has. */
                if (e != grub_cfg_first(&cfg)) {
                        _cleanup_(strv_freep) char **ignored = NULL;

                        c->first_title = strdup(grub_cfg_first(&cfg)->title);
                        if (!c->first_title)
                                return -ENOMEM;
                        r = grub_expand_variables(
                                strempty(grub_cfg_first(&cfg)->linux_args), env, &c->first_cmdline, &ignored);
                        if (r < 0)
                                return r;
                }
                return grub_expand_variables(strempty(e->linux_args), env, &c->cmdline, &c->unresolved);
        }
        return -ENOENT;
}

const char *grub_mkconfig_command(const Host *h) {
        static const char *const fedora_family[] = { "fedora", "rhel", "suse", "opensuse", NULL };
        _cleanup_(freep) char *text = NULL;

        if (host_path_exists(h, "/boot/grub2"))
                return "grub2-mkconfig -o " GRUB_CFG_FEDORA;
        if (host_path_exists(h, "/boot/grub"))
                return "update-grub";
        if (host_read_file(h, "/etc/os-release", HOST_FILE_MAX, &text, NULL) >= 0 &&
            os_release_names(text, fedora_family))
                return "grub2-mkconfig -o " GRUB_CFG_FEDORA;
        return "update-grub";
}
