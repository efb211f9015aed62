/* SPDX-License-Identifier: MIT */
/* Tests version comparison and firmware-string parsing with strings from the field. */
#include "basic/version.h"
#include "tests.h"

static int sign(int x) {
        return (x > 0) - (x < 0);
}

static void test_compare(void) {
        static const struct {
                const char *a, *b;
                int expected;
        } cases[] = {
                { "4.91", "4.91", 0 },
                { "4.90", "4.91", -1 },
                { "4.80", "4.91", -1 },
                { "4.91", "4.80", 1 },
                { "3.10", "4.91", -1 },
                { "2.30", "4.40", -1 },
                { "4.91", "4.91.0", 0 }, /* trailing zeros change nothing */
                { "4.91.1", "4.91", 1 },
                { "4.9", "4.91", -1 }, /* components, not decimal fractions */
                { "4.9", "4.10", -1 },
                { "4.100", "4.91", 1 },
                { "04.091", "4.91", 0 }, /* leading zeros */
                { "16.35.2000", "16.35.1012", 1 },
                { "16.35.2000", "16.9.9999", 1 },
                { "22.36.1010", "16.35.2000", 1 },
                { "1.0beta", "1.0", 1 },    /* something after the end is newer (rpm) */
                { "1.0.1", "1.0.beta", 1 }, /* a number is newer than a word */
                { "1.0a", "1.0b", -1 },
                { "99999999999999999999999.1", "99999999999999999999998.9", 1 }, /* no overflow */
                { "", "", 0 },
                { "", "1", -1 },
                { "1-2", "1.2", 0 }, /* separators only separate */
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                ASSERT_INT_EQ(sign(version_compare(cases[i].a, cases[i].b)), cases[i].expected);
                ASSERT_INT_EQ(sign(version_compare(cases[i].b, cases[i].a)), -cases[i].expected);
        }
        ASSERT_INT_EQ(version_compare(NULL, NULL), 0);
        ASSERT_TRUE(version_compare(NULL, "1") < 0);
        ASSERT_TRUE(version_compare("1", NULL) > 0);
}

static void test_valid_and_minor(void) {
        ASSERT_TRUE(version_is_valid("4.91"));
        ASSERT_TRUE(version_is_valid("16.35.2000"));
        ASSERT_TRUE(version_is_valid("1.0~rc1"));
        ASSERT_TRUE(!version_is_valid(""));
        ASSERT_TRUE(!version_is_valid(NULL));
        ASSERT_TRUE(!version_is_valid("v4.91"));
        ASSERT_TRUE(!version_is_valid("4.91 0x800214b5"));
        ASSERT_TRUE(!version_is_valid("1111111111111111111111111111111111111111111111111111111111111111.1"));

        ASSERT_INT_EQ(version_minor_digits("4.91"), 2);
        ASSERT_INT_EQ(version_minor_digits("4.9"), 1);
        ASSERT_INT_EQ(version_minor_digits("16"), 0);
        ASSERT_INT_EQ(version_minor_digits("16.35.2000"), 2);
        ASSERT_INT_EQ(version_minor_digits(NULL), 0);
}

static void test_parse(void) {
        static const struct {
                const char *input;
                int r;
                const char *version, *eetrack, *combo, *psid;
        } cases[] = {
                /* E810 (ice): "%x.%02x 0x%x %d.%d.%d", NVM, EETRACK, combo image. */
                { "4.91 0x800214b5 1.3909.0", 0, "4.91", "0x800214b5", "1.3909.0", NULL },
                { "4.90 0x80020ef2 1.3863.0", 0, "4.90", "0x80020ef2", "1.3863.0", NULL },
                { "4.60 0x8001e8b1 1.3682.0", 0, "4.60", "0x8001e8b1", "1.3682.0", NULL },
                { "4.40 0x8001c967 1.3534.0", 0, "4.40", "0x8001c967", "1.3534.0", NULL },
                { "2.30 0x80004dd0 1.2839.0", 0, "2.30", "0x80004dd0", "1.2839.0", NULL },
                { "3.10", 0, "3.10", NULL, NULL, NULL },
                /* mlx5: "%d.%d.%04d (%.16s)", with the board's PSID. */
                { "16.35.2000 (MT_0000000012)", 0, "16.35.2000", NULL, NULL, "MT_0000000012" },
                { "22.36.1010 (MT_0000000359)", 0, "22.36.1010", NULL, NULL, "MT_0000000359" },
                { "22.39.1002 (MT_0000000359)", 0, "22.39.1002", NULL, NULL, "MT_0000000359" }, /* ConnectX-6 Dx */
                /* igb and i40e style, with a comma. */
                { "1.63, 0x800009fa", 0, "1.63", "0x800009fa", NULL, NULL },
                { "9.20 0x8000d8c5 1.3179.0", 0, "9.20", "0x8000d8c5", "1.3179.0", NULL },
                /* bnxt_en: the package after a slash. */
                { "218.0.219.0/pkg 218.0.219.0", 0, "218.0.219.0", NULL, "218.0.219.0", NULL },
                /* surrounding blanks, as some drivers pad */
                { "  4.91 0x800214b5 1.3909.0  ", 0, "4.91", "0x800214b5", "1.3909.0", NULL },
                /* veth and virtio report nothing */
                { "", -ENODATA, NULL, NULL, NULL, NULL },
                { "   ", -ENODATA, NULL, NULL, NULL, NULL },
                { "N/A", -EBADMSG, NULL, NULL, NULL, NULL },
                { "0x800214b5", -EBADMSG, NULL, NULL, NULL, NULL },
                { "(MT_0000000012)", -EBADMSG, NULL, NULL, NULL, NULL },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_(firmware_version_done) FirmwareVersion v = {};
                int r = firmware_version_parse(cases[i].input, &v);

                ASSERT_INT_EQ(r, cases[i].r);
                if (r < 0) {
                        ASSERT_TRUE(!v.version && !v.eetrack && !v.combo && !v.psid);
                        continue;
                }
                ASSERT_STR_EQ(v.version, cases[i].version);
                ASSERT_TRUE(streq_ptr(v.eetrack, cases[i].eetrack));
                ASSERT_TRUE(streq_ptr(v.combo, cases[i].combo));
                ASSERT_TRUE(streq_ptr(v.psid, cases[i].psid));
        }
        ASSERT_INT_EQ(firmware_version_parse(NULL, &(FirmwareVersion){}), -EINVAL);
}

int main(void) {
        test_compare();
        test_valid_and_minor();
        test_parse();
        printf("test-version: ok\n");
        return 0;
}
