/* SPDX-License-Identifier: MIT */
/* The kernel command line part of the plan: the profile's parameters against the next boot's command
 * line (boot/bootcfg.h reads it), and what writes them there on each boot loader. */
#include <stdarg.h>
#include <stdio.h>

#include "basic/fileio.h"
#include "basic/strv.h"
#include "boot/bootcfg.h"
#include "boot/cmdline.h"
#include "plan/boot-plan.h"

BootPlan *boot_plan_free(BootPlan *bp) {
        if (!bp)
                return NULL;
        strv_free(bp->add);
        strv_free(bp->replace);
        free(bp->file);
        free(bp->file_text);
        free(bp->file_before);
        for (char ***c = bp->commands; c && *c; c++)
                strv_free(*c);
        free(bp->commands);
        strv_free(bp->saved);
        free(bp->undo_text);
        free(bp->error);
        return mfree(bp);
}

static int add_command(BootPlan *bp, char **argv) {
        size_t n = 0;
        char ***l;

        while (bp->commands && bp->commands[n])
                n++;
        l = reallocarray(bp->commands, n + 2, sizeof(char **));
        if (!l) {
                strv_free(argv);
                return -ENOMEM;
        }
        l[n] = argv;
        l[n + 1] = NULL;
        bp->commands = l;
        return 0;
}

static int add_commandv(BootPlan *bp, const char *arg0, ...) {
        _cleanup_(strv_freep) char **argv = NULL;
        va_list ap;
        int r = 0;

        va_start(ap, arg0);
        for (const char *a = arg0; a && r >= 0; a = va_arg(ap, const char *))
                r = strv_extend(&argv, a);
        va_end(ap);
        if (r < 0)
                return r;
        return add_command(bp, TAKE_PTR(argv));
}

/* The names of the requirements that cmdline does not satisfy (kernel_cmdline_missing()'s rule), each as
 * written on a command line ("iommu=pt"), in the profile's order. */
static int unmet(const char *cmdline, char **required, char ***ret) {
        _cleanup_(kernel_cmdline_freep) KernelCmdline *k = NULL;
        _cleanup_(strv_freep) char **l = NULL;
        int r;

        r = kernel_cmdline_parse(strempty(cmdline), &k);
        if (r < 0)
                return r;
        STRV_FOREACH(req, required) {
                _cleanup_(freep) char *name = NULL, *value = NULL, *s = NULL;
                const KernelParam *have;

                r = kernel_param_parse_one(*req, &name, &value);
                if (r < 0)
                        return r;
                have = kernel_cmdline_find(k, name);
                if (have && (!value || streq_ptr(have->value, value)))
                        continue;
                s = kernel_param_to_string(name, value);
                if (!s)
                        return -ENOMEM;
                /* A profile that names a parameter twice adds it once. */
                if (strv_contains(l, s))
                        continue;
                r = strv_consume(&l, TAKE_PTR(s));
                if (r < 0)
                        return r;
        }
        *ret = TAKE_PTR(l);
        return 0;
}

/* cmdline without any parameter named in params (each "name" or "name=value"); what went, as written,
 * is appended to *removed (once each). */
static int strip_names(const char *cmdline, char **params, char **ret, char ***removed) {
        _cleanup_(kernel_cmdline_freep) KernelCmdline *k = NULL;
        _cleanup_(strv_freep) char **kept = NULL;
        _cleanup_(freep) char *joined = NULL;
        int r;

        r = kernel_cmdline_parse(strempty(cmdline), &k);
        if (r < 0)
                return r;
        for (size_t i = 0; i < k->n_params; i++) {
                _cleanup_(freep) char *s = kernel_param_to_string(k->params[i].name, k->params[i].value);
                bool named = false;

                if (!s)
                        return -ENOMEM;
                STRV_FOREACH(p, params) {
                        _cleanup_(freep) char *name = NULL, *value = NULL;

                        r = kernel_param_parse_one(*p, &name, &value);
                        if (r < 0)
                                return r;
                        named = named || kernel_param_name_equal(name, k->params[i].name);
                }
                if (named && removed && !strv_contains(*removed, s))
                        r = strv_extend(removed, s);
                else if (!named)
                        r = strv_extend(&kept, s);
                if (r < 0)
                        return r;
        }
        if (k->has_separator) {
                r = strv_extend(&kept, "--");
                STRV_FOREACH(a, k->init_args)
                        if (r >= 0)
                                r = strv_extend(&kept, *a);
                if (r < 0)
                        return r;
        }
        joined = kept ? strv_join(kept, " ") : strdup("");
        if (!joined)
                return -ENOMEM;
        *ret = TAKE_PTR(joined);
        return 0;
}

