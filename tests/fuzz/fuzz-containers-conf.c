/* SPDX-License-Identifier: MIT */
/* Fuzzes the containers.conf reader: one input as the vendor file and again as a drop-in that
 * replaces or extends its default_ulimits, and the input as one ulimit entry. */
#include <stdint.h>

#include "limits/memlock-sources.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        _cleanup_(containers_conf_done) ContainersConf c = {};
        _cleanup_(freep) char *s = NULL;
        MemlockLimit l;

        if (size > 256 * 1024)
                return 0;
        s = strndup((const char *) data, size);
        if (!s)
                return 0;
        if (containers_conf_parse(&c, "/usr/share/containers/containers.conf", s) < 0 ||
            containers_conf_parse(&c, "/etc/containers/containers.conf.d/90-rdma.conf", s) < 0)
                return 0;
        if (c.has_memlock && (!c.file || !c.memlock_entry || c.memlock.soft > c.memlock.hard))
                abort(); /* a memlock entry always says where it is, and is one podman accepts */
        (void) podman_ulimit_parse_memlock(s, &l);
        return 0;
}
