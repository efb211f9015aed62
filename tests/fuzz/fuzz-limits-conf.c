/* SPDX-License-Identifier: MIT */
/* Fuzzes the limits.conf reader: one input as limits.conf and again as a later limits.d file, then
 * which lines decide for "*", root and every domain the input names; and the input as an os-release,
 * which says whether "*" counts for root. */
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
        /* The same text as an os-release: which pam_limits the host has. */
        c.wildcard_skips_root = os_release_names_debian(s);
        if (limits_conf_parse(&c, "/etc/security/limits.conf", s) < 0 ||
            limits_conf_parse(&c, "/etc/security/limits.d/90-rdma.conf", s) < 0)
                return 0;
        limits_conf_effective(&c, "*", &soft, &hard);
        limits_conf_effective(&c, "root", &soft, &hard);
        if (c.wildcard_skips_root &&
            ((soft && !streq(soft->domain, "root")) || (hard && !streq(hard->domain, "root"))))
                abort(); /* Debian's pam_limits gives root only the lines that name it */
        for (size_t i = 0; i < c.n_lines; i++) {
                limits_conf_effective(&c, c.lines[i].domain, &soft, &hard);
                if ((soft && !soft->soft) || (hard && !hard->hard))
                        abort(); /* a line that does not set a limit cannot decide it */
        }
        return 0;
}
