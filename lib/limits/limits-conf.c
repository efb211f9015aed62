/* SPDX-License-Identifier: MIT */
/* The memlock lines of pam_limits' limits.conf and limits.d: what login sessions get. */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "basic/os-release.h"
#include "basic/strv.h"
#include "limits/memlock-sources.h"

/* The four fields pam_limits reads; longer ones cannot be a valid domain, type, item or value. */
#define FIELD_MAX 256U

void limits_conf_done(LimitsConf *c) {
        for (size_t i = 0; i < c->n_lines; i++) {
                free(c->lines[i].domain);
                free(c->lines[i].file);
        }
        c->lines = mfree(c->lines);
        c->n_lines = 0;
        c->rejected = strv_free(c->rejected);
        c->misread = strv_free(c->misread);
        c->unreadable = strv_free(c->unreadable);
}

/* The value field (lowercased) as pam_limits' process_limit() reads it for memlock: "-1", "-",
 * "unlimited" and "infinity" are no limit; anything else is strtoull()'s leading number in KiB (a sign
 * allowed, what follows ignored), and from RLIM_INFINITY / 1024 KiB on no limit too. Returns 0; 1 when
 * that is not what the text says at a glance (it goes on after the number, or has a sign); -EINVAL
 * when no number starts it (pam_limits ignores the line). */
static int parse_value(const char *s, uint64_t *ret) {
        unsigned long long kib;
        char *end;

        if (strv_contains(
                    (char *const[]){
                            (char *) "-1", (char *) "-", (char *) "unlimited", (char *) "infinity", NULL },
                    s)) {
                *ret = MEMLOCK_UNLIMITED;
                return 0;
        }
        kib = strtoull(s, &end, 10);
        if (end == s)
                return -EINVAL;
        /* An overflow gives ULLONG_MAX, a negative number its two's complement: both no limit. */
        *ret = kib >= UINT64_MAX / 1024 ? MEMLOCK_UNLIMITED : kib * 1024;
        return *end || !isdigit((unsigned char) s[0]) ? 1 : 0;
}

/* Splits off the next whitespace-separated field of *p into buf; false when there is none. */
static bool next_field(const char **p, char buf[static FIELD_MAX]) {
        const char *s = *p;
        size_t n;

        s += strspn(s, " \t\r\f\v");
        n = strcspn(s, " \t\r\f\v");
        if (n == 0)
                return false;
        snprintf(buf, FIELD_MAX, "%.*s", (int) (n < FIELD_MAX - 1 ? n : FIELD_MAX - 1), s);
        *p = s + n;
        return true;
}

static int add_line(
        LimitsConf *c, const char *domain, const char *type, uint64_t value, const char *file, unsigned n) {
        LimitsLine *lines = reallocarray(c->lines, c->n_lines + 1, sizeof(LimitsLine));
        LimitsLine *l;

        if (!lines)
                return -ENOMEM;
        c->lines = lines;
        l = &c->lines[c->n_lines];
        *l = (LimitsLine){
                .domain = strdup(domain),
                .soft = !streq(type, "hard"),
                .hard = !streq(type, "soft"),
                .value = value,
                .file = strdup(file),
                .line = n,
        };
        if (!l->domain || !l->file) {
                free(l->domain);
                free(l->file);
                return -ENOMEM;
        }
        c->n_lines++;
        return 0;
}

static void lowercase(char *s) {
        for (; *s; s++)
                *s = (char) tolower((unsigned char) *s);
}

static const char *format_kib(uint64_t bytes, char buf[static 32]) {
        (void) snprintf(buf, 32, "%" PRIu64 " KiB", bytes / 1024);
        return buf;
}

static int parse_line(LimitsConf *c, const char *file, unsigned n, const char *text) {
        char domain[FIELD_MAX], type[FIELD_MAX], item[FIELD_MAX], value[FIELD_MAX], kib[32];
        const char *p = text;
        uint64_t v;
        int r;

        /* pam_limits (1.5) takes the first four fields and ignores whatever follows them, and
         * lowercases the type, the item and the value before it compares them. */
        if (!next_field(&p, domain) || !next_field(&p, type) || !next_field(&p, item) ||
            strcasecmp(item, "memlock") != 0)
                return 0;
        if (!next_field(&p, value))
                return strv_extendf(
                        &c->rejected, "%s:%u: the memlock line has no value: pam_limits ignores it", file, n);
        lowercase(type);
        lowercase(value);
        if (!strv_contains((char *const[]){ (char *) "soft", (char *) "hard", (char *) "-", NULL }, type))
                return strv_extendf(
                        &c->rejected,
                        "%s:%u: '%s' is not soft, hard or -: pam_limits ignores the memlock line",
                        file,
                        n,
                        type);
        r = parse_value(value, &v);
        if (r < 0)
                return strv_extendf(
                        &c->rejected,
                        "%s:%u: '%s' is not a memlock value (KiB, unlimited or -1): pam_limits ignores the line",
                        file,
                        n,
                        value);
        if (r > 0 &&
            strv_extendf(
                    &c->misread,
                    "%s:%u: pam_limits reads '%s' as %s: it takes the leading number, in KiB, and "
                    "ignores the rest",
                    file,
                    n,
                    value,
                    v == MEMLOCK_UNLIMITED ? "unlimited" : format_kib(v, kib)) < 0)
                return -ENOMEM;
        return add_line(c, domain, type, v, file, n);
}

