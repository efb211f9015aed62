/* SPDX-License-Identifier: MIT */
/* podman's default_ulimits in containers.conf (TOML): the memlock limit podman's containers get. */
#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>

#include "basic/strv.h"
#include "limits/memlock-sources.h"

#define CONTAINERS_CONF_VENDOR "/usr/share/containers/containers.conf"
#define CONTAINERS_CONF_ADMIN "/etc/containers/containers.conf"
#define ULIMITS_KEY "containers.default_ulimits"

/* Deeper nesting than this is no containers.conf: refused rather than recursed into. */
#define TOML_DEPTH_MAX 32U

void containers_conf_done(ContainersConf *c) {
        c->memlock_entry = mfree(c->memlock_entry);
        c->file = mfree(c->file);
        c->rejected = strv_free(c->rejected);
        c->unreadable = strv_free(c->unreadable);
}

/* A signed 64-bit decimal as podman reads a ulimit value; -1 is unlimited. */
static int parse_ulimit_value(const char *s, size_t n, uint64_t *ret) {
        uint64_t v = 0;

        if (n == 2 && strneq(s, "-1", 2)) {
                *ret = MEMLOCK_UNLIMITED;
                return 0;
        }
        if (n == 0)
                return -EINVAL;
        for (size_t i = 0; i < n; i++) {
                uint64_t digit = (uint64_t) (s[i] - '0');

                if (!isdigit((unsigned char) s[i]))
                        return -EINVAL;
                if (v > ((uint64_t) INT64_MAX - digit) / 10)
                        return -ERANGE;
                v = v * 10 + digit;
        }
        *ret = v;
        return 0;
}

int podman_ulimit_parse_memlock(const char *entry, MemlockLimit *ret) {
        const char *v = startswith(entry, "memlock="), *colon;
        MemlockLimit l;
        int r;

        if (!v)
                return 0;
        colon = strchr(v, ':');
        r = parse_ulimit_value(v, colon ? (size_t) (colon - v) : strlen(v), &l.soft);
        if (r < 0)
                return -EINVAL;
        l.hard = l.soft;
        if (colon && parse_ulimit_value(colon + 1, strlen(colon + 1), &l.hard) < 0)
                return -EINVAL;
        if (l.soft > l.hard)
                return -EINVAL; /* podman refuses a soft limit above the hard one */
        *ret = l;
        return 1;
}

/* A cursor over one file's text. The first error stops the file: podman refuses such a file too. */
typedef struct Toml {
        const char *p;
        unsigned line;
        const char *file;
        char *error;
} Toml;

_printf_(2, 3) static int toml_error(Toml *t, const char *format, ...) {
        _cleanup_(freep) char *what = NULL;
        va_list ap;
        int r;

        va_start(ap, format);
        r = vasprintf(&what, format, ap);
        va_end(ap);
        if (r < 0 || asprintf(&t->error, "%s:%u: %s", t->file, t->line, what) < 0) {
                t->error = NULL;
                return -ENOMEM;
        }
        return -EBADMSG;
}

static void skip_blanks(Toml *t) {
        t->p += strspn(t->p, " \t");
}

/* Blanks, newlines and comments: what may stand between the elements of an array. */
static void skip_space(Toml *t) {
        for (;;) {
                skip_blanks(t);
                if (*t->p == '#')
                        t->p += strcspn(t->p, "\n");
                else if (*t->p == '\r' && t->p[1] == '\n')
                        t->p++;
                else if (*t->p == '\n') {
                        t->line++;
                        t->p++;
                } else
                        return;
        }
}

static int expect_line_end(Toml *t) {
        skip_blanks(t);
        if (*t->p == '#')
                t->p += strcspn(t->p, "\n");
        if (*t->p == '\r')
                t->p++;
        if (*t->p != '\n' && *t->p != '\0')
                return toml_error(t, "unexpected '%c' after the value: one key = value a line", *t->p);
        return 0;
}

