/* SPDX-License-Identifier: MIT */
/* Fuzzes the apply lock's holder text parser (lib/apply/apply-lock.h): no crash, and a text it accepts
 * names a pid above 0 and a printable WHAT of at most APPLY_LOCK_WHAT_MAX characters. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "apply/apply-lock.h"
#include "basic/macro.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        _cleanup_(freep) char *s = NULL, *what = NULL;
        pid_t pid = 0;
        int r;

        if (size > 64 * 1024)
                return 0;
        s = strndup((const char *) data, size);
        if (!s)
                return 0;

        r = apply_lock_parse(s, &pid, &what);
        if (r == 0 && (pid <= 0 || !what || strlen(what) == 0 || strlen(what) > APPLY_LOCK_WHAT_MAX))
                abort();
        for (const char *c = what; r == 0 && *c; c++)
                if (*c < ' ' || *c > '~')
                        abort();
        if (r < 0 && r != -EBADMSG && r != -ENOMEM)
                abort();
        return 0;
}
