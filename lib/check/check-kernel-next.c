/* SPDX-License-Identifier: MIT */
/* kernel.cmdline-next: the required parameters on the next boot's command line, as the boot loader
 * reads it, and the step that was skipped when they are not. */
#include <stdio.h>

#include "basic/strv.h"
#include "boot/bootcfg.h"
#include "boot/cmdline.h"
#include "check/check-kernel.h"

/* The required parameters (as written in the profile) that cmdline does not satisfy. */
static int unmet_requirements(const KernelCmdline *cmdline, char **required, char ***ret) {
        _cleanup_(strv_freep) char **unmet = NULL;
        int r;

        STRV_FOREACH(req, required) {
                _cleanup_(strv_freep) char **m = NULL;
                char *one[] = { *req, NULL };

                r = kernel_cmdline_missing(cmdline, one, &m);
                if (r < 0)
                        return r;
                if (r > 0) {
                        r = strv_extend(&unmet, *req);
                        if (r < 0)
                                return r;
                }
        }
        *ret = TAKE_PTR(unmet);
        return 0;
}

/* Whether cmdline (may be NULL) carries every parameter in unmet. */
static int cmdline_carries(const char *cmdline, char **unmet) {
        _cleanup_(kernel_cmdline_freep) KernelCmdline *k = NULL;
        _cleanup_(strv_freep) char **missing = NULL;
        int r;

        if (!cmdline)
                return 0;
        r = kernel_cmdline_parse(cmdline, &k);
        if (r < 0)
                return r == -ENOMEM ? r : 0;
        r = kernel_cmdline_missing(k, unmet, &missing);
        if (r < 0)
                return r == -ENOMEM ? r : 0;
        return r == 0;
}

/* Whether /etc/default/grub (and grub.d) carries every parameter in unmet: then the file was edited
 * and the step after it, regenerating what the boot loader reads, was skipped. With recovery, only
 * GRUB_CMDLINE_LINUX counts: 10_linux never gives a recovery entry _DEFAULT; *ret_default_only then
 * says whether _DEFAULT has them instead. */
static int grub_default_carries(
        const Host *h, char **unmet, bool recovery, char **ret_path, bool *ret_default_only) {
        _cleanup_(boot_config_freep) BootConfig *grub = NULL;
        int r;

        *ret_path = NULL;
        *ret_default_only = false;
        r = boot_config_load_grub_default(h, &grub, NULL);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return 0; /* no /etc/default/grub, or not readable: nothing to say of it */
        r = cmdline_carries(grub->cmdline, unmet);
        if (r <= 0)
                return r;
        if (recovery) {
                r = cmdline_carries(grub->linux_cmdline, unmet);
                if (r < 0)
                        return r;
                *ret_default_only = r == 0;
        }
        *ret_path = TAKE_PTR(grub->path);
        return 1;
}

/* /etc/default/grub carries every parameter in unmet, but a drop-in read after it (Ubuntu's cloud images'
 * 50-cloudimg-settings.cfg) sets the variable again without them: the edit vanishes at the next
 * grub-mkconfig. Says so in *ret; NULL when that is not what happened. */
static int grub_dropin_overrides(const Host *h, char **unmet, char **ret) {
        _cleanup_(boot_config_freep) BootConfig *grub = NULL;
        _cleanup_(freep) char *edited = NULL;
        int r;

        *ret = NULL;
        r = boot_config_load_grub_default(h, &grub, NULL);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return 0;
        r = cmdline_carries(grub->cmdline, unmet);
        if (r != 0)
                return r < 0 ? r : 0;
        if (asprintf(
                    &edited,
                    "%s %s",
                    strempty(grub->grub_vars[GRUB_VAR_LINUX].edited),
                    strempty(grub->grub_vars[GRUB_VAR_DEFAULT].edited)) < 0)
                return -ENOMEM;
        r = cmdline_carries(edited, unmet);
        if (r <= 0)
                return r;
        for (GrubCmdlineVarIndex i = 0; i < _GRUB_VAR_MAX; i++) {
                const GrubCmdlineVar *v = &grub->grub_vars[i];
                _cleanup_(kernel_cmdline_freep) KernelCmdline *k = NULL;
                _cleanup_(strv_freep) char **missing = NULL;

                if (!v->set_by || kernel_cmdline_parse(strempty(v->edited), &k) < 0)
                        continue;
                /* The variable that held some of them in /etc/default/grub. */
                r = kernel_cmdline_missing(k, unmet, &missing);
                if (r == -ENOMEM)
                        return r;
                if (r < 0 || strv_length(missing) == strv_length(unmet))
                        continue;
                r = asprintf(
                        ret,
                        GRUB_DEFAULT_FILE
                        " has them in %s, but %s, which grub-mkconfig reads after it, sets "
                        "%s again without them: add them there (or in a drop-in sorted after it), then run %s",
                        grub_cmdline_var_names[i],
                        v->set_by,
                        grub_cmdline_var_names[i],
                        boot_loader_tool(h, BOOT_LOADER_GRUB));
                return r < 0 ? -ENOMEM : 1;
        }
        return 0;
}