/* Appends params before a "--" (what follows it is init's, not the kernel's). */
static int append_params(const char *cmdline, char **params, char **ret) {
        _cleanup_(freep) char *add = strv_join(params, " ");
        const char *sep;

        if (!add)
                return -ENOMEM;
        sep = strstr(cmdline, " -- ");
        if (startswith(cmdline, "-- "))
                sep = cmdline - 1;
        if (sep)
                return asprintf(
                               ret,
                               "%.*s%s%s%s",
                               (int) (sep - cmdline),
                               cmdline,
                               sep > cmdline ? " " : "",
                               add,
                               sep) < 0
                        ? -ENOMEM
                        : 0;
        return asprintf(ret, "%s%s%s", cmdline, *cmdline && *add ? " " : "", add) < 0 ? -ENOMEM : 0;
}

int boot_cmdline_merge(const char *cmdline, char **required, char **ret, char ***ret_add, char ***ret_replace) {
        _cleanup_(strv_freep) char **add = NULL, **replace = NULL;
        _cleanup_(freep) char *stripped = NULL;
        int r;

        r = unmet(cmdline, required, &add);
        if (r >= 0)
                r = strip_names(cmdline, add, &stripped, &replace);
        if (r >= 0)
                r = append_params(stripped, add, ret);
        if (r < 0)
                return r;
        if (ret_add)
                *ret_add = TAKE_PTR(add);
        if (ret_replace)
                *ret_replace = TAKE_PTR(replace);
        return 0;
}

/* The tool as argv: "update-grub", "grub2-mkconfig -o /boot/grub2/grub.cfg". */
static int add_tool(BootPlan *bp) {
        _cleanup_(strv_freep) char **argv = NULL;

        for (const char *p = bp->tool; *p;) {
                size_t n = strcspn(p, " ");

                if (n > 0 && strv_consume(&argv, strndup(p, n)) < 0)
                        return -ENOMEM;
                p += n;
                p += strspn(p, " ");
        }
        return add_command(bp, TAKE_PTR(argv));
}

_printf_(2, 3) static int plan_error(BootPlan *bp, const char *fmt, ...) {
        va_list ap;
        int r;

        va_start(ap, fmt);
        r = vasprintf(&bp->error, fmt, ap);
        va_end(ap);
        return r < 0 ? -ENOMEM : 0;
}

/* Every Type #1 entry the loader reads, and the files a boot loader's tool rewrites: what a failed step
 * puts back. */
static int note_saved(const Host *h, const BootLoaderFound *found, BootPlan *bp) {
        static const char *const generated[] = { GRUB_CFG_DEBIAN, GRUB_CFG_FEDORA, GRUB_DEFAULT_FILE };
        int r;

        STRV_FOREACH(d, found->entries_dirs) {
                _cleanup_(strv_freep) char **names = NULL;

                r = host_list_directory(h, *d, &names);
                if (r == -ENOMEM)
                        return r;
                STRV_FOREACH(n, names) {
                        size_t l = strlen(*n);

                        if ((*n)[0] == '.' || l <= 5 || !streq(*n + l - 5, ".conf"))
                                continue;
                        r = strv_extendf(&bp->saved, "%s/%s", *d, *n);
                        if (r < 0)
                                return r;
                }
        }
        for (size_t i = 0; i < ELEMENTSOF(generated); i++)
                if (host_path_exists(h, generated[i]) && strv_extend(&bp->saved, generated[i]) < 0)
                        return -ENOMEM;
        return 0;
}

void boot_undo_done(BootUndo *u) {
        u->added = strv_free(u->added);
        u->replaced = strv_free(u->replaced);
        u->cmdline_before = mfree(u->cmdline_before);
        u->cmdline_known = false;
}

