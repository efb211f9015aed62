/* SPDX-License-Identifier: MIT */
/* The variable files grub reads: /etc/default/grub (a shell script, never run) and grubenv. */
#include <stdio.h>

#include "basic/strv.h"
#include "boot/bootcfg.h"

/* Nested ${a:-${b:-...}} deeper than this is refused rather than recursed into. */
#define SHELL_NESTING_MAX 16

const char *env_get(char *const *env, const char *name) {
        size_t l = strlen(name);

        /* The last one wins, though env_set() never leaves two. */
        for (size_t i = strv_length(env); i > 0; i--)
                if (strneq(env[i - 1], name, l) && env[i - 1][l] == '=')
                        return env[i - 1] + l + 1;
        return NULL;
}

static int env_set(char ***env, const char *name, const char *value) {
        char *s;

        if (asprintf(&s, "%s=%s", name, value) < 0)
                return -ENOMEM;
        return strv_env_replace_consume(env, s);
}

/* A growing string; on allocation failure it remembers so and the caller returns -ENOMEM. */
typedef struct Buffer {
        char *data;
        size_t n, allocated;
        bool oom;
} Buffer;

static void buffer_append(Buffer *b, const char *s, size_t n) {
        if (b->oom)
                return;
        if (b->n + n + 1 > b->allocated) {
                size_t want = (b->n + n + 1) * 2;
                char *d = realloc(b->data, want);

                if (!d) {
                        b->oom = true;
                        return;
                }
                b->data = d;
                b->allocated = want;
        }
        memcpy(b->data + b->n, s, n);
        b->n += n;
        b->data[b->n] = '\0';
}

static void buffer_putc(Buffer *b, char c) {
        buffer_append(b, &c, 1);
}

