/* SPDX-License-Identifier: MIT */
/* Tests which kernel interface names read as themselves in systemd-networkd's Name= (net-condition.c,
 * config_parse_match_ifnames()) and in NCCL's interface lists (parseStringList(), the '^' and '='
 * prefixes). Every name here is one the kernel's dev_valid_name() accepts. */
#include <stdbool.h>

#include "basic/ifname-syntax.h"
#include "basic/macro.h"
#include "tests.h"

typedef struct Case {
        const char *name;
        IfnameSyntax syntax;
        bool ok;
        size_t at; /* the byte at fault */
        const char *why_has;
} Case;

static const Case cases[] = {
        { "enp194s0f0np0", IFNAME_SYNTAX_NETWORKD_NAME, true },
        { "eth0.100", IFNAME_SYNTAX_NETWORKD_NAME, true },
        { "br-lan_1", IFNAME_SYNTAX_NETWORKD_NAME, true },
        { "*", IFNAME_SYNTAX_NETWORKD_NAME, false, 0, "glob" },
        { "bond*", IFNAME_SYNTAX_NETWORKD_NAME, false, 4, "glob" },
        { "eth?", IFNAME_SYNTAX_NETWORKD_NAME, false, 3, "glob" },
        { "e[a-z]0", IFNAME_SYNTAX_NETWORKD_NAME, false, 1, "glob" },
        { "!eno1", IFNAME_SYNTAX_NETWORKD_NAME, false, 0, "inverts" },
        { "a\\", IFNAME_SYNTAX_NETWORKD_NAME, false, 1, "escape" },
        { "a%d", IFNAME_SYNTAX_NETWORKD_NAME, false, 1, "refuses" },
        { "x\x1b[2J", IFNAME_SYNTAX_NETWORKD_NAME, false, 1, "not printable" },
        { "caf\xc3\xa9", IFNAME_SYNTAX_NETWORKD_NAME, false, 3, "not printable" },
        /* '^', ',' and '=' are plain in Name=, '!' only at the start. */
        { "^lo", IFNAME_SYNTAX_NETWORKD_NAME, true },
        { "a!b", IFNAME_SYNTAX_NETWORKD_NAME, true },
        { "", IFNAME_SYNTAX_NETWORKD_NAME, false, 0, "empty" },

        { "enp194s0f0np0", IFNAME_SYNTAX_NCCL_LIST, true },
        { "^lo", IFNAME_SYNTAX_NCCL_LIST, false, 0, "every other" },
        { "=eth0", IFNAME_SYNTAX_NCCL_LIST, false, 0, "'='" },
        { "eth0,lo", IFNAME_SYNTAX_NCCL_LIST, false, 4, "separator" },
        { "a^b", IFNAME_SYNTAX_NCCL_LIST, true },
        /* Not a pattern in NCCL's lists: a prefix like any other. */
        { "*", IFNAME_SYNTAX_NCCL_LIST, true },
        { "rxe\x1b", IFNAME_SYNTAX_NCCL_LIST, false, 3, "not printable" },
};

static void test_cases(void) {
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                const Case *t = &cases[i];
                size_t at = SIZE_MAX;
                const char *why = ifname_syntax_problem(t->name, t->syntax, &at);

                if (t->ok != !why) {
                        fprintf(stderr, "case %zu '%s': got %s\n", i, t->name, why ?: "no problem");
                        abort();
                }
                if (why) {
                        ASSERT_INT_EQ(at, t->at);
                        ASSERT_TRUE(strstr(why, t->why_has));
                }
        }
}

static void test_byte(void) {
        char buf[7];

        ASSERT_STR_EQ(ifname_syntax_byte("bond*", 4, buf), "'*'");
        ASSERT_STR_EQ(ifname_syntax_byte("x\x1b", 1, buf), "'\\x1b'");
}

static void test_check(void) {
        _cleanup_(freep) char *plain = NULL, *excluding = NULL, *escaped = NULL;

        ASSERT_OK(ifname_syntax_check("eth0", IFNAME_SYNTAX_NCCL_LIST, &plain));
        ASSERT_TRUE(!plain);
        ASSERT_INT_EQ(ifname_syntax_check("^lo", IFNAME_SYNTAX_NCCL_LIST, &excluding), -EINVAL);
        ASSERT_STR_EQ(
                excluding,
                "'^lo' holds '^', a leading '^' makes NCCL's list exclude the interface and take every "
                "other one");
        /* The name is escaped for the terminal that shows the error. */
        ASSERT_INT_EQ(ifname_syntax_check("a\x1b[2J", IFNAME_SYNTAX_NETWORKD_NAME, &escaped), -EINVAL);
        ASSERT_TRUE(strstr(escaped, "'a\\x1b[2J' holds '\\x1b', not printable ASCII"));
}

int main(void) {
        test_cases();
        test_byte();
        test_check();
        return 0;
}
