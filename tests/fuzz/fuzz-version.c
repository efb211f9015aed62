/* SPDX-License-Identifier: MIT */
/* Fuzzes firmware-string parsing and version comparison: no crash, and comparison stays antisymmetric. */
#include <stdint.h>
#include <stdlib.h>

#include "basic/macro.h"
#include "basic/version.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        _cleanup_(firmware_version_done) FirmwareVersion v = {};
        _cleanup_(freep) char *s = NULL;
        const char *a, *b;

        if (size > 4096)
                return 0;
        s = strndup((const char *) data, size);
        if (!s)
                return 0;

        if (firmware_version_parse(s, &v) >= 0 && !v.version)
                abort();

        /* The input split at its first newline gives two versions to compare both ways. */
        a = s;
        b = strchr(s, '\n');
        if (b)
                *(char *) b++ = '\0';
        else
                b = "4.91";
        if ((version_compare(a, b) > 0) != (version_compare(b, a) < 0))
                abort();
        if (version_compare(a, a) != 0)
                abort();
        (void) version_is_valid(a);
        (void) version_minor_digits(a);
        return 0;
}
