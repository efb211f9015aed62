/* SPDX-License-Identifier: MIT */
/* Fuzzes the escaping of strings from outside halod and the interface-name syntax checks: no crash,
 * and what the escaping returns holds no control byte, no invalid UTF-8 and no C1 control, at any
 * buffer size. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "basic/ifname-syntax.h"
#include "basic/macro.h"
#include "basic/untrusted-string.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Valid UTF-8 without C0/C1 controls or DEL (the escapes themselves are plain ASCII). */
static bool text_is_safe(const char *s) {
        const uint8_t *p = (const uint8_t *) s;

        for (size_t i = 0; p[i];) {
                size_t len = p[i] < 0x80 ? 1 : p[i] < 0xe0 ? 2 : p[i] < 0xf0 ? 3 : 4;

                if (p[i] < 0x20 || p[i] == 0x7f || (p[i] >= 0x80 && p[i] < 0xc2) || p[i] > 0xf4)
                        return false;
                for (size_t k = 1; k < len; k++)
                        if ((p[i + k] & 0xc0) != 0x80)
                                return false;
                if (p[i] == 0xc2 && p[i + 1] < 0xa0)
                        return false;
                i += len;
        }
        return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        _cleanup_(freep) char *s = NULL, *dup = NULL, *replaced = NULL;
        char small[17], byte[7];
        size_t at;

        if (size > 4096)
                return 0;
        s = strndup((const char *) data, size);
        if (!s)
                return 0;

        dup = untrusted_escape_dup(s);
        if (!dup || !text_is_safe(dup))
                abort();
        replaced = strdup(s);
        if (!replaced || untrusted_escape_replace(&replaced) < 0 || strcmp(replaced, dup) != 0)
                abort();
        for (size_t n = 1; n <= sizeof(small); n++) {
                if (untrusted_escape(s, SIZE_MAX, small, n) >= n || !text_is_safe(small) ||
                    strncmp(small, dup, strlen(small)) != 0)
                        abort();
        }
        at = strlen(s) < sizeof(small) ? strlen(s) : sizeof(small) - 1;
        memcpy(small, s, at);
        small[at] = '\0';
        untrusted_escape_in_place(small, sizeof(small));
        if (!text_is_safe(small))
                abort();

        for (IfnameSyntax x = 0; x < _IFNAME_SYNTAX_MAX; x++)
                if (ifname_syntax_problem(s, x, &at) && (at > strlen(s) || !ifname_syntax_byte(s, at, byte)))
                        abort();
        return 0;
}
