/* SPDX-License-Identifier: MIT */
/* Fuzzes node.memory's /proc/meminfo parser: no crash, and a MemTotal it accepts is whole KiB. */
#include <stdint.h>
#include <stdlib.h>

#include "basic/macro.h"
#include "basic/meminfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        _cleanup_(freep) char *s = NULL;
        uint64_t bytes;
        int r;

        if (size > 64 * 1024)
                return 0;
        s = strndup((const char *) data, size);
        if (!s)
                return 0;

        r = meminfo_total(s, &bytes);
        if (r == 0 && bytes % 1024 != 0)
                abort();
        if (r < 0 && r != -ENOENT && r != -EBADMSG)
                abort();
        return 0;
}
