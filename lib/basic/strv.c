/* SPDX-License-Identifier: MIT */
/* NULL-terminated string vectors. */
#include <stdio.h>

#include "basic/strv.h"

char **strv_free(char **l) {
        STRV_FOREACH(s, l)
                free(*s);
        free(l);
        return NULL;
}

size_t strv_length(char *const *l) {
        size_t n = 0;

        for (; l && l[n]; n++)
                ;
        return n;
}

bool strv_contains(char *const *l, const char *s) {
        for (; l && *l; l++)
                if (streq(*l, s))
                        return true;
        return false;
}

bool strv_equal(char *const *a, char *const *b) {
        size_t n = strv_length(a);

        if (n != strv_length(b))
                return false;
        for (size_t i = 0; i < n; i++)
                if (!streq(a[i], b[i]))
                        return false;
        return true;
}

void strv_remove(char **l, const char *s) {
        char **to = l;

        for (char **from = l; from && *from; from++)
                if (streq(*from, s))
                        free(*from);
                else
                        *to++ = *from;
        if (to)
                *to = NULL;
}

int strv_consume(char ***l, char *s) {
        size_t n;
        char **c;

        if (!s)
                return -ENOMEM;

        n = strv_length(*l);
        c = realloc(*l, sizeof(char *) * (n + 2));
        if (!c) {
                free(s);
                return -ENOMEM;
        }
        c[n] = s;
        c[n + 1] = NULL;
        *l = c;
        return 0;
}

int strv_extend(char ***l, const char *s) {
        return strv_consume(l, strdup(s));
}

int strv_env_replace_consume(char ***l, char *assignment) {
        const char *eq = assignment ? strchr(assignment, '=') : NULL;
        size_t n;

        if (!assignment)
                return -ENOMEM;
        if (!eq || eq == assignment) {
                free(assignment);
                return -EINVAL;
        }
        n = eq - assignment + 1; /* with the '=' */
        for (size_t i = strv_length(*l); i > 0; i--)
                if (strncmp((*l)[i - 1], assignment, n) == 0) {
                        free((*l)[i - 1]);
                        (*l)[i - 1] = assignment;
                        return 0;
                }
        return strv_consume(l, assignment);
}

int strv_extendf(char ***l, const char *fmt, ...) {
        char *s = NULL;
        va_list ap;
        int r;

        va_start(ap, fmt);
        r = vasprintf(&s, fmt, ap);
        va_end(ap);
        if (r < 0)
                return -ENOMEM;
        return strv_consume(l, s);
}

char *strv_join(char *const *l, const char *separator) {
        size_t n = 1, k = strlen(separator);
        char *r, *p;

        for (char *const *s = l; s && *s; s++)
                n += strlen(*s) + k;
        p = r = malloc(n);
        if (!r)
                return NULL;
        *p = '\0';
        for (char *const *s = l; s && *s; s++) {
                if (s != l)
                        p = stpcpy(p, separator);
                p = stpcpy(p, *s);
        }
        return r;
}