/* The words of a command line, split as the kernel splits them, each as written. */
static int split_params(const char *s, char ***l) {
        _cleanup_(kernel_cmdline_freep) KernelCmdline *k = NULL;
        int r;

        r = kernel_cmdline_parse(s, &k);
        for (size_t i = 0; r >= 0 && i < k->n_params; i++)
                r = strv_consume(l, kernel_param_to_string(k->params[i].name, k->params[i].value));
        return r;
}

int boot_undo_parse(const char *body, BootUndo *ret) {
        _cleanup_(boot_undo_done) BootUndo u = {};
        _cleanup_(freep) char *copy = strdup(body);
        int r = 0;

        if (!copy)
                return -ENOMEM;
        for (char *line = copy, *next; line && *line; line = next) {
                const char *v;

                next = strchr(line, '\n');
                if (next)
                        *next++ = '\0';
                if ((v = startswith(line, "added=")))
                        r = split_params(v, &u.added);
                else if ((v = startswith(line, "replaced=")))
                        r = split_params(v, &u.replaced);
                else if ((v = startswith(line, "cmdline-before="))) {
                        free(u.cmdline_before);
                        u.cmdline_known = true;
                        u.cmdline_before = strdup(v);
                        r = u.cmdline_before ? 0 : -ENOMEM;
                } else if (streq(line, "cmdline-absent"))
                        u.cmdline_known = true;
                if (r < 0)
                        return r;
        }
        *ret = u;
        u = (BootUndo){};
        return 0;
}

int boot_undo_read(const char *path, BootUndo *ret) {
        _cleanup_(freep) char *body = NULL, *part = NULL;
        int r;

        r = owned_file_read(path, &part, &body);
        if (r < 0)
                return r;
        if (r == 0 || !streq(part, BOOT_PART))
                return -EEXIST;
        return boot_undo_parse(body, ret);
}

/* The undo record's new body: what this plan adds and replaces, merged with what an earlier apply
 * recorded (the value first replaced is the one to put back); systemd-boot's /etc/kernel/cmdline as it
 * was before halod's first change. */
static int plan_undo_record(const Host *h, BootPlan *bp) {
        _cleanup_(freep) char *path = NULL, *added = NULL, *replaced = NULL;
        _cleanup_(boot_undo_done) BootUndo u = {};
        int r;

        r = host_path(h, BOOT_UNDO_FILE, &path);
        if (r < 0)
                return r;
        r = boot_undo_read(path, &u);
        if (r == -EEXIST)
                return plan_error(
                        bp, "%s is not halod's (its first line is not halod's marker): move it away", path);
        if (r < 0 && r != -ENOENT)
                return r;
        STRV_FOREACH(s, bp->replace)
                if (!strv_contains(u.replaced, *s) && !strv_contains(u.added, *s) &&
                    strv_extend(&u.replaced, *s) < 0)
                        return -ENOMEM;
        STRV_FOREACH(s, bp->add)
                if (!strv_contains(u.added, *s) && strv_extend(&u.added, *s) < 0)
                        return -ENOMEM;
        if (bp->loader == BOOT_LOADER_SYSTEMD_BOOT && !u.cmdline_known && bp->file_before) {
                /* One line in the record: kernel-install reads the file's words, whatever the blanks. */
                u.cmdline_known = true;
                u.cmdline_before = strdup(bp->file_before);
                if (!u.cmdline_before)
                        return -ENOMEM;
                for (char *p = u.cmdline_before; *p; p++)
                        if (*p == '\n')
                                *p = ' ';
                for (size_t n = strlen(u.cmdline_before); n > 0 && u.cmdline_before[n - 1] == ' '; n--)
                        u.cmdline_before[n - 1] = '\0';
        } else if (bp->loader == BOOT_LOADER_SYSTEMD_BOOT)
                u.cmdline_known = true;
        added = u.added ? strv_join(u.added, " ") : strdup("");
        replaced = u.replaced ? strv_join(u.replaced, " ") : strdup("");
        if (!added || !replaced)
                return -ENOMEM;
        if (!u.cmdline_known)
                r = asprintf(&bp->undo_text, "added=%s\nreplaced=%s\n", added, replaced);
        else if (u.cmdline_before)
                r = asprintf(
                        &bp->undo_text,
                        "added=%s\nreplaced=%s\ncmdline-before=%s\n",
                        added,
                        replaced,
                        u.cmdline_before);
        else
                r = asprintf(&bp->undo_text, "added=%s\nreplaced=%s\ncmdline-absent\n", added, replaced);
        return r < 0 ? -ENOMEM : 0;
}

