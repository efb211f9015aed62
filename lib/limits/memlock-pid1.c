/* SPDX-License-Identifier: MIT */
/* The memlock limit of PID 1 from /proc/1/limits: on a host without systemd every process inherits it. */
#include <stdio.h>

#include "limits/memlock-sources.h"

#define MEMLOCK_ROW "Max locked memory"

/* One column of the row: "unlimited" or a decimal byte count (fs/proc/base.c, proc_pid_limits()). */
static int parse_column(const char **p, uint64_t *ret) {
        const char *s = *p + strspn(*p, " "), *end = s + strcspn(s, " \n");
        unsigned long long v;
        char *e;

        if (end == s)
                return -EBADMSG;
        if ((size_t) (end - s) == strlen("unlimited") && strneq(s, "unlimited", end - s))
                *ret = MEMLOCK_UNLIMITED;
        else {
                if (*s < '0' || *s > '9')
                        return -EBADMSG;
                errno = 0;
                v = strtoull(s, &e, 10);
                if (errno > 0 || e != end)
                        return -EBADMSG;
                *ret = v;
        }
        *p = end;
        return 0;
}

int proc_limits_parse_memlock(const char *text, MemlockLimit *ret) {
        MemlockLimit l;
        const char *p;
        int r;

        for (const char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
                p = startswith(line, MEMLOCK_ROW);
                if (!p || *p != ' ')
                        continue;
                r = parse_column(&p, &l.soft);
                if (r < 0)
                        return r;
                r = parse_column(&p, &l.hard);
                if (r < 0)
                        return r;
                *ret = l;
                return 0;
        }
        return -ENOENT;
}
