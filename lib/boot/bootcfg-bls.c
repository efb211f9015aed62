/* SPDX-License-Identifier: MIT */
/* Boot Loader Specification entries: parsing, version order, default entry, grub variables. */
#include <stdio.h>

#include "basic/strv.h"
#include "boot/bootcfg.h"

void bls_entry_done(BlsEntry *e) {
        free(e->id);
        free(e->path);
        free(e->title);
        free(e->version);
        free(e->machine_id);
        free(e->sort_key);
        free(e->linux_path);
        free(e->options);
        *e = (BlsEntry){};
}

static bool is_blank(char c) {
        return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Keeps the last value of a single-valued key, as sd-boot does. */
static int set_string(char **field, const char *value, size_t n) {
        char *s = strndup(value, n);

        if (!s)
                return -ENOMEM;
        free(*field);
        *field = s;
        return 0;
}

static int append_options(char **field, const char *value, size_t n) {
        char *s;

        if (!*field)
                return set_string(field, value, n);
        if (asprintf(&s, "%s %.*s", *field, (int) n, value) < 0)
                return -ENOMEM;
        free(*field);
        *field = s;
        return 0;
}

int bls_entry_parse(const char *text, BlsEntry *ret) {
        _cleanup_(bls_entry_done) BlsEntry e = {};
        const char *p = text;
        int r;

        while (*p) {
                const char *line = p, *end = p + strcspn(p, "\n"), *key, *value;
                size_t key_len, value_len;

                p = *end ? end + 1 : end;

                while (line < end && is_blank(*line))
                        line++;
                if (line == end || *line == '#')
                        continue;

                key = line;
                while (line < end && !is_blank(*line))
                        line++;
                key_len = line - key;
                while (line < end && is_blank(*line))
                        line++;
                value = line;
                value_len = end - value;
                while (value_len > 0 && is_blank(value[value_len - 1]))
                        value_len--;

#define KEY_IS(k) (key_len == strlen(k) && strneq(key, k, key_len))
                if (KEY_IS("title"))
                        r = set_string(&e.title, value, value_len);
                else if (KEY_IS("version"))
                        r = set_string(&e.version, value, value_len);
                else if (KEY_IS("machine-id"))
                        r = set_string(&e.machine_id, value, value_len);
                else if (KEY_IS("sort-key"))
                        r = set_string(&e.sort_key, value, value_len);
                else if (KEY_IS("linux"))
                        r = set_string(&e.linux_path, value, value_len);
                else if (KEY_IS("options"))
                        r = append_options(&e.options, value, value_len);
                else
                        r = 0;
#undef KEY_IS
                if (r < 0)
                        return r;
        }

        *ret = e;
        e = (BlsEntry){};
        return 0;
}

static bool is_digit(char c) {
        return c >= '0' && c <= '9';
}

static bool is_alpha(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_version_char(char c) {
        return is_digit(c) || is_alpha(c) || strchr("~-^.", c);
}

static int cmp_bool(bool a, bool b) {
        return (a > b) - (a < b);
}

static int cmp_size(size_t a, size_t b) {
        return (a > b) - (a < b);
}

int bls_version_compare(const char *a, const char *b) {
        if (!a || !b)
                return cmp_bool(!!a, !!b);

        for (;;) {
                const char *aa, *bb;
                int r;

                while (*a && !is_version_char(*a))
                        a++;
                while (*b && !is_version_char(*b))
                        b++;

                /* A '~' marks a pre-release: older than anything, even the end of the string. */
                if (*a == '~' || *b == '~') {
                        r = cmp_bool(*a != '~', *b != '~');
                        if (r != 0)
                                return r;
                        a++, b++;
                }

                /* Past '~', the string with more components is newer. */
                if (!*a || !*b)
                        return cmp_bool(*a, *b);

                /* '-' separates version from release, '^' marks a patched release, '.' a point
                 * release: in each case the string that has the separator here is older. */
                for (const char *sep = "-^."; *sep; sep++)
                        if (*a == *sep || *b == *sep) {
                                r = cmp_bool(*a != *sep, *b != *sep);
                                if (r != 0)
                                        return r;
                                a++, b++;
                        }

                if (is_digit(*a) || is_digit(*b)) {
                        /* A numeric component is newer than an alphabetic one. */
                        r = cmp_bool(is_digit(*a), is_digit(*b));
                        if (r != 0)
                                return r;
                        while (*a == '0')
                                a++;
                        while (*b == '0')
                                b++;
                        for (aa = a; is_digit(*aa); aa++)
                                ;
                        for (bb = b; is_digit(*bb); bb++)
                                ;
                        r = cmp_size(aa - a, bb - b);
                        if (r != 0)
                                return r;
                        r = strncmp(a, b, aa - a);
                        if (r != 0)
                                return r > 0 ? 1 : -1;
                } else {
                        for (aa = a; is_alpha(*aa); aa++)
                                ;
                        for (bb = b; is_alpha(*bb); bb++)
                                ;
                        r = strncmp(a, b, (size_t) (aa - a) < (size_t) (bb - b) ? aa - a : bb - b);
                        if (r != 0)
                                return r > 0 ? 1 : -1;
                        r = cmp_size(aa - a, bb - b);
                        if (r != 0)
                                return r;
                }
                a = aa;
                b = bb;
        }
}

int bls_entry_compare(const BlsEntry *a, const BlsEntry *b) {
        int r;

        /* Entries with a sort-key come first, in sort-key order (the BLS's "Sorting" section). */
        r = cmp_bool(!a->sort_key, !b->sort_key);
        if (r != 0)
                return r;
        if (a->sort_key && b->sort_key) {
                r = strcmp(a->sort_key, b->sort_key);
                if (r != 0)
                        return r;
                r = strcmp(strempty(a->machine_id), strempty(b->machine_id));
                if (r != 0)
                        return r;
        }

        /* Newest version first: the default entry is the most recent kernel. */
        r = -bls_version_compare(a->version, b->version);
        if (r != 0)
                return r;
        return -bls_version_compare(a->id, b->id);
}

static bool is_name_char(char c) {
        return is_digit(c) || is_alpha(c) || c == '_';
}

int grub_expand_variables(const char *s, char *const *env, char **ret, char ***ret_unresolved) {
        _cleanup_(strv_freep) char **unresolved = NULL;
        _cleanup_(freep) char *out = NULL;
        size_t n = 0, size = strlen(s) + 1;
        int r;

        out = malloc(size);
        if (!out)
                return -ENOMEM;

        for (const char *p = s; *p;) {
                _cleanup_(freep) char *name = NULL;
                const char *value, *start;
                size_t l;
                char *o;

                if (*p != '$') {
                        out[n++] = *p++;
                        continue;
                }

                start = p + 1;
                if (*start == '{') {
                        const char *close = strchr(start + 1, '}');

                        if (!close) {
                                out[n++] = *p++;
                                continue;
                        }
                        name = strndup(start + 1, close - start - 1);
                        p = close + 1;
                } else {
                        for (l = 0; is_name_char(start[l]); l++)
                                ;
                        if (l == 0) {
                                out[n++] = *p++;
                                continue;
                        }
                        name = strndup(start, l);
                        p = start + l;
                }
                if (!name)
                        return -ENOMEM;

                value = env_get(env, name);
                if (!value) {
                        if (!strv_contains(unresolved, name)) {
                                r = strv_extend(&unresolved, name);
                                if (r < 0)
                                        return r;
                        }
                        value = "";
                }

                l = strlen(value);
                o = realloc(out, size + l);
                if (!o)
                        return -ENOMEM;
                out = o;
                size += l;
                memcpy(out + n, value, l);
                n += l;
        }
        out[n] = '\0';

        *ret = TAKE_PTR(out);
        if (ret_unresolved)
                *ret_unresolved = TAKE_PTR(unresolved);
        return 0;
}
