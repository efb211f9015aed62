/* SPDX-License-Identifier: MIT */
/* kernel.cmdline-next's fix: what to run or edit so that the next boot carries the parameters, named
 * after the step that was skipped and the tool boot_loader_tool() gives for the host's boot loader. */
#include <stdio.h>

#include "basic/strv.h"
#include "boot/bootcfg.h"
#include "boot/cmdline.h"
#include "check/check-kernel.h"

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
        const BootFixFacts *f, char **unmet, bool recovery, char **ret_path, bool *ret_default_only) {
        const BootConfig *grub = f->grub_default;
        int r;

        *ret_path = NULL;
        *ret_default_only = false;
        if (!grub)
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
        *ret_path = strdup(grub->path);
        return *ret_path ? 1 : -ENOMEM;
}

/* /etc/default/grub carries every parameter in unmet, but a drop-in read after it (Ubuntu's cloud images'
 * 50-cloudimg-settings.cfg) sets the variable again without them: the edit vanishes at the next
 * grub-mkconfig. Says so in *ret; NULL when that is not what happened. */
static int grub_dropin_overrides(const BootFixFacts *f, char **unmet, char **ret) {
        const BootConfig *grub = f->grub_default;
        _cleanup_(freep) char *edited = NULL;
        int r;

        *ret = NULL;
        if (!grub)
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
                        f->tools[BOOT_LOADER_GRUB]);
                return r < 0 ? -ENOMEM : 1;
        }
        return 0;
}

/* systemd-boot: the entry lacks them. When what the next `kernel-install add` writes has them, the
 * file was edited and the step that writes the entry skipped (90-loaderentry.install reads it only
 * then); else they go into /etc/kernel/cmdline first. */
static int how_to_fix_sd_boot(const BootFixFacts *f, const BootConfig *b, char **unmet, char **ret) {
        const char *add = f->install_add;
        int r;

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
int kernel_next_how_to_fix(const BootFixFacts *f, const BootConfig *b, char **unmet, char **ret) {
        _cleanup_(freep) char *args = strv_join(unmet, " "), *edited = NULL, *overridden = NULL;
        const char *mkconfig = f->tools[BOOT_LOADER_GRUB];
        bool default_only = false;
        int r;

        if (!args)
                return -ENOMEM;
        if (b->loader == BOOT_LOADER_SYSTEMD_BOOT && b->source == BOOT_CONFIG_BLS)
                return how_to_fix_sd_boot(f, b, unmet, ret);
        if (b->source == BOOT_CONFIG_GRUB_CFG || b->source == BOOT_CONFIG_GRUB_DEFAULT) {
                r = grub_dropin_overrides(f, unmet, &overridden);
                if (r < 0)
                        return r;
        }
        if (b->source == BOOT_CONFIG_BLS || b->source == BOOT_CONFIG_GRUB_CFG) {
                r = grub_default_carries(f, unmet, b->recovery, &edited, &default_only);
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
                                f->tools[BOOT_LOADER_GRUB_BLS],
                                args);
                else
                        r = asprintf(
                                ret,
                                "add them to the options line of %s (on Fedora: %s --update-kernel=ALL "
                                "--args='%s')",
                                b->path,
                                f->tools[BOOT_LOADER_GRUB_BLS],
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
