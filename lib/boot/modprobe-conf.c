/* SPDX-License-Identifier: MIT */
/* Finding the modprobe.d line or kernel parameter that keeps a module from loading. */
#include <stdio.h>
#include <stdlib.h>

#include "basic/strv.h"
#include "boot/modprobe-conf.h"

/* A line longer than this is no configuration kmod would honour either (its own buffer is 4 KiB). */
#define MODPROBE_LINE_MAX 4096U
#define MODPROBE_FILE_MAX (256U * 1024U)

void module_block_done(ModuleBlock *b) {
        if (!b)
                return;
        b->source = mfree(b->source);
        b->text = mfree(b->text);
}

/* kmod compares module names with '-' and '_' alike ("mlx5-ib" is mlx5_ib). */
static bool module_name_equal(const char *a, size_t a_len, const char *b) {
        size_t i;

        for (i = 0; i < a_len && b[i]; i++) {
                char x = a[i] == '-' ? '_' : a[i], y = b[i] == '-' ? '_' : b[i];

                if (x != y)
                        return false;
        }
        return i == a_len && !b[i];
}

/* The next whitespace-separated word of *p: its start and length; false at the end. */
static bool next_word(const char **p, const char **ret, size_t *ret_len) {
        const char *s = *p + strspn(*p, " \t\r\f\v");
        size_t n = strcspn(s, " \t\r\f\v");

        if (n == 0)
                return false;
        *ret = s;
        *ret_len = n;
        *p = s + n;
        return true;
}

static bool word_is(const char *w, size_t n, const char *s) {
        return strlen(s) == n && strncmp(w, s, n) == 0;
}

/* An install command that loads nothing: the idiom for "never load this" ("install irdma /bin/false",
 * "/bin/true", "false", "exit 1"). */
static bool command_loads_nothing(const char *rest) {
        static const char *const nothing[] = {
                "/bin/false", "/usr/bin/false", "false", "/bin/true", "/usr/bin/true", "true", "exit",
        };
        const char *w;
        size_t n;

        if (!next_word(&rest, &w, &n))
                return true; /* an empty command runs nothing */
        for (size_t i = 0; i < ELEMENTSOF(nothing); i++)
                if (word_is(w, n, nothing[i]))
                        return true;
        return false;
}

/* Whether one logical line blocks module. */
static bool line_blocks(const char *line, const char *module) {
        const char *p = line, *cmd, *name;
        size_t cmd_len, name_len;

        if (!next_word(&p, &cmd, &cmd_len) || *cmd == '#')
                return false;
        if (!next_word(&p, &name, &name_len) || !module_name_equal(name, name_len, module))
                return false;
        if (word_is(cmd, cmd_len, "blacklist"))
                return true;
        if (word_is(cmd, cmd_len, "install"))
                return command_loads_nothing(p);
        return false;
}

int modprobe_conf_find_block(const char *text, const char *module, ModuleBlock *ret) {
        _cleanup_(freep) char *line = NULL;
        size_t len = 0;
        unsigned number = 0, first = 0;
        bool truncated = false;

        line = malloc(MODPROBE_LINE_MAX);
        if (!line)
                return -ENOMEM;

        /* Lines ending in a backslash continue on the next one (modprobe.d(5)); the block is reported
         * at the line where its logical line starts. */
        for (const char *p = text; p && *p;) {
                const char *end = strchr(p, '\n');
                size_t n = end ? (size_t) (end - p) : strlen(p);
                bool continued = n > 0 && p[n - 1] == '\\';

                number++;
                if (len == 0)
                        first = number;
                if (continued)
                        n--;
                if (len + n >= MODPROBE_LINE_MAX) {
                        truncated = true;
                        n = MODPROBE_LINE_MAX - 1 - len;
                }
                memcpy(line + len, p, n);
                len += n;
                line[len] = '\0';
                p = end ? end + 1 : NULL;
                if (continued && p && !truncated)
                        continue;

                if (!truncated && line_blocks(line, module)) {
                        *ret = (ModuleBlock){ .line = first, .text = strdup(line + strspn(line, " \t")) };
                        return ret->text ? 1 : -ENOMEM;
                }
                len = 0;
                truncated = false;
        }
        return 0;
}