/* GRUB with BLS (Fedora, RHEL): grubby rewrites the options of every entry. Its --args replaces a
 * parameter of the same name in place and appends one that is missing (rhboot/grubby grubby-bls,
 * update_args()), so the unmet requirements are all it needs. */
static int plan_grubby(const NodeContext *c, const BootConfig *boot, BootPlan *bp) {
        _cleanup_(freep) char *merged = NULL, *args = NULL, *opt = NULL;
        int r;

        r = boot_cmdline_merge(boot->cmdline, c->profile->kernel_cmdline, &merged, &bp->add, &bp->replace);
        if (r < 0 || !bp->add)
                return r;
        args = strv_join(bp->add, " ");
        if (!args || asprintf(&opt, "--args=%s", args) < 0)
                return -ENOMEM;
        r = add_commandv(bp, bp->tool, "--update-kernel=ALL", opt, NULL);
        if (r < 0)
                return r;
        return plan_undo_record(c->host, bp);
}

/* A value for a double-quoted shell word: '"', '\\', '$' and '`' escaped. */
static char *shell_quote(const char *s) {
        char *q = malloc(strlen(s) * 2 + 3), *p = q;

        if (!q)
                return NULL;
        *p++ = '"';
        for (; *s; s++) {
                if (strchr("\"\\$`", *s))
                        *p++ = '\\';
                *p++ = *s;
        }
        *p++ = '"';
        *p = '\0';
        return q;
}

/* GRUB_CMDLINE_LINUX and _DEFAULT after /etc/default/grub and every drop-in but halod's, as
 * grub-mkconfig sources them; -ENOTUNIQ with the drop-in's name in *ret_later when one sorted after
 * halod's sets either (it would undo halod's). */
static int grub_vars_without_ours(const Host *h, char ***ret_env, char **ret_later) {
        _cleanup_(strv_freep) char **env = NULL, **files = NULL;
        const char *ours = strrchr(BOOT_GRUB_DROPIN, '/') + 1;
        int r;

        r = grub_default_files(h, &files);
        if (r < 0)
                return r;
        STRV_FOREACH(f, files) {
                _cleanup_(strv_freep) char **assigned = NULL;
                _cleanup_(freep) char *text = NULL;

                if (streq(*f, BOOT_GRUB_DROPIN))
                        continue;
                r = host_read_file(h, *f, HOST_FILE_MAX, &text, NULL);
                if (r == -ENOENT && f == files)
                        continue;
                if (r < 0)
                        return r;
                r = shell_assignments_parse(text, &env, &assigned);
                if (r < 0)
                        return r;
                if (f != files && strcmp(strrchr(*f, '/') + 1, ours) > 0 &&
                    (strv_contains(assigned, "GRUB_CMDLINE_LINUX") ||
                     strv_contains(assigned, "GRUB_CMDLINE_LINUX_DEFAULT"))) {
                        *ret_later = strdup(*f);
                        return *ret_later ? -ENOTUNIQ : -ENOMEM;
                }
        }
        *ret_env = TAKE_PTR(env);
        return 0;
}

/* GRUB without BLS (Debian, Ubuntu): a drop-in sorted after the others gives GRUB_CMDLINE_LINUX (which
 * recovery entries get too) the missing parameters, and takes those with another value out of both
 * variables; update-grub writes grub.cfg from it. Appending by reference ("$GRUB_CMDLINE_LINUX …") keeps
 * later edits of /etc/default/grub alive; a variable that loses a parameter is written out whole. */
