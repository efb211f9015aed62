/* SPDX-License-Identifier: MIT */
/* /proc/PID/status: the Tgid line. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "basic/proc-status.h"

int proc_status_tgid(const char *text, uint32_t *ret) {
        for (const char *p = text; p && *p;) {
                const char *eol = strchrnul(p, '\n');

                if (strncmp(p, "Tgid:", 5) == 0) {
                        const char *v = p + 5;
                        unsigned long n;
                        char *end;

                        v += strspn(v, " \t");
                        if (*v < '0' || *v > '9')
                                return -EBADMSG;
                        errno = 0;
                        n = strtoul(v, &end, 10);
                        end += strspn(end, " \t");
                        if (errno != 0 || end != eol || n == 0 || n > UINT32_MAX)
                                return -EBADMSG;
                        *ret = (uint32_t) n;
                        return 0;
                }
                p = *eol ? eol + 1 : eol;
        }
        return -ENOENT;
}