/* systemd-boot: the entry lacks them. When what the next `kernel-install add` writes has them, the
 * file was edited and the step that writes the entry skipped (90-loaderentry.install reads it only
 * then); else they go into /etc/kernel/cmdline first. */
static int how_to_fix_sd_boot(const Host *h, const BootConfig *b, char **unmet, char **ret) {
        _cleanup_(freep) char *add = NULL;
        int r;

        r = kernel_install_add_command(h, b->version, &add);
        if (r < 0)
                return r;
        r = cmdline_carries(b->install_cmdline, unmet);
        if (r < 0)
                return r;
        if (r > 0 && !streq(b->install_source, "/proc/cmdline"))
                r = asprintf(
                        ret,
                        "edited, not installed: %s carries them, but %s was written before: run %s, then "
                        "reboot",
                        b->install_source,
                        b->path,
                        add);
        else
                r = asprintf(ret, "add them to " KERNEL_CMDLINE_FILE ", then run %s", add);
        return r < 0 ? -ENOMEM : 0;
}

/* What to run or edit so that the next boot carries the parameters: the step that was skipped when
 * /etc/default/grub already has them, and the distribution's own tool. */
static int how_to_fix(const Host *h, const BootConfig *b, char **unmet, char **ret) {
        _cleanup_(freep) char *args = strv_join(unmet, " "), *edited = NULL, *overridden = NULL;
        const char *mkconfig = boot_loader_tool(h, BOOT_LOADER_GRUB);
        bool default_only = false;
        int r;

        if (!args)
                return -ENOMEM;
        if (b->loader == BOOT_LOADER_SYSTEMD_BOOT && b->source == BOOT_CONFIG_BLS)
                return how_to_fix_sd_boot(h, b, unmet, ret);
        if (b->source == BOOT_CONFIG_GRUB_CFG || b->source == BOOT_CONFIG_GRUB_DEFAULT) {
                r = grub_dropin_overrides(h, unmet, &overridden);
                if (r < 0)
                        return r;
        }
        if (b->source == BOOT_CONFIG_BLS || b->source == BOOT_CONFIG_GRUB_CFG) {
                r = grub_default_carries(h, unmet, b->recovery, &edited, &default_only);
                if (r < 0)
                        return r;
        }
        switch (b->source) {
        case BOOT_CONFIG_BLS:
                if (edited)
                        /* Fedora 39 and later: grub2-mkconfig leaves the entries' options alone. */
                        r = asprintf(
                                ret,
                                "%s carries them, but grub2-mkconfig does not write them into the BLS entries: "
                                "run %s --update-kernel=ALL --args='%s' (or grub2-mkconfig -o " GRUB_CFG_FEDORA
                                " --update-bls-cmdline)",
                                edited,
                                boot_loader_tool(h, BOOT_LOADER_GRUB_BLS),
                                args);
                else
                        r = asprintf(
                                ret,
                                "add them to the options line of %s (on Fedora: %s --update-kernel=ALL "
                                "--args='%s')",
                                b->path,
                                boot_loader_tool(h, BOOT_LOADER_GRUB_BLS),
                                args);
                break;
        case BOOT_CONFIG_GRUB_CFG:
                r = cmdline_carries(b->first_cmdline, unmet);
                if (r < 0)
                        return r;
                if (r > 0)
                        /* grub.cfg was regenerated: another entry than the main one boots. */
                        r = asprintf(
                                ret,
                                "the first entry '%s' has them: make it the default (GRUB_DEFAULT in " GRUB_DEFAULT_FILE
                                ", or grub-set-default with GRUB_DEFAULT=saved), or move them to "
                                "GRUB_CMDLINE_LINUX, which recovery entries get too, and run %s",
                                b->first_title,
                                mkconfig);
                else if (edited && default_only)
                        /* Regenerating would not help: 10_linux gives recovery entries GRUB_CMDLINE_LINUX only. */
                        r = asprintf(
                                ret,
                                "%s has them only in GRUB_CMDLINE_LINUX_DEFAULT, which recovery entries never get: "
                                "move them to GRUB_CMDLINE_LINUX and run %s, or boot the normal entry (GRUB_DEFAULT, "
                                "or grub-set-default with GRUB_DEFAULT=saved)",
                                edited,
                                mkconfig);
                else if (edited)
                        r = asprintf(
                                ret,
                                "edited, not regenerated: %s carries them, but %s, which GRUB reads, was not "
                                "written since: run %s, then reboot",
                                edited,
                                b->path,
                                mkconfig);
                else if (overridden)
                        r = asprintf(ret, "%s", overridden);
                else
                        r = asprintf(
                                ret,
                                "add them to GRUB_CMDLINE_LINUX in " GRUB_DEFAULT_FILE ", then run %s",
                                mkconfig);
                break;
        default:
                if (overridden)
                        r = asprintf(ret, "%s", overridden);
                else
                        r = asprintf(
                                ret, "add them to GRUB_CMDLINE_LINUX in %s, then run %s", b->path, mkconfig);
                break;
        }
        return r < 0 ? -ENOMEM : 0;
}

