/* SPDX-License-Identifier: MIT */
/* Fuzzes the system.conf reader: one input as system.conf and again as a drop-in, and each line as a
 * DefaultLimitMEMLOCK= value. */
#include <stdint.h>

#include "limits/memlock-sources.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        _cleanup_(systemd_conf_done) SystemdConf c = {};
        _cleanup_(freep) char *s = NULL;
        MemlockLimit l;

        if (size > 256 * 1024)
                return 0;
        s = strndup((const char *) data, size);
        if (!s)
                return 0;
        if (systemd_conf_parse(&c, "/etc/systemd/system.conf", s) < 0 ||
            systemd_conf_parse(&c, "/etc/systemd/system.conf.d/90-halod-memlock.conf", s) < 0)
                return 0;
        if (c.set && (!c.file || c.limit.soft > c.limit.hard))
                abort(); /* systemd refuses a soft limit above the hard one */
        if (systemd_rlimit_parse(s, &l) == 0 && l.soft > l.hard)
                abort();
        return 0;
}