static int plan_grub(const NodeContext *c, const BootConfig *boot, BootPlan *bp) {
        _cleanup_(freep) char *later = NULL, *joined = NULL, *linux_new = NULL, *default_new = NULL,
                              *q_linux = NULL, *q_default = NULL, *adds = NULL, *path = NULL, *body = NULL,
                              *old_body = NULL, *stripped = NULL;
        _cleanup_(strv_freep) char **env = NULL, **lost_linux = NULL, **lost_default = NULL,
                                   **next_unmet = NULL;
        const char *lx, *df;
        int r;

        r = grub_vars_without_ours(c->host, &env, &later);
        if (r == -ENOTUNIQ)
                return plan_error(
                        bp,
                        "%s sorts after halod's drop-in and sets the kernel command line: halod's "
                        "%s would not have the last word; rename it to sort before it, or set kernel.boot: check",
                        later,
                        BOOT_GRUB_DROPIN);
        if (r < 0)
                return plan_error(bp, "cannot read %s: %s", GRUB_DEFAULT_FILE, strerror(-r));
        lx = strempty(env_get(env, "GRUB_CMDLINE_LINUX"));
        df = strempty(env_get(env, "GRUB_CMDLINE_LINUX_DEFAULT"));
        if (asprintf(&joined, "%s %s", lx, df) < 0)
                return -ENOMEM;
        r = unmet(joined, c->profile->kernel_cmdline, &bp->add);
        if (r < 0)
                return r;
        if (bp->add) {
                r = strip_names(lx, bp->add, &stripped, &lost_linux);
                if (r >= 0)
                        r = strip_names(df, bp->add, &default_new, &lost_default);
                if (r < 0)
                        return r;
                adds = strv_join(bp->add, " ");
                if (!adds)
                        return -ENOMEM;
                if (lost_linux)
                        r = append_params(stripped, bp->add, &linux_new);
                else
                        r = asprintf(&linux_new, "$GRUB_CMDLINE_LINUX %s", adds) < 0 ? -ENOMEM : 0;
                if (r < 0)
                        return r;
                /* "$GRUB_CMDLINE_LINUX" must stay a reference: quoted by hand. */
                q_linux = lost_linux ? shell_quote(linux_new) : NULL;
                if (!lost_linux && asprintf(&q_linux, "\"%s\"", linux_new) < 0)
                        return -ENOMEM;
                q_default = shell_quote(default_new);
                if (!q_linux || !q_default)
                        return -ENOMEM;
                r = asprintf(
                        &body,
                        "# The kernel parameters of halod's profile (kernel.cmdline, kernel.boot: manage).\n"
                        "GRUB_CMDLINE_LINUX=%s\n%s%s%s",
                        q_linux,
                        lost_default ? "GRUB_CMDLINE_LINUX_DEFAULT=" : "",
                        lost_default ? q_default : "",
                        lost_default ? "\n" : "");
                if (r < 0)
                        return -ENOMEM;
                STRV_FOREACH(s, lost_linux)
                        if (strv_extend(&bp->replace, *s) < 0)
                                return -ENOMEM;
                STRV_FOREACH(s, lost_default)
                        if (!strv_contains(bp->replace, *s) && strv_extend(&bp->replace, *s) < 0)
                                return -ENOMEM;
        }

        r = host_path(c->host, BOOT_GRUB_DROPIN, &path);
        if (r < 0)
                return r;
        r = owned_file_read(path, NULL, &old_body);
        if (r == 0 || r == -EBADFD)
                return plan_error(bp, "%s is not halod's: move it away, or set kernel.boot: check", path);
        if (r < 0 && r != -ENOENT)
                return plan_error(bp, "cannot read %s: %s", path, strerror(-r));
        if (body && !streq_ptr(old_body, body)) {
                bp->file = strdup(BOOT_GRUB_DROPIN);
                bp->file_text = TAKE_PTR(body);
                if (!bp->file)
                        return -ENOMEM;
        }
        /* grub.cfg is what boots: it may lack what the drop-ins already say (update-grub not run). */
        if (boot && boot->source == BOOT_CONFIG_GRUB_CFG) {
                r = unmet(boot->cmdline, c->profile->kernel_cmdline, &next_unmet);
                if (r < 0)
                        return r;
        }
        if (!bp->file && !next_unmet)
                return 0;
        if (!bp->add) {
                bp->add = TAKE_PTR(next_unmet);
        }
        return add_tool(bp);
}

/* The kernels installed, as kernel-install takes them: VERSION and the image, from /usr/lib/modules
 * (Fedora, Arch keep vmlinuz there) and /boot/vmlinuz-VERSION (Debian's packages). */