static int describe_boot_config(const BootConfig *b, char **ret) {
        int r;

        if (b->source == BOOT_CONFIG_BLS && b->loader == BOOT_LOADER_SYSTEMD_BOOT)
                r = asprintf(ret, "systemd-boot entry %s, %s", b->path, b->selected_by);
        else if (b->source == BOOT_CONFIG_BLS)
                r = asprintf(ret, "entry %s, %s", b->entry_id, b->selected_by);
        else if (b->source == BOOT_CONFIG_GRUB_CFG)
                r = asprintf(ret, "%s entry '%s', %s", b->path, b->entry_id, b->selected_by);
        else
                r = asprintf(ret, "%s", b->path);
        return r < 0 ? -ENOMEM : 0;
}

/* grub.cfg carries the parameters, but /etc/default/grub does not (grub.cfg edited by hand, or the
 * parameters taken out of the file since): the next update-grub, which every kernel update runs,
 * writes grub.cfg without them. Adds a warning and returns 1; 0 when there is nothing to say. */
static int check_grub_cfg_kept(
        const NodeContext *c,
        const BootConfig *boot,
        char **required,
        const char *expected,
        const char *where,
        CheckList *out) {
        _cleanup_(kernel_cmdline_freep) KernelCmdline *k = NULL;
        _cleanup_(boot_config_freep) BootConfig *grub = NULL;
        _cleanup_(strv_freep) char **unmet = NULL;
        _cleanup_(freep) char *list = NULL;
        int r;

        if (boot->source != BOOT_CONFIG_GRUB_CFG)
                return 0;
        r = boot_config_load_grub_default(c->host, &grub, NULL);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return 0;
        r = kernel_cmdline_parse(grub->cmdline, &k);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return 0;
        r = unmet_requirements(k, required, &unmet);
        if (r < 0)
                return r;
        if (!unmet)
                return 0;
        list = strv_join(unmet, ", ");
        if (!list)
                return -ENOMEM;
        r = check_list_add(
                out,
                "kernel.cmdline-next",
                CHECK_WARN,
                expected,
                boot->cmdline,
                "the next boot (%s) carries all %zu required parameters, but %s lacks %s: the next %s "
                "(every kernel update runs it) writes grub.cfg without them; add them to GRUB_CMDLINE_LINUX "
                "there",
                where,
                strv_length(required),
                grub->path,
                list,
                boot_loader_tool(c->host, BOOT_LOADER_GRUB));
        return r < 0 ? r : 1;
}

/* systemd-boot's entry carries them, but what the next `kernel-install add` writes does not: every
 * kernel update runs it, and its entry then boots without them. Adds a warning and returns 1; 0 when
 * there is nothing to say. */