static int utf8_append(FILE *out, uint32_t c) {
        if (c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
                return -EINVAL;
        if (c < 0x80)
                fputc((int) c, out);
        else if (c < 0x800)
                fprintf(out, "%c%c", (char) (0xC0 | (c >> 6)), (char) (0x80 | (c & 0x3F)));
        else if (c < 0x10000)
                fprintf(out,
                        "%c%c%c",
                        (char) (0xE0 | (c >> 12)),
                        (char) (0x80 | ((c >> 6) & 0x3F)),
                        (char) (0x80 | (c & 0x3F)));
        else
                fprintf(out,
                        "%c%c%c%c",
                        (char) (0xF0 | (c >> 18)),
                        (char) (0x80 | ((c >> 12) & 0x3F)),
                        (char) (0x80 | ((c >> 6) & 0x3F)),
                        (char) (0x80 | (c & 0x3F)));
        return 0;
}

/* One escape of a basic string, after the backslash; writes what it stands for to out. */
static int read_escape(Toml *t, FILE *out, bool multiline) {
        static const char from[] = "btnfr\"\\", to[] = "\b\t\n\f\r\"\\";
        const char *e = strchr(from, *t->p);
        unsigned digits;
        uint32_t c = 0;

        if (*t->p && e) {
                fputc(to[e - from], out);
                t->p++;
                return 0;
        }
        if (multiline && (*t->p == ' ' || *t->p == '\t' || *t->p == '\r' || *t->p == '\n')) {
                /* A backslash at the end of a line joins it with the next, without the blanks. */
                skip_blanks(t);
                if (*t->p != '\n' && !(*t->p == '\r' && t->p[1] == '\n'))
                        return toml_error(t, "a backslash in a string is followed by a blank");
                skip_space(t);
                return 0;
        }
        if (*t->p != 'u' && *t->p != 'U')
                return toml_error(t, "unknown escape in a string: \\%c", *t->p ? *t->p : '0');
        digits = *t->p == 'u' ? 4 : 8;
        t->p++;
        for (unsigned i = 0; i < digits; i++, t->p++) {
                if (!isxdigit((unsigned char) *t->p))
                        return toml_error(t, "\\u needs %u hexadecimal digits", digits);
                c = c * 16 +
                        (uint32_t) (isdigit((unsigned char) *t->p) ? *t->p - '0' : (*t->p | 0x20) - 'a' + 10);
        }
        if (utf8_append(out, c) < 0)
                return toml_error(t, "\\u%0*" PRIX32 " is not a Unicode scalar value", (int) digits, c);
        return 0;
}

/* A string at t->p ("basic", 'literal' or their triple-quoted multi-line forms); its value goes to
 * ret unless that is NULL. */
static int read_string(Toml *t, char **ret) {
        _cleanup_(freep) char *buf = NULL;
        _cleanup_(fclosep) FILE *out = NULL;
        char quote = *t->p;
        bool multiline = t->p[1] == quote && t->p[2] == quote;
        size_t size = 0;
        int r;

        out = open_memstream(&buf, &size);
        if (!out)
                return -ENOMEM;
        t->p += multiline ? 3 : 1;
        if (multiline && *t->p == '\n') { /* a newline right after the opening quotes is trimmed */
                t->line++;
                t->p++;
        }
        for (;;) {
                if (*t->p == '\0')
                        return toml_error(t, "a string is not closed");
                if (*t->p == quote &&
                    (!multiline || (t->p[1] == quote && t->p[2] == quote && t->p[3] != quote))) {
                        t->p += multiline ? 3 : 1;
                        break;
                }
                if (*t->p == '\n') {
                        if (!multiline)
                                return toml_error(t, "a string is not closed on its line");
                        t->line++;
                }
                if (quote == '"' && *t->p == '\\') {
                        t->p++;
                        r = read_escape(t, out, multiline);
                        if (r < 0)
                                return r;
                        continue;
                }
                fputc(*t->p, out);
                t->p++;
        }
        if (fclose(TAKE_PTR(out)) != 0)
                return -ENOMEM;
        if (ret)
                *ret = TAKE_PTR(buf);
        return 0;
}

/* A key: bare (A-Za-z0-9_-) or quoted parts, joined by dots. */
static int read_key(Toml *t, char **ret) {
        _cleanup_(strv_freep) char **parts = NULL;

        for (;;) {
                char *part = NULL;
                int r;

                skip_blanks(t);
                if (*t->p == '"' || *t->p == '\'') {
                        if (t->p[1] == *t->p && t->p[2] == *t->p)
                                return toml_error(t, "a key cannot be a multi-line string");
                        r = read_string(t, &part);
                        if (r < 0)
                                return r;
                } else {
                        size_t n = 0;

                        while (isalnum((unsigned char) t->p[n]) || t->p[n] == '_' || t->p[n] == '-')
                                n++;
                        if (n == 0)
                                return toml_error(
                                        t, "expected a key, found '%c'", *t->p && *t->p != '\n' ? *t->p : ' ');
                        part = strndup(t->p, n);
                        if (!part)
                                return -ENOMEM;
                        t->p += n;
                }
                r = strv_consume(&parts, part);
                if (r < 0)
                        return r;
                skip_blanks(t);
                if (*t->p != '.')
                        break;
                t->p++;
        }
        *ret = strv_join(parts, ".");
        return *ret ? 0 : -ENOMEM;
}

static int skip_value(Toml *t, unsigned depth);

/* [ value, value, ] with newlines and comments between; each element is handed to element(). */
static int read_array(
        Toml *t, unsigned depth, int (*element)(Toml *t, unsigned depth, void *userdata), void *userdata) {
        int r;

        t->p++; /* '[' */
        for (;;) {
                skip_space(t);
                if (*t->p == ']') {
                        t->p++;
                        return 0;
                }
                r = element(t, depth + 1, userdata);
                if (r < 0)
                        return r;
                skip_space(t);
                if (*t->p == ',')
                        t->p++;
                else if (*t->p != ']')
                        return toml_error(t, "expected ',' or ']' in an array");
        }
}

static int skip_element(Toml *t, unsigned depth, void *userdata) {
        return skip_value(t, depth);
}

/* { key = value, ... }; each pair is handed to pair() (NULL: skipped). */
static int read_inline_table(
        Toml *t,
        unsigned depth,
        int (*pair)(Toml *t, const char *key, unsigned depth, void *userdata),
        void *userdata) {
        int r;

        t->p++; /* '{' */
        skip_blanks(t);
        if (*t->p == '}') {
                t->p++;
                return 0;
        }
        for (;;) {
                _cleanup_(freep) char *key = NULL;

                r = read_key(t, &key);
                if (r < 0)
                        return r;
                if (*t->p != '=')
                        return toml_error(t, "expected '=' after the key %s", key);
                t->p++;
                skip_blanks(t);
                r = pair ? pair(t, key, depth + 1, userdata) : skip_value(t, depth + 1);
                if (r < 0)
                        return r;
                skip_blanks(t);
                if (*t->p == '}') {
                        t->p++;
                        return 0;
                }
                if (*t->p != ',')
                        return toml_error(t, "expected ',' or '}' in an inline table");
                t->p++;
        }
}

static int skip_value(Toml *t, unsigned depth) {
        size_t n;

        if (depth > TOML_DEPTH_MAX)
                return toml_error(t, "values nested deeper than %u levels", TOML_DEPTH_MAX);
        if (*t->p == '"' || *t->p == '\'')
                return read_string(t, NULL);
        if (*t->p == '[')
                return read_array(t, depth, skip_element, NULL);
        if (*t->p == '{')
                return read_inline_table(t, depth, NULL, NULL);
        /* Numbers, booleans, dates: everything up to the next separator. */
        n = strcspn(t->p, " \t\r\n,]}#");
        if (n == 0)
                return toml_error(t, "expected a value");
        t->p += n;
        return 0;
}

/* What one default_ulimits array holds. */
typedef struct Ulimits {
        bool append;
        bool has_memlock;
        MemlockLimit memlock;
        char *memlock_entry;
        unsigned memlock_line;
} Ulimits;

static int ulimits_pair(Toml *t, const char *key, unsigned depth, void *userdata) {
        Ulimits *u = userdata;
        size_t n;

        if (!streq(key, "append"))
                return skip_value(t, depth);
        n = strcspn(t->p, " \t\r\n,}#");
        if (n == 4 && strneq(t->p, "true", 4))
                u->append = true;
        else if (!(n == 5 && strneq(t->p, "false", 5)))
                return toml_error(t, "append in default_ulimits is true or false");
        t->p += n;
        return 0;
}

static int ulimits_element(Toml *t, unsigned depth, void *userdata) {
        _cleanup_(freep) char *entry = NULL;
        Ulimits *u = userdata;
        unsigned line = t->line;
        MemlockLimit l;
        int r;

        /* containers.conf's arrays may carry an {append = true} element: add to what earlier files set. */
        if (*t->p == '{')
                return read_inline_table(t, depth, ulimits_pair, u);
        if (*t->p != '"' && *t->p != '\'')
                return toml_error(t, "default_ulimits holds a value that is not a string");
        r = read_string(t, &entry);
        if (r < 0)
                return r;
        r = podman_ulimit_parse_memlock(entry, &l);
        if (r < 0)
                return toml_error(
                        t,
                        "default_ulimits entry \"%s\" is not memlock=SOFT[:HARD] in bytes or -1: podman refuses it",
                        entry);
        if (r == 0)
                return 0;
        u->has_memlock = true;
        u->memlock = l;
        u->memlock_line = line;
        free(u->memlock_entry);
        u->memlock_entry = TAKE_PTR(entry);
        return 0;
}

static int apply_ulimits(ContainersConf *c, const char *file, unsigned line, Ulimits *u) {
        if (u->append && !u->has_memlock)
                return 0; /* what earlier files set stays */
        free(c->file);
        c->file = strdup(file);
        if (!c->file)
                return -ENOMEM;
        c->line = u->has_memlock ? u->memlock_line : line;
        c->has_memlock = u->has_memlock;
        c->memlock = u->memlock;
        free(c->memlock_entry);
        c->memlock_entry = TAKE_PTR(u->memlock_entry);
        return 0;
}

static int parse_document(Toml *t, Ulimits *u, bool *ret_found, unsigned *ret_line) {
        _cleanup_(freep) char *table = NULL;
        bool in_array_table = false; /* [[x]]: x is an array, x.default_ulimits is not the key */
        int r;

        for (;;) {
                _cleanup_(freep) char *key = NULL, *full = NULL;

                skip_space(t);
                if (*t->p == '\0')
                        return 0;
                if (*t->p == '[') {
                        bool array = t->p[1] == '[';

                        t->p += array ? 2 : 1;
                        in_array_table = array;
                        table = mfree(table);
                        r = read_key(t, &table);
                        if (r < 0)
                                return r;
                        if (*t->p != ']' || (array && t->p[1] != ']'))
                                return toml_error(
                                        t, "a table header is not closed with %s", array ? "]]" : "]");
                        t->p += array ? 2 : 1;
                        r = expect_line_end(t);
                        if (r < 0)
                                return r;
                        continue;
                }

                r = read_key(t, &key);
                if (r < 0)
                        return r;
                if (*t->p != '=')
                        return toml_error(t, "expected '=' after the key %s", key);
                t->p++;
                skip_blanks(t);
                if (asprintf(&full, "%s%s%s", strempty(table), table ? "." : "", key) < 0)
                        return -ENOMEM;
                if (!in_array_table && streq(full, ULIMITS_KEY)) {
                        if (*t->p != '[')
                                return toml_error(t, "default_ulimits is not an array of strings");
                        *ret_found = true;
                        *ret_line = t->line;
                        free(u->memlock_entry);
                        *u = (Ulimits){};
                        r = read_array(t, 0, ulimits_element, u);
                } else
                        r = skip_value(t, 0);
                if (r < 0)
                        return r;
                r = expect_line_end(t);
                if (r < 0)
                        return r;
        }
}

int containers_conf_parse(ContainersConf *c, const char *file, const char *text) {
        Toml t = { .p = text, .line = 1, .file = file };
        Ulimits u = {};
        bool found = false;
        unsigned line = 0;
        int r;

        r = parse_document(&t, &u, &found, &line);
        if (r == -EBADMSG) {
                free(u.memlock_entry);
                return strv_consume(&c->rejected, TAKE_PTR(t.error));
        }
        if (r >= 0 && found)
                r = apply_ulimits(c, file, line, &u);
        free(u.memlock_entry);
        free(t.error);
        return r;
}

static int read_one(const Host *h, ContainersConf *c, const char *path) {
        _cleanup_(freep) char *text = NULL;
        int r;

        r = host_read_file(h, path, HOST_FILE_MAX, &text, NULL);
        if (r == -ENOMEM)
                return r;
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return strv_extendf(&c->unreadable, "%s (%s)", path, strerror(-r));
        return containers_conf_parse(c, path, text);
}

/* The *.conf names of a drop-in directory, or a note in c->unreadable. */
static int list_dropins(const Host *h, ContainersConf *c, const char *dir, char ***ret) {
        _cleanup_(strv_freep) char **entries = NULL, **names = NULL;
        int r;

        r = host_list_directory(h, dir, &entries);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                *ret = NULL;
                return r == -ENOENT || r == -ENOTDIR
                        ? 0
                        : strv_extendf(&c->unreadable, "%s (%s)", dir, strerror(-r));
        }
        STRV_FOREACH(e, entries) {
                size_t n = strlen(*e);

                if ((*e)[0] != '.' && n > 5 && streq(*e + n - 5, ".conf") && strv_extend(&names, *e) < 0)
                        return -ENOMEM;
        }
        *ret = TAKE_PTR(names);
        return 0;
}