static int add_kernel_install(const Host *h, BootPlan *bp) {
        _cleanup_(strv_freep) char **versions = NULL, **boot = NULL;
        int r, modules_error;

        /* halod's own sandbox (ProtectKernelModules=) hides the directory: that is not "no kernel". */
        r = host_list_directory(h, "/usr/lib/modules", &versions);
        if (r == -ENOMEM)
                return r;
        modules_error = r == -ENOENT ? 0 : r;
        r = host_list_directory(h, "/boot", &boot);
        if (r == -ENOMEM)
                return r;
        STRV_FOREACH(b, boot) {
                const char *v = startswith(*b, "vmlinuz-");

                if (v && !strv_contains(versions, v) && strv_extend(&versions, v) < 0)
                        return -ENOMEM;
        }
        STRV_FOREACH(v, versions) {
                _cleanup_(freep) char *modules = NULL, *image = NULL;

                if (asprintf(&modules, "/usr/lib/modules/%s/vmlinuz", *v) < 0 ||
                    asprintf(&image, "/boot/vmlinuz-%s", *v) < 0)
                        return -ENOMEM;
                if (host_path_exists(h, modules))
                        r = add_commandv(bp, "kernel-install", "add", *v, modules, NULL);
                else if (host_path_exists(h, image))
                        r = add_commandv(bp, "kernel-install", "add", *v, image, NULL);
                else
                        continue;
                if (r < 0)
                        return r;
        }
        if (!bp->commands && modules_error < 0)
                return plan_error(
                        bp,
                        "could not list /usr/lib/modules (%s), and /boot has no vmlinuz-*: the kernels that "
                        "kernel-install would add are not known here; `sudo haloctl plan` lists them",
                        strerror(-modules_error));
        if (!bp->commands)
                return plan_error(
                        bp,
                        "no kernel image found in /usr/lib/modules/*/vmlinuz or /boot/vmlinuz-*: kernel-install has "
                        "nothing to add");
        return 0;
}

/* systemd-boot: kernel-install's 90-loaderentry.install writes /etc/kernel/cmdline into each entry
 * (bootcfg-kernel-install.c reads it as that plugin does); the file gets the parameters, then every
 * installed kernel's entry is written anew. */
static int plan_sd_boot(const NodeContext *c, const BootConfig *boot, BootPlan *bp) {
        _cleanup_(strv_freep) char **next_unmet = NULL;
        _cleanup_(freep) char *merged = NULL, *path = NULL, *before = NULL;
        int r;

        r = host_path(c->host, KERNEL_CMDLINE_FILE, &path);
        if (r < 0)
                return r;
        r = read_regular_file(path, HOST_FILE_MAX, &before, NULL);
        if (r == -ENOMEM)
                return r;
        if (r < 0 && r != -ENOENT)
                return plan_error(
                        bp, "cannot use %s: %s", path, r == -ELOOP ? "it is a symlink" : strerror(-r));
        r = boot_cmdline_merge(
                boot->install_cmdline, c->profile->kernel_cmdline, &merged, &bp->add, &bp->replace);
        if (r < 0)
                return r;
        if (bp->add) {
                bp->file = strdup(KERNEL_CMDLINE_FILE);
                if (!bp->file || asprintf(&bp->file_text, "%s\n", merged) < 0)
                        return -ENOMEM;
                bp->file_before = TAKE_PTR(before);
        }
        if (boot->source == BOOT_CONFIG_BLS) {
                r = unmet(boot->cmdline, c->profile->kernel_cmdline, &next_unmet);
                if (r < 0)
                        return r;
        }
        if (!bp->file && !next_unmet)
                return 0;
        if (!bp->add)
                bp->add = TAKE_PTR(next_unmet);
        r = add_kernel_install(c->host, bp);
        if (r < 0 || bp->error || !bp->file)
                return r;
        return plan_undo_record(c->host, bp);
}

