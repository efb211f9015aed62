/* SPDX-License-Identifier: MIT */
/* Fuzzes the /proc/PID readers of rdma.memlock: the limits of PID 1 and of the services, and the PPid in
 * a /proc/PID/status that tells a service's main process (a child of PID 1). */
#include <stdint.h>
#include <stdlib.h>

#include "limits/memlock-sources.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        _cleanup_(freep) char *s = NULL;
        MemlockLimit l;
        int r;

        if (size > 64 * 1024)
                return 0;
        s = strndup((const char *) data, size);
        if (!s)
                return 0;
        r = proc_limits_parse_memlock(s, &l);
        if (r != 0 && r != -ENOENT && r != -EBADMSG)
                abort(); /* the parser knows no other errors */
        if (proc_status_ppid(s) < -1)
                abort(); /* a PPid or -1, nothing else */
        return 0;
}
