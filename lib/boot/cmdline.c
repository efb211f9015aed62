/* SPDX-License-Identifier: MIT */
/* Splits a kernel command line exactly as the kernel does, and compares it with required parameters. */
#include <stdio.h>

#include "basic/strv.h"
#include "boot/cmdline.h"

/* The kernel's isspace(): its ctype table also counts Latin-1 NBSP (0xa0) as a space. */
static bool kernel_isspace(char c) {
        unsigned char u = (unsigned char) c;

        return u == ' ' || (u >= '\t' && u <= '\r') || u == 0xa0;
}

static char *skip_spaces(char *s) {
        while (kernel_isspace(*s))
                s++;
        return s;
}

/* A transcription of the kernel's next_arg() (lib/boot/cmdline.c): it cuts args in place, returns the
 * rest, and its quirks are kept on purpose, because the kernel is the one that decides what a
 * parameter is: a quote toggles quoting anywhere in a token, one leading quote of the token and one
 * leading quote of the value are dropped together with a trailing quote, and an '=' in the first
 * position does not split. */
static char *next_arg(char *args, char **ret_param, char **ret_val) {
        size_t i, equals = 0;
        bool in_quote = false, quoted = false;

        if (*args == '"') {
                args++;
                in_quote = quoted = true;
        }

        for (i = 0; args[i]; i++) {
                if (kernel_isspace(args[i]) && !in_quote)
                        break;
                if (equals == 0 && args[i] == '=')
                        equals = i;
                if (args[i] == '"')
                        in_quote = !in_quote;
        }

        *ret_param = args;
        if (equals == 0)
                *ret_val = NULL;
        else {
                args[equals] = '\0';
                *ret_val = args + equals + 1;

                if (**ret_val == '"') {
                        (*ret_val)++;
                        if (args[i - 1] == '"')
                                args[i - 1] = '\0';
                }
        }
        if (quoted && i > 0 && args[i - 1] == '"')
                args[i - 1] = '\0';

        if (args[i]) {
                args[i] = '\0';
                args += i + 1;
        } else
                args += i;

        return skip_spaces(args);
}

KernelCmdline *kernel_cmdline_free(KernelCmdline *c) {
        if (!c)
                return NULL;
        for (size_t i = 0; i < c->n_params; i++) {
                free(c->params[i].name);
                free(c->params[i].value);
        }
        free(c->params);
        strv_free(c->init_args);
        return mfree(c);
}

static int cmdline_append(KernelCmdline *c, const char *name, const char *value) {
        _cleanup_(freep) char *n = NULL, *v = NULL;
        KernelParam *a;

        n = strdup(name);
        if (!n)
                return -ENOMEM;
        if (value) {
                v = strdup(value);
                if (!v)
                        return -ENOMEM;
        }
        a = realloc(c->params, sizeof(KernelParam) * (c->n_params + 1));
        if (!a)
                return -ENOMEM;
        c->params = a;
        c->params[c->n_params++] = (KernelParam){ .name = TAKE_PTR(n), .value = TAKE_PTR(v) };
        return 0;
}

int kernel_cmdline_parse(const char *s, KernelCmdline **ret) {
        _cleanup_(kernel_cmdline_freep) KernelCmdline *c = NULL;
        _cleanup_(freep) char *copy = NULL;
        char *args;
        int r;

        if (strlen(s) > KERNEL_CMDLINE_MAX)
                return -E2BIG;

        copy = strdup(s);
        c = calloc(1, sizeof(KernelCmdline));
        if (!copy || !c)
                return -ENOMEM;

        args = skip_spaces(copy);
        while (*args) {
                char *param, *val;

                args = next_arg(args, &param, &val);

                if (!val && streq(param, "--")) {
                        /* kernel/params.c parse_args() stops here; init/main.c hands the rest to
                         * init, split the same way, with "name=value" put back together. That
                         * second pass stops at a second "--" too, and what follows is dropped. */
                        if (c->has_separator)
                                break;
                        c->has_separator = true;
                        continue;
                }

                if (c->has_separator)
                        r = val ? strv_extendf(&c->init_args, "%s=%s", param, val)
                                : strv_extend(&c->init_args, param);
                else
                        r = cmdline_append(c, param, val);
                if (r < 0)
                        return r;
        }

        *ret = TAKE_PTR(c);
        return 0;
}

const KernelParam *kernel_cmdline_find(const KernelCmdline *c, const char *name) {
        for (size_t i = c->n_params; i > 0; i--)
                if (kernel_param_name_equal(c->params[i - 1].name, name))
                        return &c->params[i - 1];
        return NULL;
}

int kernel_param_parse_one(const char *s, char **ret_name, char **ret_value) {
        _cleanup_(freep) char *copy = NULL, *name = NULL, *value = NULL;
        char *param, *val, *rest;

        copy = strdup(s);
        if (!copy)
                return -ENOMEM;

        rest = skip_spaces(copy);
        if (!*rest)
                return -EINVAL;
        rest = next_arg(rest, &param, &val);
        if (*rest || isempty(param) || (!val && streq(param, "--")))
                return -EINVAL;

        name = strdup(param);
        if (!name)
                return -ENOMEM;
        if (val) {
                value = strdup(val);
                if (!value)
                        return -ENOMEM;
        }
        *ret_name = TAKE_PTR(name);
        *ret_value = TAKE_PTR(value);
        return 0;
}

char *kernel_param_to_string(const char *name, const char *value) {
        char *s;
        bool quote = false;

        if (!value)
                return strdup(name);
        for (const char *p = value; *p; p++)
                if (kernel_isspace(*p))
                        quote = true;
        if (asprintf(&s, quote ? "%s=\"%s\"" : "%s=%s", name, value) < 0)
                return NULL;
        return s;
}

static int describe_mismatch(const char *name, const char *value, const KernelParam *have, char **ret) {
        _cleanup_(freep) char *want = NULL, *got = NULL;

        want = kernel_param_to_string(name, value);
        if (!want)
                return -ENOMEM;
        if (!have) {
                *ret = TAKE_PTR(want);
                return 0;
        }
        got = kernel_param_to_string(have->name, have->value);
        if (!got || asprintf(ret, "%s (have %s)", want, got) < 0)
                return -ENOMEM;
        return 0;
}

int kernel_cmdline_missing(const KernelCmdline *c, char **required, char ***ret_missing) {
        _cleanup_(strv_freep) char **missing = NULL;
        size_t n = 0;
        int r;

        STRV_FOREACH(req, required) {
                _cleanup_(freep) char *name = NULL, *value = NULL, *line = NULL;
                const KernelParam *have;

                r = kernel_param_parse_one(*req, &name, &value);
                if (r < 0)
                        return r;

                have = kernel_cmdline_find(c, name);
                if (have && (!value || streq_ptr(have->value, value)))
                        continue;

                r = describe_mismatch(name, value, have, &line);
                if (r < 0)
                        return r;
                r = strv_consume(&missing, TAKE_PTR(line));
                if (r < 0)
                        return r;
                n++;
        }

        *ret_missing = TAKE_PTR(missing);
        return (int) n;
}