static int boot_plan_new(const NodeContext *c, BootPlan **ret, BootLoaderFound *found, BootConfig **boot) {
        _cleanup_(boot_plan_freep) BootPlan *bp = calloc(1, sizeof(BootPlan));
        _cleanup_(freep) char *failed = NULL;
        int r;

        if (!bp)
                return -ENOMEM;
        bp->loader = _BOOT_LOADER_INVALID;
        r = boot_loader_find(c->host, found, &failed);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                r = plan_error(
                        bp,
                        "cannot tell which boot loader boots this host (%s): %s",
                        failed ?: "none of GRUB's or systemd-boot's files was found",
                        r == -ENOENT ? "write the command line by hand" : strerror(-r));
        else {
                bp->loader = found->loader;
                bp->tool = boot_loader_tool(c->host, found->loader);
                r = boot_config_load(c->host, boot, /* ret_failed_path= */ NULL);
                if (r == -ENOMEM)
                        return r;
                r = r < 0 && found->loader != BOOT_LOADER_GRUB
                        ? plan_error(bp, "cannot read the next boot's command line: %s", strerror(-r))
                        : 0;
        }
        if (r < 0)
                return r;
        *ret = TAKE_PTR(bp);
        return 0;
}

int boot_plan_compute(const NodeContext *c, BootPlan **ret) {
        _cleanup_(boot_loader_found_done) BootLoaderFound found = {};
        _cleanup_(boot_config_freep) BootConfig *boot = NULL;
        _cleanup_(boot_plan_freep) BootPlan *bp = NULL;
        int r;

        *ret = NULL;
        if (!c->profile || c->profile->kernel_boot != BOOT_POLICY_MANAGE ||
            strv_length(c->profile->kernel_cmdline) == 0)
                return 0;
        r = boot_plan_new(c, &bp, &found, &boot);
        if (r < 0)
                return r;
        if (bp->error) {
                *ret = TAKE_PTR(bp);
                return 0;
        }
        switch (bp->loader) {
        case BOOT_LOADER_GRUB_BLS:
                r = plan_grubby(c, boot, bp);
                break;
        case BOOT_LOADER_SYSTEMD_BOOT:
                r = plan_sd_boot(c, boot, bp);
                break;
        default:
                r = plan_grub(c, boot, bp);
                break;
        }
        if (r < 0)
                return r;
        if (!bp->error && !bp->commands)
                return 0;
        r = note_saved(c->host, &found, bp);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(bp);
        return 0;
}

int boot_plan_undo(const NodeContext *c, BootPlan **ret) {
        _cleanup_(boot_loader_found_done) BootLoaderFound found = {};
        _cleanup_(boot_config_freep) BootConfig *boot = NULL;
        _cleanup_(boot_plan_freep) BootPlan *bp = NULL;
        _cleanup_(boot_undo_done) BootUndo u = {};
        _cleanup_(freep) char *path = NULL, *dropin = NULL;
        bool recorded;
        int r;

        *ret = NULL;
        r = boot_plan_new(c, &bp, &found, &boot);
        if (r < 0)
                return r;
        bp->undo = true;
        if (bp->error) {
                *ret = TAKE_PTR(bp);
                return 0;
        }
        r = host_path(c->host, BOOT_UNDO_FILE, &path);
        if (r < 0)
                return r;
        r = boot_undo_read(path, &u);
        if (r == -EEXIST) {
                r = plan_error(bp, "%s is not halod's (no halod marker on its first line): move it away", path);
                if (r < 0)
                        return r;
                *ret = TAKE_PTR(bp);
                return 0;
        }
        if (r < 0 && r != -ENOENT)
                return r;
        recorded = r >= 0;
        switch (bp->loader) {
        case BOOT_LOADER_GRUB_BLS:
                if (u.added || u.replaced) {
                        _cleanup_(freep) char *add = strv_join(u.added, " "),
                                              *put = strv_join(u.replaced, " "), *o1 = NULL, *o2 = NULL;

                        if (!add || !put || asprintf(&o1, "--remove-args=%s", add) < 0 ||
                            asprintf(&o2, "--args=%s", put) < 0)
                                return -ENOMEM;
                        if (u.added && add_commandv(bp, bp->tool, "--update-kernel=ALL", o1, NULL) < 0)
                                return -ENOMEM;
                        if (u.replaced && add_commandv(bp, bp->tool, "--update-kernel=ALL", o2, NULL) < 0)
                                return -ENOMEM;
                        bp->add = TAKE_PTR(u.replaced);
                        bp->replace = TAKE_PTR(u.added);
                }
                break;
        case BOOT_LOADER_SYSTEMD_BOOT:
                if (u.cmdline_known) {
                        bp->file = strdup(KERNEL_CMDLINE_FILE);
                        if (!bp->file)
                                return -ENOMEM;
                        if (u.cmdline_before && asprintf(&bp->file_text, "%s\n", u.cmdline_before) < 0)
                                return -ENOMEM;
                        bp->add = TAKE_PTR(u.replaced);
                        bp->replace = TAKE_PTR(u.added);
                        r = add_kernel_install(c->host, bp);
                        if (r < 0)
                                return r;
                }
                break;
        default:
                r = host_path(c->host, BOOT_GRUB_DROPIN, &dropin);
                if (r < 0)
                        return r;
                if (owned_file_read(dropin, NULL, NULL) > 0) {
                        bp->file = strdup(BOOT_GRUB_DROPIN);
                        if (!bp->file || add_tool(bp) < 0)
                                return -ENOMEM;
                }
                break;
        }
        if (!bp->commands && !bp->file && !recorded && !bp->error)
                return 0;
        r = note_saved(c->host, &found, bp);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(bp);
        return 0;
}

