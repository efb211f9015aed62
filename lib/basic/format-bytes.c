/* SPDX-License-Identifier: MIT */
/* A byte count in the largest binary unit that divides it exactly. */
#include <inttypes.h>
#include <stdio.h>

#include "basic/format-bytes.h"
#include "basic/macro.h"

const char *format_bytes(uint64_t bytes, char *buf) {
        static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
        size_t u = 0;

        if (bytes == UINT64_MAX) {
                snprintf(buf, BYTES_STRING_MAX, "unlimited");
                return buf;
        }
        /* Only exact multiples move up a unit, so that what is printed is what is set. */
        while (u + 1 < ELEMENTSOF(units) && bytes >= 1024 && bytes % 1024 == 0) {
                bytes /= 1024;
                u++;
        }
        snprintf(buf, BYTES_STRING_MAX, "%" PRIu64 " %s", bytes, units[u]);
        return buf;
}