static int check_install_kept(
        const BootConfig *boot, char **required, const char *expected, const char *where, CheckList *out) {
        _cleanup_(kernel_cmdline_freep) KernelCmdline *k = NULL;
        _cleanup_(strv_freep) char **unmet = NULL;
        _cleanup_(freep) char *list = NULL;
        int r;

        if (boot->loader != BOOT_LOADER_SYSTEMD_BOOT || boot->source != BOOT_CONFIG_BLS ||
            !boot->install_cmdline)
                return 0;
        r = kernel_cmdline_parse(boot->install_cmdline, &k);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return 0;
        r = unmet_requirements(k, required, &unmet);
        if (r < 0)
                return r;
        if (!unmet)
                return 0;
        list = strv_join(unmet, ", ");
        if (!list)
                return -ENOMEM;
        r = check_list_add(
                out,
                "kernel.cmdline-next",
                CHECK_WARN,
                expected,
                boot->cmdline,
                "the next boot (%s) carries all %zu required parameters, but %s lacks %s: the next kernel-install "
                "(every kernel update runs it) writes entries without them; %s",
                where,
                strv_length(required),
                boot->install_source,
                list,
                streq(boot->install_source, KERNEL_CMDLINE_FILE)
                        ? "add them there"
                        : "write the whole command line, with them, into " KERNEL_CMDLINE_FILE);
        return r < 0 ? r : 1;
}

/* No boot loader entry was found: /etc/kernel/cmdline tells only what kernel-install writes into the
 * next one, not what the next boot gets. */
static int next_boot_install_only(
        const BootConfig *boot, char **required, char **missing, const char *expected, CheckList *out) {
        _cleanup_(freep) char *list = NULL;

        if (!missing)
                return check_list_add(
                        out,
                        "kernel.cmdline-next",
                        CHECK_WARN,
                        expected,
                        boot->cmdline,
                        "no boot loader entry found (looked for " BOOT_CONFIG_SEARCHED
                        "): cannot tell what the next "
                        "boot gets; %s, which kernel-install writes into new entries, carries all %zu required "
                        "parameters",
                        boot->path,
                        strv_length(required));
        list = strv_join(missing, ", ");
        if (!list)
                return -ENOMEM;
        return check_list_add(
                out,
                "kernel.cmdline-next",
                CHECK_FAIL,
                expected,
                boot->cmdline,
                "%s, which kernel-install writes into new entries (no boot loader entry was found to read), lacks "
                "%s: add them to %s, then reinstall the kernel (kernel-install add)",
                boot->path,
                list,
                boot->path);
}

/* The boot configuration could not be read: says why. */
static int next_boot_unreadable(const SnapshotHost *h, const char *expected, CheckList *out) {
        if (h->boot_error == -ENOENT)
                return check_list_add(
                        out,
                        "kernel.cmdline-next",
                        CHECK_SKIP,
                        expected,
                        NULL,
                        "no boot configuration found (looked for " BOOT_CONFIG_SEARCHED
                        "): cannot tell what the next boot gets");
        if (h->boot_error == -EACCES || h->boot_error == -EPERM)
                return check_list_add(
                        out,
                        "kernel.cmdline-next",
                        CHECK_WARN,
                        expected,
                        NULL,
                        "could not look at %s (%s): `sudo haloctl check --only kernel.cmdline-next` reads it",
                        strna(h->boot_failed_path),
                        strerror(-h->boot_error));
        return check_list_add(
                out,
                "kernel.cmdline-next",
                CHECK_WARN,
                expected,
                NULL,
                "cannot read %s: %s",
                strna(h->boot_failed_path),
                strerror(-h->boot_error));
}

/* GRUB_DEFAULT=saved and an unreadable grubenv: the entry judged is only the likeliest one. */
static int next_boot_unsure(
        const BootConfig *boot, char **required, char **missing, const char *expected, CheckList *out) {
        _cleanup_(freep) char *list = NULL, *seen = NULL;
        int r;

        list = strv_join(missing, ", ");
        if (!list)
                return -ENOMEM;
        r = !missing ? asprintf(&seen, "carries all %zu required parameters", strv_length(required))
                     : asprintf(&seen, "lacks %s", list);
        if (r < 0)
                return -ENOMEM;
        return check_list_add(
                out,
                "kernel.cmdline-next",
                CHECK_WARN,
                expected,
                boot->cmdline,
                "could not look at which entry boots next: %s, and GRUB_DEFAULT=saved boots the one its "
                "saved_entry names; `sudo haloctl check --only kernel.cmdline-next` reads it. The first "
                "entry '%s' of %s, which boots when saved_entry is not set, %s",
                boot->unread,
                boot->entry_id,
                boot->path,
                seen);
}

