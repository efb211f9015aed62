/* SPDX-License-Identifier: MIT */
/* Fuzzes the limits.conf reader: one input as limits.conf and again as a later limits.d file, then
 * which lines decide for "*" and for every domain the input names. */
#include <stdint.h>

#include "limits/memlock-sources.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        _cleanup_(limits_conf_done) LimitsConf c = {};
        _cleanup_(freep) char *s = NULL;
        const LimitsLine *soft, *hard;

        if (size > 256 * 1024)
                return 0;
        s = strndup((const char *) data, size);
        if (!s)
                return 0;
        if (limits_conf_parse(&c, "/etc/security/limits.conf", s) < 0 ||
            limits_conf_parse(&c, "/etc/security/limits.d/90-rdma.conf", s) < 0)
                return 0;
        limits_conf_effective(&c, "*", &soft, &hard);
        for (size_t i = 0; i < c.n_lines; i++) {
                limits_conf_effective(&c, c.lines[i].domain, &soft, &hard);
                if ((soft && !soft->soft) || (hard && !hard->hard))
                        abort(); /* a line that does not set a limit cannot decide it */
        }
        return 0;
}