static bool is_name_start(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_name_char(char c) {
        return is_name_start(c) || (c >= '0' && c <= '9');
}

static bool is_blank(char c) {
        return c == ' ' || c == '\t' || c == '\r';
}

static bool is_word_end(char c) {
        return !c || is_blank(c) || strchr("\n;&|<>()", c);
}

typedef struct Word {
        Buffer value;
        bool unsupported; /* a command substitution: the value is unknown */
} Word;

static void skip_command_substitution(const char **p) {
        const char *s = *p;

        if (*s == '`') {
                for (s++; *s && *s != '`'; s++)
                        if (*s == '\\' && s[1])
                                s++;
                *p = *s ? s + 1 : s;
                return;
        }

        /* "$(": to the matching parenthesis, minding quotes. */
        unsigned depth = 0;
        char quote = 0;
        for (s++; *s; s++) {
                if (quote) {
                        if (*s == quote)
                                quote = 0;
                        else if (*s == '\\' && quote == '"' && s[1])
                                s++;
                } else if (*s == '\'' || *s == '"')
                        quote = *s;
                else if (*s == '\\' && s[1])
                        s++;
                else if (*s == '(')
                        depth++;
                else if (*s == ')' && --depth == 0) {
                        s++;
                        break;
                }
        }
        *p = s;
}

static void parse_word(const char **p, char *const *env, char stop, unsigned level, Word *w);

/* At a '$': a parameter expansion, a command substitution or a plain dollar sign. */
static void parse_dollar(const char **p, char *const *env, unsigned level, Word *w) {
        const char *s = *p + 1, *name;
        size_t l;

        if (*s == '(') {
                *p = s - 1;
                skip_command_substitution(p);
                w->unsupported = true;
                return;
        }

        if (*s != '{') {
                if (!is_name_start(*s)) {
                        /* A positional or special parameter is empty in a sourced file; a "$"
                         * before anything else is just a dollar sign. */
                        if (*s && strchr("@*#?-$!0123456789", *s))
                                *p = s + 1;
                        else {
                                buffer_putc(&w->value, '$');
                                *p = s;
                        }
                        return;
                }
                for (l = 0; is_name_char(s[l]); l++)
                        ;
                _cleanup_(freep) char *n = strndup(s, l);
                const char *v = n ? env_get(env, n) : NULL;
                if (!n)
                        w->value.oom = true;
                else if (v)
                        buffer_append(&w->value, v, strlen(v));
                *p = s + l;
                return;
        }

        /* ${NAME}, ${NAME:-word}, ${NAME-word}, ${NAME:+word}, ${NAME+word}. */
        name = ++s;
        for (l = 0; is_name_char(name[l]); l++)
                ;
        s = name + l;
        _cleanup_(freep) char *n = strndup(name, l);
        if (!n) {
                w->value.oom = true;
                *p = s;
                return;
        }
        const char *v = env_get(env, n);
        bool colon = *s == ':';
        if (colon)
                s++;

        if (*s == '}' && !colon) {
                if (v)
                        buffer_append(&w->value, v, strlen(v));
                *p = s + 1;
                return;
        }

        if ((*s == '-' || *s == '+') && level < SHELL_NESTING_MAX) {
                char op = *s;
                bool set = v && (!colon || *v), use_word = op == '-' ? !set : set;
                Word alt = {};

                s++;
                parse_word(&s, env, '}', level + 1, &alt);
                if (*s == '}')
                        s++;
                if (alt.value.oom)
                        w->value.oom = true;
                if (use_word) {
                        w->unsupported = w->unsupported || alt.unsupported;
                        if (alt.value.data)
                                buffer_append(&w->value, alt.value.data, alt.value.n);
                } else if (op == '-')
                        buffer_append(&w->value, v, strlen(v));
                free(alt.value.data);
                *p = s;
                return;
        }

        /* Anything else (${#x}, ${x%y}, ${x:=y}, ...): we do not evaluate it. */
        w->unsupported = true;
        while (*s && *s != '}')
                s++;
        *p = *s ? s + 1 : s;
}

/* '$' and '`' expand the same inside double quotes as outside them; any other character stands for
 * itself. */
static void parse_expansion_or_char(const char **p, char *const *env, unsigned level, Word *w) {
        if (**p == '$')
                parse_dollar(p, env, level, w);
        else if (**p == '`') {
                skip_command_substitution(p);
                w->unsupported = true;
        } else
                buffer_putc(&w->value, *(*p)++);
}

/* One shell word: quotes removed, expansions done. stop is 0 for a top-level word (it ends at a blank
 * or an operator) or '}' for the word inside ${x:-word}. */
static void parse_word(const char **p, char *const *env, char stop, unsigned level, Word *w) {
        const char *s = *p;

        while (*s) {
                if (stop ? *s == stop : is_word_end(*s))
                        break;

                if (*s == '\'') {
                        const char *close = strchr(s + 1, '\'');
                        size_t n = close ? (size_t) (close - s - 1) : strlen(s + 1);

                        buffer_append(&w->value, s + 1, n);
                        s += n + 1 + !!close;
                } else if (*s == '"') {
                        for (s++; *s && *s != '"';) {
                                if (*s == '\\' && s[1] && strchr("$`\"\\\n", s[1])) {
                                        if (s[1] != '\n')
                                                buffer_putc(&w->value, s[1]);
                                        s += 2;
                                } else
                                        parse_expansion_or_char(&s, env, level, w);
                        }
                        if (*s == '"')
                                s++;
                } else if (*s == '\\') {
                        if (s[1] && s[1] != '\n')
                                buffer_putc(&w->value, s[1]);
                        s += s[1] ? 2 : 1;
                } else
                        parse_expansion_or_char(&s, env, level, w);
        }
        *p = s;
}

int shell_assignments_parse(const char *text, char ***env, char ***ret_assigned) {
        const char *p = text;
        int r;

        while (*p) {
                const char *name;
                size_t l;

                while (is_blank(*p) || *p == '\n' || *p == ';' || *p == '&' || *p == '|')
                        p++;
                if (!*p)
                        break;
                if (*p == '#') {
                        p += strcspn(p, "\n");
                        continue;
                }
                if (startswith(p, "export") && is_blank(p[6])) {
                        p += 6;
                        continue;
                }

                name = p;
                for (l = 0; is_name_char(name[l]); l++)
                        ;
                if (l > 0 && is_name_start(*name) && name[l] == '=') {
                        _cleanup_(freep) char *n = strndup(name, l);
                        Word w = {};

                        p = name + l + 1;
                        parse_word(&p, *env, /* stop= */ 0, 0, &w);
                        if (!n || w.value.oom) {
                                free(w.value.data);
                                return -ENOMEM;
                        }
                        r = 0;
                        if (!w.unsupported) {
                                r = env_set(env, n, strempty(w.value.data));
                                if (r >= 0 && ret_assigned && !strv_contains(*ret_assigned, n))
                                        r = strv_extend(ret_assigned, n);
                        }
                        free(w.value.data);
                        if (r < 0)
                                return r;
                        continue;
                }

                /* Not an assignment: a command we do not run. Skip its words, minding quotes, up to
                 * the end of the command. */
                while (*p && *p != '\n' && *p != ';') {
                        const char *before = p;
                        Word w = {};

                        if (is_blank(*p) || strchr("&|<>()", *p)) {
                                p++;
                                continue;
                        }
                        parse_word(&p, *env, /* stop= */ 0, 0, &w);
                        free(w.value.data);
                        if (w.value.oom)
                                return -ENOMEM;
                        if (p == before)
                                p++;
                }
        }
        return 0;
}

int grubenv_parse(const char *text, char ***ret_env) {
        _cleanup_(strv_freep) char **env = NULL;
        const char *p = text;
        int r;

        while (*p) {
                Buffer line = {};
                const char *eq;

                /* grub escapes '\\' and newlines in values with a backslash. */
                for (; *p && *p != '\n'; p++) {
                        if (*p == '\\' && p[1])
                                p++;
                        buffer_putc(&line, *p);
                }
                if (*p)
                        p++;
                if (line.oom)
                        return -ENOMEM;
                if (!line.data || line.data[0] == '#' || !(eq = strchr(line.data, '=')) || eq == line.data) {
                        free(line.data);
                        continue;
                }
                line.data[eq - line.data] = '\0';
                r = env_set(&env, line.data, eq + 1);
                free(line.data);
                if (r < 0)
                        return r;
        }

        *ret_env = TAKE_PTR(env);
        return 0;
}
