/* SPDX-License-Identifier: MIT */
/* Fuzzes the /proc/PID/status Tgid parser (lib/basic/proc-status.h): no crash, and a Tgid it accepts
 * is a pid above 0. */
#include <stdint.h>
#include <stdlib.h>

#include "basic/macro.h"
#include "basic/proc-status.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        _cleanup_(freep) char *s = NULL;
        uint32_t tgid = 0;
        int r;

        if (size > 64 * 1024)
                return 0;
        s = strndup((const char *) data, size);
        if (!s)
                return 0;

        r = proc_status_tgid(s, &tgid);
        if (r == 0 && tgid == 0)
                abort();
        if (r < 0 && r != -ENOENT && r != -EBADMSG)
                abort();
        return 0;
}