int kernel_cmdline_find_module_block(const KernelCmdline *c, const char *module, ModuleBlock *ret) {
        for (size_t i = 0; i < c->n_params; i++) {
                const KernelParam *kp = &c->params[i];
                const char *p;

                if (!kp->value ||
                    (!kernel_param_name_equal(kp->name, "module_blacklist") &&
                     !kernel_param_name_equal(kp->name, "modprobe.blacklist")))
                        continue;
                for (p = kp->value; *p;) {
                        size_t n = strcspn(p, ",");

                        if (module_name_equal(p, n, module)) {
                                char *text = kernel_param_to_string(kp->name, kp->value);

                                if (!text)
                                        return -ENOMEM;
                                *ret = (ModuleBlock){ .text = text };
                                return 1;
                        }
                        p += n;
                        p += *p == ',';
                }
        }
        return 0;
}

/* The .conf files kmod reads, in its order: by file name, the earliest directory's copy winning. */
static int modprobe_conf_files(const Host *h, char ***ret) {
        static const char *const dirs[] = { MODPROBE_CONF_DIRS };

        return host_conf_files(h, dirs, ELEMENTSOF(dirs), ".conf", ret);
}

int module_find_block(const Host *h, const char *module, ModuleBlock *ret, char ***ret_unreadable) {
        _cleanup_(kernel_cmdline_freep) KernelCmdline *cmdline = NULL;
        _cleanup_(freep) char *text = NULL;
        int r, read_error;

        r = host_read_file(h, "/proc/cmdline", KERNEL_CMDLINE_MAX, &text, NULL);
        if (r == -ENOMEM)
                return r;
        read_error = r < 0 ? r : 0;
        if (r >= 0 && kernel_cmdline_parse(text, &cmdline) == -ENOMEM)
                return -ENOMEM;
        return module_find_block_with_cmdline(h, cmdline, read_error, module, ret, ret_unreadable);
}

int module_find_block_with_cmdline(
        const Host *h,
        const KernelCmdline *cmdline,
        int cmdline_read_error,
        const char *module,
        ModuleBlock *ret,
        char ***ret_unreadable) {
        _cleanup_(strv_freep) char **files = NULL, **unreadable = NULL;
        int r;

        if (ret_unreadable)
                *ret_unreadable = NULL;
        if (cmdline) {
                r = kernel_cmdline_find_module_block(cmdline, module, ret);
                if (r != 0) {
                        if (r > 0 && !(ret->source = strdup("/proc/cmdline"))) {
                                module_block_done(ret);
                                return -ENOMEM;
                        }
                        return r;
                }
        } else if (cmdline_read_error < 0 && cmdline_read_error != -ENOENT && strv_extend(&unreadable, "/proc/cmdline") < 0)
                return -ENOMEM;

        r = modprobe_conf_files(h, &files);
        if (r < 0)
                return r;
        STRV_FOREACH(f, files) {
                _cleanup_(freep) char *conf = NULL;

                r = host_read_file(h, *f, MODPROBE_FILE_MAX, &conf, NULL);
                if (r == -ENOMEM)
                        return r;
                if (r < 0) {
                        if (strv_extend(&unreadable, *f) < 0)
                                return -ENOMEM;
                        continue;
                }
                r = modprobe_conf_find_block(conf, module, ret);
                if (r < 0)
                        return r;
                if (r > 0) {
                        ret->source = strdup(*f);
                        if (!ret->source) {
                                module_block_done(ret);
                                return -ENOMEM;
                        }
                        break;
                }
        }
        if (ret_unreadable)
                *ret_unreadable = TAKE_PTR(unreadable);
        return r > 0;
}
