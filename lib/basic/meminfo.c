/* SPDX-License-Identifier: MIT */
/* MemTotal of /proc/meminfo, as the kernel writes it (fs/proc/meminfo.c: the name, the value in kB
 * right-aligned in 8 columns, " kB"). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "basic/macro.h"
#include "basic/meminfo.h"

int meminfo_total(const char *text, uint64_t *ret) {
        for (const char *line = text; line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
                unsigned long long kib;
                const char *p;
                char *end;

                p = startswith(line, "MemTotal:");
                if (!p)
                        continue;
                p += strspn(p, " \t");
                if (*p < '0' || *p > '9')
                        return -EBADMSG;
                errno = 0;
                kib = strtoull(p, &end, 10);
                if (errno > 0 || kib > UINT64_MAX / 1024 || !startswith(end, " kB"))
                        return -EBADMSG;
                end += strlen(" kB");
                if (*end && *end != '\n')
                        return -EBADMSG;
                *ret = (uint64_t) kib * 1024;
                return 0;
        }
        return -ENOENT;
}