/* The next boot carries every required parameter: whether the running kernel does too. */
static int next_boot_carries(
        const NodeContext *c,
        Snapshot *s,
        char **required,
        const char *expected,
        const char *where,
        CheckList *out) {
        const BootConfig *boot = s->host.boot;
        _cleanup_(strv_freep) char **unmet = NULL;
        _cleanup_(freep) char *list = NULL;
        int r;

        r = check_grub_cfg_kept(c, boot, required, expected, where, out);
        if (r == 0)
                r = check_install_kept(boot, required, expected, where, out);
        if (r != 0)
                return r < 0 ? r : 0;
        /* An unreadable /proc/cmdline counts as "not yet": kernel.cmdline says why. */
        r = snapshot_read(s, SNAPSHOT_CMDLINE);
        if (r >= 0 && s->host.cmdline_error >= 0)
                r = unmet_requirements(s->host.cmdline_parsed, required, &unmet);
        if (r < 0)
                return r;
        if (s->host.cmdline_error >= 0 && !unmet)
                return check_list_add(
                        out,
                        "kernel.cmdline-next",
                        CHECK_PASS,
                        expected,
                        boot->cmdline,
                        "the next boot (%s) carries all %zu required parameters",
                        where,
                        strv_length(required));

        list = unmet ? strv_join(unmet, ", ") : strdup("the required parameters");
        if (!list)
                return -ENOMEM;
        return check_list_add(
                out,
                "kernel.cmdline-next",
                CHECK_WARN,
                expected,
                boot->cmdline,
                "reboot pending: the next boot (%s) carries %s, the running kernel does not",
                where,
                list);
}

/* The next boot lacks some: which, and how to add them where this boot configuration keeps them. */
static int next_boot_lacks(
        const Host *h,
        const BootConfig *boot,
        const KernelCmdline *next,
        char **required,
        char **missing,
        const char *expected,
        const char *where,
        CheckList *out) {
        _cleanup_(strv_freep) char **unmet = NULL;
        _cleanup_(freep) char *list = NULL, *fix = NULL, *vars = NULL;
        int r;

        r = unmet_requirements(next, required, &unmet);
        if (r < 0)
                return r;
        r = how_to_fix(h, boot, unmet, &fix);
        if (r < 0)
                return r;
        list = strv_join(missing, ", ");
        if (!list)
                return -ENOMEM;
        if (boot->unresolved) {
                _cleanup_(freep) char *names = strv_join(boot->unresolved, ", $");

                if (!names || asprintf(&vars, " (grubenv does not set $%s)", names) < 0)
                        return -ENOMEM;
        }
        return check_list_add(
                out,
                "kernel.cmdline-next",
                CHECK_FAIL,
                expected,
                boot->cmdline,
                "the next boot (%s)%s lacks %s: %s",
                where,
                strempty(vars),
                list,
                fix);
}

int check_kernel_cmdline_next(const NodeContext *c, Snapshot *s, CheckList *out) {
        _cleanup_(kernel_cmdline_freep) KernelCmdline *next = NULL;
        _cleanup_(strv_freep) char **missing = NULL;
        _cleanup_(freep) char *expected = NULL, *where = NULL;
        char **required = kernel_required_params(c);
        const BootConfig *boot;
        int r, n_missing;

        if (strv_length(required) == 0)
                return check_list_skip(out, "kernel.cmdline-next", "the profile requires no kernel parameters");

        expected = strv_join(required, " ");
        if (!expected)
                return -ENOMEM;

        r = snapshot_read(s, SNAPSHOT_BOOT);
        if (r < 0)
                return r;
        if (s->host.boot_error < 0)
                return next_boot_unreadable(&s->host, expected, out);
        boot = s->host.boot;

        r = kernel_cmdline_parse(boot->cmdline, &next);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return check_list_add(
                        out,
                        "kernel.cmdline-next",
                        CHECK_FAIL,
                        expected,
                        NULL,
                        "cannot use the command line in %s: %s",
                        boot->path,
                        strerror(-r));

        r = describe_boot_config(boot, &where);
        if (r < 0)
                return r;

        n_missing = kernel_cmdline_missing(next, required, &missing);
        if (n_missing == -EINVAL)
                return check_list_add(
                        out,
                        "kernel.cmdline-next",
                        CHECK_FAIL,
                        expected,
                        boot->cmdline,
                        "the profile's kernel.cmdline holds an entry that is not a single parameter: fix the profile");
        if (n_missing < 0)
                return n_missing;

        if (boot->source == BOOT_CONFIG_KERNEL_CMDLINE)
                return next_boot_install_only(boot, required, missing, expected, out);
        if (boot->unread)
                return next_boot_unsure(boot, required, missing, expected, out);
        if (n_missing == 0)
                return next_boot_carries(c, s, required, expected, where, out);
        return next_boot_lacks(c->host, boot, next, required, missing, expected, where, out);
}
