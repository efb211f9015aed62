/* SPDX-License-Identifier: MIT */
/* kernel.cmdline-next: the required parameters on the next boot's command line, as the boot loader
 * reads it, and the step that was skipped when they are not. */
#include <stdio.h>

#include "basic/strv.h"
#include "boot/bootcfg.h"
#include "boot/cmdline.h"
#include "check/check-kernel.h"

int kernel_unmet_requirements(const KernelCmdline *cmdline, char **required, char ***ret) {
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

/* What each of kernel.cmdline-next's verdicts is about: the next boot's configuration and where that
 * boot is (describe_boot_config()), the profile's required parameters and, joined, what the check
 * expects; out takes the verdict. */
typedef struct NextBoot {
        const BootConfig *boot;
        char **required;
        const char *expected;
        const char *where;
        CheckList *out;
} NextBoot;

/* What writes the next boot's command line anew at every kernel update, and from which file. */
typedef struct NextWriter {
        const char *cmdline; /* what it would write */
        const char *file;    /* where it takes that from */
        const char *tool;    /* update-grub, kernel-install */
        const char *writes;  /* "grub.cfg", "entries" */
        const char *fix;     /* "add them to GRUB_CMDLINE_LINUX there" */
} NextWriter;

/* The next boot carries every parameter, but what its next writer would write does not: every kernel
 * update runs it, and the boot after it comes up without them. Adds a warning and returns 1; 0 when
 * there is nothing to say. */
static int warn_next_writer_lacks(const NextBoot *n, const NextWriter *w) {
        _cleanup_(kernel_cmdline_freep) KernelCmdline *k = NULL;
        _cleanup_(strv_freep) char **unmet = NULL;
        _cleanup_(freep) char *list = NULL;
        int r;

        r = kernel_cmdline_parse(w->cmdline, &k);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return 0;
        r = kernel_unmet_requirements(k, n->required, &unmet);
        if (r < 0)
                return r;
        if (!unmet)
                return 0;
        list = strv_join(unmet, ", ");
        if (!list)
                return -ENOMEM;
        r = check_list_add(
                n->out,
                "kernel.cmdline-next",
                CHECK_WARN,
                n->expected,
                n->boot->cmdline,
                "the next boot (%s) carries all %zu required parameters, but %s lacks %s: the next %s "
                "(every kernel update runs it) writes %s without them; %s",
                n->where,
                strv_length(n->required),
                w->file,
                list,
                w->tool,
                w->writes,
                w->fix);
        return r < 0 ? r : 1;
}

/* grub.cfg carries the parameters, but /etc/default/grub does not (grub.cfg edited by hand, or the
 * parameters taken out of the file since): the next update-grub writes grub.cfg without them. */
static int check_grub_cfg_kept(const BootFixFacts *f, const NextBoot *n) {
        const BootConfig *grub = f->grub_default;

        if (n->boot->source != BOOT_CONFIG_GRUB_CFG || !grub)
                return 0;
        return warn_next_writer_lacks(
                n,
                &(NextWriter){ .cmdline = grub->cmdline,
                               .file = grub->path,
                               .tool = f->tools[BOOT_LOADER_GRUB],
                               .writes = "grub.cfg",
                               .fix = "add them to GRUB_CMDLINE_LINUX there" });
}

/* systemd-boot's entry carries them, but what the next `kernel-install add` writes does not. */
static int check_install_kept(const BootFixFacts *f, const NextBoot *n) {
        const BootConfig *boot = n->boot;

        if (boot->loader != BOOT_LOADER_SYSTEMD_BOOT || boot->source != BOOT_CONFIG_BLS ||
            !boot->install_cmdline)
                return 0;
        return warn_next_writer_lacks(
                n,
                &(NextWriter){ .cmdline = boot->install_cmdline,
                               .file = boot->install_source,
                               .tool = f->tools[BOOT_LOADER_SYSTEMD_BOOT],
                               .writes = "entries",
                               .fix = streq(boot->install_source, KERNEL_CMDLINE_FILE)
                                       ? "add them there"
                                       : "write the whole command line, with them, into " KERNEL_CMDLINE_FILE });
}

/* No boot loader entry was found: /etc/kernel/cmdline tells only what kernel-install writes into the
 * next one, not what the next boot gets. */
static int next_boot_install_only(const NextBoot *n, char **missing) {
        const BootConfig *boot = n->boot;
        _cleanup_(freep) char *list = NULL;

        if (!missing)
                return check_list_add(
                        n->out,
                        "kernel.cmdline-next",
                        CHECK_WARN,
                        n->expected,
                        boot->cmdline,
                        "no boot loader entry found (looked for " BOOT_CONFIG_SEARCHED
                        "): cannot tell what the next "
                        "boot gets; %s, which kernel-install writes into new entries, carries all %zu required "
                        "parameters",
                        boot->path,
                        strv_length(n->required));
        list = strv_join(missing, ", ");
        if (!list)
                return -ENOMEM;
        return check_list_add(
                n->out,
                "kernel.cmdline-next",
                CHECK_FAIL,
                n->expected,
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
static int next_boot_unsure(const NextBoot *n, char **missing) {
        const BootConfig *boot = n->boot;
        _cleanup_(freep) char *list = NULL, *seen = NULL;
        int r;

        list = strv_join(missing, ", ");
        if (!list)
                return -ENOMEM;
        r = !missing ? asprintf(&seen, "carries all %zu required parameters", strv_length(n->required))
                     : asprintf(&seen, "lacks %s", list);
        if (r < 0)
                return -ENOMEM;
        return check_list_add(
                n->out,
                "kernel.cmdline-next",
                CHECK_WARN,
                n->expected,
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
static int next_boot_carries(const NodeContext *c, const Snapshot *s, const NextBoot *n) {
        _cleanup_(strv_freep) char **unmet = NULL;
        _cleanup_(freep) char *list = NULL;
        int r;

        r = check_grub_cfg_kept(&s->host.boot_fix, n);
        if (r == 0)
                r = check_install_kept(&s->host.boot_fix, n);
        if (r != 0)
                return r < 0 ? r : 0;
        /* An unreadable /proc/cmdline counts as "not yet": kernel.cmdline says why. */
        if (s->host.cmdline_error >= 0)
                r = kernel_unmet_requirements(s->host.cmdline_parsed, n->required, &unmet);
        if (r < 0)
                return r;
        if (s->host.cmdline_error >= 0 && !unmet)
                return check_list_add(
                        n->out,
                        "kernel.cmdline-next",
                        CHECK_PASS,
                        n->expected,
                        n->boot->cmdline,
                        "the next boot (%s) carries all %zu required parameters",
                        n->where,
                        strv_length(n->required));

        list = unmet ? strv_join(unmet, ", ") : strdup("the required parameters");
        if (!list)
                return -ENOMEM;
        return check_list_add(
                n->out,
                "kernel.cmdline-next",
                CHECK_WARN,
                n->expected,
                n->boot->cmdline,
                "reboot pending: the next boot (%s) carries %s, the running kernel does not",
                n->where,
                list);
}

/* The next boot lacks some: which, and how to add them where this boot configuration keeps them. */
static int next_boot_lacks(const BootFixFacts *f, const KernelCmdline *next, char **missing, const NextBoot *n) {
        const BootConfig *boot = n->boot;
        _cleanup_(strv_freep) char **unmet = NULL;
        _cleanup_(freep) char *list = NULL, *fix = NULL, *vars = NULL;
        int r;

        r = kernel_unmet_requirements(next, n->required, &unmet);
        if (r < 0)
                return r;
        r = kernel_next_how_to_fix(f, boot, unmet, &fix);
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
                n->out,
                "kernel.cmdline-next",
                CHECK_FAIL,
                n->expected,
                boot->cmdline,
                "the next boot (%s)%s lacks %s: %s",
                n->where,
                strempty(vars),
                list,
                fix);
}

int check_kernel_cmdline_next(const NodeContext *c, const Snapshot *s, CheckList *out) {
        _cleanup_(kernel_cmdline_freep) KernelCmdline *next = NULL;
        _cleanup_(strv_freep) char **missing = NULL;
        _cleanup_(freep) char *expected = NULL, *where = NULL;
        char **required = kernel_required_params(c);
        const BootConfig *boot;
        NextBoot n;
        int r, n_missing;

        if (strv_length(required) == 0)
                return check_list_skip(out, "kernel.cmdline-next", "the profile requires no kernel parameters");

        expected = strv_join(required, " ");
        if (!expected)
                return -ENOMEM;

        if (!snapshot_has(s, SNAPSHOT_CMDLINE | SNAPSHOT_BOOT))
                return 0; /* not selected: its caller did not read it */
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

        n = (NextBoot){ .boot = boot, .required = required, .expected = expected, .where = where, .out = out };
        if (boot->source == BOOT_CONFIG_KERNEL_CMDLINE)
                return next_boot_install_only(&n, missing);
        if (boot->unread)
                return next_boot_unsure(&n, missing);
        if (n_missing == 0)
                return next_boot_carries(c, s, &n);
        return next_boot_lacks(&s->host.boot_fix, next, missing, &n);
}
