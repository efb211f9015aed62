/* SPDX-License-Identifier: MIT */
/* Escaping the control bytes and invalid UTF-8 of strings from outside halod. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "basic/macro.h"
#include "basic/untrusted-string.h"

/* The length of the valid UTF-8 sequence at p (at most left bytes) that is no control character, or 0
 * when the byte at p must be escaped. */
static size_t safe_sequence(const uint8_t *p, size_t left) {
        size_t len;
        uint32_t c;

        if (p[0] < 0x20 || p[0] == 0x7f || p[0] == '\\')
                return 0;
        if (p[0] < 0x80)
                return 1;
        if (p[0] >= 0xc2 && p[0] <= 0xdf)
                len = 2, c = p[0] & 0x1f;
        else if (p[0] >= 0xe0 && p[0] <= 0xef)
                len = 3, c = p[0] & 0x0f;
        else if (p[0] >= 0xf0 && p[0] <= 0xf4)
                len = 4, c = p[0] & 0x07;
        else
                return 0;
        if (len > left)
                return 0;
        for (size_t i = 1; i < len; i++) {
                if ((p[i] & 0xc0) != 0x80)
                        return 0;
                c = (c << 6) | (p[i] & 0x3f);
        }
        /* Overlong forms, surrogates, beyond U+10FFFF, and the C1 controls. */
        if ((len == 3 && c < 0x800) || (len == 4 && (c < 0x10000 || c > 0x10ffff)) ||
            (c >= 0xd800 && c <= 0xdfff) || (c >= 0x80 && c <= 0x9f))
                return 0;
        return len;
}

size_t untrusted_escape(const char *s, size_t n, char *buf, size_t size) {
        static const char hex[] = "0123456789abcdef";
        const uint8_t *p = (const uint8_t *) s;
        size_t out = 0;

        if (size == 0)
                return 0;
        n = strnlen(s, n);
        for (size_t i = 0; i < n;) {
                size_t len = safe_sequence(p + i, n - i);

                if (len == 0) {
                        if (out + 4 >= size)
                                break;
                        buf[out++] = '\\';
                        buf[out++] = 'x';
                        buf[out++] = hex[p[i] >> 4];
                        buf[out++] = hex[p[i] & 0xf];
                        i++;
                        continue;
                }
                if (out + len >= size)
                        break;
                memmove(buf + out, p + i, len);
                out += len;
                i += len;
        }
        buf[out] = '\0';
        return out;
}

void untrusted_escape_in_place(char *buf, size_t size) {
        _cleanup_(freep) char *copy = NULL;

        if (size == 0)
                return;
        copy = strndup(buf, size - 1);
        if (!copy) {
                /* Nothing is shown rather than something unsafe. */
                buf[0] = '\0';
                return;
        }
        (void) untrusted_escape(copy, SIZE_MAX, buf, size);
}

char *untrusted_escape_dup(const char *s) {
        size_t n = strlen(s), size;
        char *buf;

        if (n > (SIZE_MAX - 1) / 4)
                return NULL;
        size = n * 4 + 1;
        buf = malloc(size);
        if (!buf)
                return NULL;
        (void) untrusted_escape(s, n, buf, size);
        return buf;
}

int untrusted_escape_replace(char **s) {
        char *escaped;
        bool safe = true;

        if (!*s)
                return 0;
        for (size_t i = 0, n = strlen(*s); i < n && safe;) {
                size_t len = safe_sequence((const uint8_t *) *s + i, n - i);

                safe = len > 0;
                i += len;
        }
        if (safe)
                return 0;
        escaped = untrusted_escape_dup(*s);
        if (!escaped)
                return -ENOMEM;
        free(*s);
        *s = escaped;
        return 0;
}