/* A command as a shell would take it back: a word with a space or a quote in single quotes. */
static char *command_line(char **argv) {
        _cleanup_(strv_freep) char **words = NULL;

        STRV_FOREACH(a, argv) {
                const char *eq = strchr(*a, '=');
                int r;

                if (!strpbrk(*a, " \"'$"))
                        r = strv_extend(&words, *a);
                else if (startswith(*a, "--") && eq) /* --args='a b' as grubby's man page writes it */
                        r = strv_extendf(&words, "%.*s'%s'", (int) (eq - *a + 1), *a, eq + 1);
                else
                        r = strv_extendf(&words, "'%s'", *a);
                if (r < 0)
                        return NULL;
        }
        return strv_join(words, " ");
}

int boot_plan_describe(const BootPlan *bp, char ***ret_lines) {
        _cleanup_(strv_freep) char **l = NULL;
        _cleanup_(freep) char *add = NULL, *replace = NULL, *how = NULL;
        int r;

        if (!bp)
                return 0;
        if (bp->error)
                return strv_extendf(
                        ret_lines,
                        "kernel: cannot %s the command line: %s",
                        bp->undo ? "undo" : "write",
                        bp->error);
        add = strv_join(bp->add, " ");
        replace = strv_join(bp->replace, " ");
        if (!add || !replace)
                return -ENOMEM;
        if (bp->file)
                r = asprintf(&how, "%s and %s", bp->file, bp->tool);
        else if (bp->commands && bp->loader == BOOT_LOADER_GRUB_BLS)
                r = (how = command_line(bp->commands[0])) ? 0 : -ENOMEM;
        else
                r = (how = strdup(bp->tool)) ? 0 : -ENOMEM;
        if (r < 0)
                return -ENOMEM;
        if (bp->undo)
                r = strv_extendf(
                        &l,
                        "kernel: undo halod's change%s%s%s%s via %s",
                        *replace ? ": − " : "",
                        replace,
                        *add ? ", + " : "",
                        add,
                        how);
        else
                r = strv_extendf(
                        &l,
                        "kernel: + %s%s%s%s via %s",
                        add,
                        *replace ? " (replacing " : "",
                        replace,
                        *replace ? ")" : "",
                        how);
        if (r < 0)
                return r;
        if (bp->file)
                r = strv_extendf(
                        &l,
                        "kernel:   %s %s",
                        !bp->undo               ? "write"
                                : bp->file_text ? "put back"
                                                : "remove",
                        bp->file);
        for (char ***c = bp->commands; r >= 0 && c && *c; c++) {
                _cleanup_(freep) char *cmd = command_line(*c);

                r = cmd ? strv_extendf(&l, "kernel:   run %s", cmd) : -ENOMEM;
        }
        if (r >= 0 && !bp->undo)
                r = strv_extend(&l, "kernel:   in force after the next reboot (halod never reboots)");
        if (r < 0)
                return r;
        STRV_FOREACH(s, l)
                if (strv_extend(ret_lines, *s) < 0)
                        return -ENOMEM;
        return 0;
}
