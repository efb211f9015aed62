/* SPDX-License-Identifier: MIT */
/* The DefaultLimitMEMLOCK= that systemd's manager reads from system.conf and its drop-ins: what services
 * get once the manager has read the files again (`systemctl daemon-reload`, which re-parses them in
 * src/core/main.c's MANAGER_RELOAD, or daemon-reexec, or a boot). The value is rlimit_parse()'s
 * (src/basic/rlimit-util.c): "infinity" or a size with parse_size()'s base-1024 suffixes, one value
 * for both limits or "SOFT:HARD"; an empty value resets it. */
#include <ctype.h>
#include <stdio.h>

#include "basic/strv.h"
#include "limits/memlock-sources.h"

#define MEMLOCK_KEY "DefaultLimitMEMLOCK"

void systemd_conf_done(SystemdConf *c) {
        c->file = mfree(c->file);
        c->rejected = strv_free(c->rejected);
        c->unreadable = strv_free(c->unreadable);
}

/* parse_size(s, 1024) as rlimit_parse_size() uses it, for one number: decimal, an optional suffix (B, K,
 * M, G, T, P, E), or "infinity". A fraction ("1.5G") or a sum ("1G 512M"), which systemd takes too, is
 * not read here (-EOPNOTSUPP). */
static int parse_rlimit_size(const char *s, uint64_t *ret) {
        static const char suffixes[] = "BKMGTPE";
        unsigned long long whole;
        const char *suffix;
        uint64_t factor = 1;
        char *end;

        if (streq(s, "infinity")) {
                *ret = MEMLOCK_UNLIMITED;
                return 0;
        }
        if (!isdigit((unsigned char) s[0]))
                return -EINVAL;
        errno = 0;
        whole = strtoull(s, &end, 10);
        if (errno > 0)
                return -ERANGE;
        end += strspn(end, " \t");
        if (*end == '.')
                return -EOPNOTSUPP;
        if (*end) {
                if (!(suffix = strchr(suffixes, *end)) || *suffix == '\0')
                        return -EINVAL;
                if (end[1 + strspn(end + 1, " \t")] != '\0')
                        return -EOPNOTSUPP;
                for (ptrdiff_t i = 0; i < suffix - suffixes; i++)
                        factor *= 1024;
        }
        if (factor > 1 && whole > UINT64_MAX / factor)
                return -ERANGE;
        *ret = whole * factor;
        return 0;
}

int systemd_rlimit_parse(const char *value, MemlockLimit *ret) {
        _cleanup_(freep) char *soft = NULL;
        const char *colon = strchr(value, ':');
        MemlockLimit l;
        int r;

        if (!colon) {
                r = parse_rlimit_size(value, &l.soft);
                l.hard = l.soft;
        } else {
                soft = strndup(value, colon - value);
                if (!soft)
                        return -ENOMEM;
                r = parse_rlimit_size(soft, &l.soft);
                if (r >= 0)
                        r = parse_rlimit_size(colon + 1, &l.hard);
                if (r >= 0 && l.soft > l.hard)
                        r = -EINVAL;
        }
        if (r < 0)
                return r == -ENOMEM || r == -EOPNOTSUPP ? r : -EINVAL;
        *ret = l;
        return 0;
}

static char *strip(char *s) {
        char *end;

        s += strspn(s, " \t\r");
        end = s + strlen(s);
        while (end > s && strchr(" \t\r", end[-1]))
                *--end = '\0';
        return s;
}

static int take_value(SystemdConf *c, const char *file, unsigned n, const char *value) {
        MemlockLimit l;
        int r;

        if (isempty(value)) {
                /* An empty assignment resets what earlier files set. */
                c->set = false;
                c->file = mfree(c->file);
                return 0;
        }
        r = systemd_rlimit_parse(value, &l);
        if (r == -ENOMEM)
                return r;
        if (r == -EOPNOTSUPP)
                return strv_extendf(
                        &c->rejected,
                        "%s:%u: " MEMLOCK_KEY
                        "=%s is a fraction or a sum of sizes, which halod does not read "
                        "(write one number, like 1536M)",
                        file,
                        n,
                        value);
        if (r < 0)
                return strv_extendf(
                        &c->rejected,
                        "%s:%u: " MEMLOCK_KEY
                        "=%s is not a limit, and systemd ignores it (expected infinity, a "
                        "size like 64M, or SOFT:HARD)",
                        file,
                        n,
                        value);
        free(c->file);
        c->file = strdup(file);
        if (!c->file)
                return -ENOMEM;
        c->set = true;
        c->limit = l;
        c->line = n;
        return 0;
}

int systemd_conf_parse(SystemdConf *c, const char *file, const char *text) {
        _cleanup_(freep) char *copy = strdup(text);
        bool manager = false;
        unsigned n = 0;
        char *next;

        if (!copy)
                return -ENOMEM;
        for (char *line = copy; line; line = next) {
                char *eq, *key;
                int r;

                next = strchr(line, '\n');
                if (next)
                        *next++ = '\0';
                n++;
                line = strip(line);
                if (*line == '\0' || strchr("#;", *line))
                        continue;
                if (*line == '[') {
                        manager = streq(line, "[Manager]");
                        continue;
                }
                eq = strchr(line, '=');
                if (!manager || !eq)
                        continue;
                *eq = '\0';
                key = strip(line);
                if (!streq(key, MEMLOCK_KEY))
                        continue;
                r = take_value(c, file, n, strip(eq + 1));
                if (r < 0)
                        return r;
        }
        return 0;
}

/* Reads path: 1 when it exists, 0 when not, or -ENOMEM. */
static int read_one(const Host *h, SystemdConf *c, const char *path) {
        _cleanup_(freep) char *text = NULL;
        int r;

        r = host_read_file(h, path, HOST_FILE_MAX, &text, NULL);
        if (r == -ENOENT)
                return 0;
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return strv_extendf(&c->unreadable, "%s (%s)", path, strerror(-r)) < 0 ? -ENOMEM : 1;
        r = systemd_conf_parse(c, path, text);
        return r < 0 ? r : 1;
}

int systemd_conf_read(const Host *h, SystemdConf *c) {
        /* systemd's CONF_PATHS (src/basic/constants.h), in the order
         * config_parse_standard_file_with_dropins() (src/shared/conf-parser.c) takes them: the first main
         * file found is read, then every drop-in, a name in an earlier directory hiding the same name in a
         * later one, in file-name order, so that a later file wins. */
        static const char *const mains[] = { SYSTEMD_CONF_FILE,
                                             "/run/systemd/system.conf",
                                             "/usr/local/lib/systemd/system.conf",
                                             "/usr/lib/systemd/system.conf" };
        static const char *const dirs[] = { SYSTEMD_CONF_DROPIN_DIR,
                                            "/run/systemd/system.conf.d",
                                            "/usr/local/lib/systemd/system.conf.d",
                                            "/usr/lib/systemd/system.conf.d" };
        _cleanup_(strv_freep) char **dropins = NULL;
        int r;

        for (size_t i = 0; i < ELEMENTSOF(mains); i++) {
                r = read_one(h, c, mains[i]);
                if (r != 0)
                        break;
        }
        if (r < 0)
                return r;
        r = host_conf_files(h, dirs, ELEMENTSOF(dirs), ".conf", &dropins);
        if (r < 0)
                return r;
        STRV_FOREACH(d, dropins) {
                r = read_one(h, c, *d);
                if (r < 0)
                        return r;
        }
        return 0;
}