int limits_conf_parse(LimitsConf *c, const char *file, const char *text) {
        unsigned n = 0;

        for (const char *p = text; p && *p;) {
                const char *nl = strchr(p, '\n');
                size_t len = nl ? (size_t) (nl - p) : strlen(p);
                _cleanup_(freep) char *line = strndup(p, len);
                char *hash;
                int r;

                if (!line)
                        return -ENOMEM;
                n++;
                hash = strchr(line, '#'); /* pam_limits cuts a comment anywhere on the line */
                if (hash)
                        *hash = '\0';
                r = parse_line(c, file, n, line);
                if (r < 0)
                        return r;
                p = nl ? nl + 1 : NULL;
        }
        return 0;
}

static int read_one(const Host *h, LimitsConf *c, const char *path) {
        _cleanup_(freep) char *text = NULL;
        int r;

        r = host_read_file(h, path, HOST_FILE_MAX, &text, NULL);
        if (r == -ENOMEM)
                return r;
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return strv_extendf(&c->unreadable, "%s (%s)", path, strerror(-r));
        return limits_conf_parse(c, path, text);
}

bool os_release_names_debian(const char *text) {
        return os_release_names(text, (const char *const[]){ "debian", NULL });
}

static bool os_release_is_debian(const Host *h) {
        _cleanup_(freep) char *text = NULL;

        return os_release_read(h, &text) >= 0 && os_release_names_debian(text);
}

int limits_conf_read(const Host *h, LimitsConf *c) {
        _cleanup_(strv_freep) char **dropins = NULL;
        int r;

        c->wildcard_skips_root = os_release_is_debian(h);

        r = read_one(h, c, LIMITS_CONF_FILE);
        if (r < 0)
                return r;
        r = host_list_directory(h, LIMITS_CONF_DROPIN_DIR, &dropins);
        if (r == -ENOMEM)
                return r;
        if (r < 0 && r != -ENOENT && r != -ENOTDIR)
                return strv_extendf(&c->unreadable, "%s (%s)", LIMITS_CONF_DROPIN_DIR, strerror(-r));
        /* pam_limits globs *.conf: hidden files and other names are not read. */
        STRV_FOREACH(d, dropins) {
                _cleanup_(freep) char *path = NULL;
                size_t n = strlen(*d);

                if ((*d)[0] == '.' || n <= 5 || !streq(*d + n - 5, ".conf"))
                        continue;
                if (asprintf(&path, LIMITS_CONF_DROPIN_DIR "/%s", *d) < 0)
                        return -ENOMEM;
                r = read_one(h, c, path);
                if (r < 0)
                        return r;
        }
        return 0;
}

void limits_conf_effective(
        const LimitsConf *c, const char *domain, const LimitsLine **ret_soft, const LimitsLine **ret_hard) {
        const LimitsLine *soft = NULL, *hard = NULL;
        bool soft_own = false, hard_own = false;

        /* pam_limits ranks a user's or a group's own line above a "*" line and lets a later line of
         * the same rank replace an earlier one (process_limit(): LIMITS_DEF_USER, _GROUP, _DEFAULT). */
        for (size_t i = 0; i < c->n_lines; i++) {
                const LimitsLine *l = &c->lines[i];
                bool own = !streq(domain, "*") && streq(l->domain, domain);

                if (!own && (!streq(l->domain, "*") || (c->wildcard_skips_root && streq(domain, "root"))))
                        continue;
                if (l->soft && (own || !soft_own)) {
                        soft = l;
                        soft_own = own;
                }
                if (l->hard && (own || !hard_own)) {
                        hard = l;
                        hard_own = own;
                }
        }
        *ret_soft = soft;
        *ret_hard = hard;
}