int containers_conf_read(const Host *h, ContainersConf *c) {
        _cleanup_(strv_freep) char **vendor = NULL, **admin = NULL;
        size_t i = 0, j = 0;
        int r;

        r = read_one(h, c, CONTAINERS_CONF_VENDOR);
        if (r >= 0)
                r = read_one(h, c, CONTAINERS_CONF_ADMIN);
        if (r >= 0)
                r = list_dropins(h, c, CONTAINERS_CONF_VENDOR ".d", &vendor);
        if (r >= 0)
                r = list_dropins(h, c, CONTAINERS_CONF_ADMIN ".d", &admin);
        if (r < 0)
                return r;

        /* The drop-ins of both directories by name; /etc's replaces /usr/share's of the same name. */
        while ((vendor && vendor[i]) || (admin && admin[j])) {
                _cleanup_(freep) char *path = NULL;
                int cmp = !(vendor && vendor[i]) ? 1
                        : !(admin && admin[j])   ? -1
                                                 : strcmp(vendor[i], admin[j]);

                if (cmp < 0)
                        r = asprintf(&path, CONTAINERS_CONF_VENDOR ".d/%s", vendor[i++]);
                else {
                        r = asprintf(&path, CONTAINERS_CONF_ADMIN ".d/%s", admin[j++]);
                        if (cmp == 0)
                                i++;
                }
                if (r < 0)
                        return -ENOMEM;
                r = read_one(h, c, path);
                if (r < 0)
                        return r;
        }
        return 0;
}
