/* SPDX-License-Identifier: MIT */
/* Tests the escaping of strings from outside halod (lib/basic/untrusted-string.c): the escape
 * sequences a process name or a firmware string could carry to a terminal, invalid UTF-8 (which D-Bus
 * refuses), C1 controls, and cutting at an escape's edge. */
#include <stdint.h>

#include "basic/macro.h"
#include "basic/untrusted-string.h"
#include "tests.h"

typedef struct Case {
        const char *in;
        const char *out;
} Case;

static const Case cases[] = {
        { "ib_write_bw", "ib_write_bw" },
        { "", "" },
        /* OSC (set the title), then CSI (clear the screen), as a 15-byte comm can hold them. */
        { "\x1b]0;pwn\x07\x1b[2J", "\\x1b]0;pwn\\x07\\x1b[2J" },
        { "tab\tnl\ndel\x7f", "tab\\x09nl\\x0adel\\x7f" },
        /* The backslash itself, so that an escape cannot be faked. */
        { "a\\x1b", "a\\x5cx1b" },
        /* Valid UTF-8 stays; a C1 control (U+009B, CSI) and invalid bytes are escaped. */
        { "K\xc3\xa4se \xe2\x82\xac", "K\xc3\xa4se \xe2\x82\xac" },
        { "\xc2\x9b"
          "31m",
          "\\xc2\\x9b31m" },
        { "\xff\xfe", "\\xff\\xfe" },
        { "over\xc0\xaflong", "over\\xc0\\xaflong" },
        { "cut\xe2\x82", "cut\\xe2\\x82" },
        { "surrogate\xed\xa0\x80", "surrogate\\xed\\xa0\\x80" },
};

static void test_cases(void) {
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_(freep) char *dup = untrusted_escape_dup(cases[i].in);
                _cleanup_(freep) char *replaced = strdup(cases[i].in);

                ASSERT_STR_EQ(dup, cases[i].out);
                ASSERT_TRUE(replaced);
                ASSERT_OK(untrusted_escape_replace(&replaced));
                ASSERT_STR_EQ(replaced, cases[i].out);
        }
}

static void test_cut(void) {
        char buf[8];

        /* "ab" and one escape fit in 7 bytes; the second escape does not and is left out whole. */
        ASSERT_INT_EQ(untrusted_escape("ab\x1b\x1b", SIZE_MAX, buf, sizeof(buf)), 6);
        ASSERT_STR_EQ(buf, "ab\\x1b");
        /* A multi-byte character is not split either. */
        ASSERT_INT_EQ(untrusted_escape("abcdef\xc3\xa4", SIZE_MAX, buf, sizeof(buf)), 6);
        ASSERT_STR_EQ(buf, "abcdef");
        /* n bounds the input: a field without its NUL (ac_comm filled to the end). */
        ASSERT_INT_EQ(untrusted_escape("abcdef", 3, buf, sizeof(buf)), 3);
        ASSERT_STR_EQ(buf, "abc");
}

static void test_in_place(void) {
        char comm[64] = "\x1b[1mroot\x1b[0m";
        char small[8] = "x\x1b[2J";

        untrusted_escape_in_place(comm, sizeof(comm));
        ASSERT_STR_EQ(comm, "\\x1b[1mroot\\x1b[0m");
        untrusted_escape_in_place(small, sizeof(small));
        ASSERT_STR_EQ(small, "x\\x1b[2");
}

static void test_replace_null(void) {
        char *s = NULL;

        ASSERT_OK(untrusted_escape_replace(&s));
        ASSERT_TRUE(!s);
}

int main(void) {
        test_cases();
        test_cut();
        test_in_place();
        test_replace_null();
        return 0;
}
