/* SPDX-License-Identifier: MIT */
/* Version comparison and the parsing of NIC firmware strings. */
#include <ctype.h>
#include <stdlib.h>

#include "basic/version.h"

#define VERSION_LENGTH_MAX 64U

static bool is_digit(char c) {
        return c >= '0' && c <= '9';
}

static bool is_alpha(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_separator(char c) {
        return c != '\0' && !is_digit(c) && !is_alpha(c);
}

/* Compares two runs of digits as numbers without converting them: no overflow, any length. */
static int compare_numeric(const char *a, size_t na, const char *b, size_t nb) {
        while (na > 0 && *a == '0') {
                a++;
                na--;
        }
        while (nb > 0 && *b == '0') {
                b++;
                nb--;
        }
        if (na != nb)
                return na < nb ? -1 : 1;
        for (size_t i = 0; i < na; i++)
                if (a[i] != b[i])
                        return a[i] < b[i] ? -1 : 1;
        return 0;
}

static int compare_alpha(const char *a, size_t na, const char *b, size_t nb) {
        size_t n = na < nb ? na : nb;
        int r = strncmp(a, b, n);

        if (r != 0)
                return r < 0 ? -1 : 1;
        return na == nb ? 0 : (na < nb ? -1 : 1);
}

/* True when what is left of s is only numeric zeros and separators. */
static bool rest_is_zero(const char *s) {
        for (; *s; s++)
                if (*s != '0' && !is_separator(*s))
                        return false;
        return true;
}

static size_t run_length(const char *s) {
        size_t n = 0;

        if (is_digit(s[0]))
                while (is_digit(s[n]))
                        n++;
        else
                while (is_alpha(s[n]))
                        n++;
        return n;
}

int version_compare(const char *a, const char *b) {
        if (!a || !b)
                return a == b ? 0 : (a ? 1 : -1);

        for (;;) {
                size_t na, nb;
                int r;

                while (is_separator(*a))
                        a++;
                while (is_separator(*b))
                        b++;

                if (!*a || !*b) {
                        if (!*a && !*b)
                                return 0;
                        if (!*a)
                                return rest_is_zero(b) ? 0 : -1;
                        return rest_is_zero(a) ? 0 : 1;
                }

                /* A number is newer than a word: "1.0.1" > "1.0.beta". */
                if (is_digit(*a) != is_digit(*b))
                        return is_digit(*a) ? 1 : -1;

                na = run_length(a);
                nb = run_length(b);
                r = is_digit(*a) ? compare_numeric(a, na, b, nb) : compare_alpha(a, na, b, nb);
                if (r != 0)
                        return r;
                a += na;
                b += nb;
        }
}

bool version_is_valid(const char *s) {
        size_t n;

        if (!s || !is_digit(s[0]))
                return false;
        n = strlen(s);
        if (n > VERSION_LENGTH_MAX)
                return false;
        for (size_t i = 0; i < n; i++)
                if (!is_digit(s[i]) && !is_alpha(s[i]) && !strchr(".+_~-", s[i]))
                        return false;
        return true;
}

unsigned version_minor_digits(const char *s) {
        unsigned n = 0;

        if (!s)
                return 0;
        while (is_digit(*s))
                s++;
        if (*s != '.')
                return 0;
        for (s++; is_digit(*s); s++)
                n++;
        return n;
}

void firmware_version_done(FirmwareVersion *v) {
        if (!v)
                return;
        v->version = mfree(v->version);
        v->eetrack = mfree(v->eetrack);
        v->combo = mfree(v->combo);
        v->psid = mfree(v->psid);
}

static bool is_hex_token(const char *t, size_t n) {
        if (n < 3 || t[0] != '0' || (t[1] != 'x' && t[1] != 'X'))
                return false;
        for (size_t i = 2; i < n; i++)
                if (!isxdigit((unsigned char) t[i]))
                        return false;
        return true;
}

/* The longest prefix of t made of version characters, as long as it starts with a digit. */
static size_t version_prefix_length(const char *t, size_t n) {
        size_t i = 0;

        if (n == 0 || !is_digit(t[0]))
                return 0;
        while (i < n && (is_digit(t[i]) || is_alpha(t[i]) || strchr(".+_~-", t[i])))
                i++;
        /* "1.63," and "4.91." end in punctuation that belongs to the sentence, not the version. */
        while (i > 0 && !is_digit(t[i - 1]) && !is_alpha(t[i - 1]))
                i--;
        return i;
}

static bool has_dot(const char *t, size_t n) {
        return memchr(t, '.', n) != NULL;
}

int firmware_version_parse(const char *s, FirmwareVersion *ret) {
        _cleanup_(firmware_version_done) FirmwareVersion v = {};
        const char *p = s;
        bool any_token = false;

        if (!s)
                return -EINVAL;

        for (;;) {
                const char *t;
                size_t n;

                /* Tokens are separated by blanks and commas (igb prints "1.63, 0x800009fa"). */
                while (*p && (isspace((unsigned char) *p) || *p == ','))
                        p++;
                if (!*p)
                        break;
                t = p;
                while (*p && !isspace((unsigned char) *p) && *p != ',')
                        p++;
                n = (size_t) (p - t);
                any_token = true;

                if (n >= 2 && t[0] == '(' && t[n - 1] == ')') {
                        /* mlx5's board id: "(MT_0000000012)". */
                        if (!v.psid && n > 2) {
                                v.psid = strndup(t + 1, n - 2);
                                if (!v.psid)
                                        return -ENOMEM;
                        }
                } else if (is_hex_token(t, n)) {
                        if (!v.eetrack) {
                                v.eetrack = strndup(t, n);
                                if (!v.eetrack)
                                        return -ENOMEM;
                        }
                } else if (!v.version) {
                        size_t k = version_prefix_length(t, n);

                        if (k > 0 && k <= VERSION_LENGTH_MAX) {
                                v.version = strndup(t, k);
                                if (!v.version)
                                        return -ENOMEM;
                        }
                } else if (!v.combo && has_dot(t, n)) {
                        size_t k = version_prefix_length(t, n);

                        if (k > 0 && k <= VERSION_LENGTH_MAX) {
                                v.combo = strndup(t, k);
                                if (!v.combo)
                                        return -ENOMEM;
                        }
                }
        }

        if (!v.version)
                return any_token ? -EBADMSG : -ENODATA;

        *ret = v;
        v = (FirmwareVersion){};
        return 0;
}
