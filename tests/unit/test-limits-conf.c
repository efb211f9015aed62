/* SPDX-License-Identifier: MIT */
/* Tests the limits.conf reader with lines from real systems: what pam_limits makes of memlock lines
 * (linux-pam modules/pam_limits/pam_limits.c, parse_config_file() and process_limit()), which lines it
 * ignores, and which line decides for a domain. */
#include "basic/strv.h"
#include "limits/memlock-sources.h"
#include "tests.h"

#define KIB 1024ULL

/* Debian 12's /etc/security/limits.conf: nothing but comments and the man page's examples. */
static const char debian_limits_conf[] =
        "# /etc/security/limits.conf\n"
        "#\n"
        "#Each line describes a limit for a user in the form:\n"
        "#\n"
        "#<domain>        <type>  <item>  <value>\n"
        "#\n"
        "#        - memlock - max locked-in-memory address space (KB)\n"
        "#\n"
        "#*               soft    core            0\n"
        "#root            hard    core            100000\n"
        "#*               hard    rss             10000\n"
        "#@student        hard    nproc           20\n"
        "#@faculty        soft    nproc           20\n"
        "#@faculty        hard    nproc           50\n"
        "#ftp             hard    nproc           0\n"
        "#ftp             -       chroot          /ftp\n"
        "#@student        -       maxlogins       4\n"
        "\n"
        "# End of file\n";

/* The limits.d file RHEL's rdma package installed, and what RDMA guides tell people to add. */
static const char rdma_conf[] =
        "# configuration for rdma tuning\n"
        "*       soft    memlock         unlimited\n"
        "*       hard    memlock         unlimited\n"
        "# rdma tuning end\n";

/* Lines as they are found on database and HPC hosts: other items, users, groups, ranges, tabs,
 * trailing comments, CRLF. */
static const char mixed[] =
        "oracle   soft   nofile    1024\n"
        "oracle   soft   memlock   3145728\r\n"
        "oracle   hard   memlock   3145728\n"
        "@rdma\t-\tmemlock\t1048576 # KiB, for the fabric\n"
        "*\t\t-\tmemlock\t\tinfinity\n"
        ":123     hard   cpu       5000\n"
        "@500:    -      memlock   -1\n"
        "600:700  soft   memlock   64\n"
        "  ftp    hard   nproc     0\n";

/* Lines pam_limits refuses (it logs and skips them): unknown types, no value, a value that starts with
 * no number; and lines it reads otherwise than they look: process_limit() lowercases the type, item
 * and value, reads "-" as unlimited and a number with strtoull() (a sign allowed, the rest ignored,
 * RLIM_INFINITY / 1024 KiB and more unlimited). */
static const char broken[] =
        "*       soft    memlock   64M\n"                  /* 64 KiB */
        "*       both    memlock   unlimited\n"            /* refused */
        "*       -       memlock\n"                        /* refused */
        "*       -       memlock   99999999999999999999\n" /* strtoull() overflows: unlimited */
        "*       -       memlock   -2\n"                   /* -2 wraps around: unlimited */
        "*       HARD    MEMLOCK   Unlimited\n"            /* lowercased: a hard line */
        "*       -       memlock   64 extra fields are ignored\n"
        "*       -       memlock   lots\n" /* refused */
        "*       soft    memlock   -\n";   /* unlimited */

static void test_ignores_comments(void) {
        LimitsConf c = {};

        ASSERT_OK(limits_conf_parse(&c, "/etc/security/limits.conf", debian_limits_conf));
        ASSERT_INT_EQ(c.n_lines, 0);
        ASSERT_TRUE(!c.rejected);
        limits_conf_done(&c);
}

static void test_rdma_conf(void) {
        const LimitsLine *soft, *hard;
        LimitsConf c = {};

        ASSERT_OK(limits_conf_parse(&c, "/etc/security/limits.d/rdma.conf", rdma_conf));
        ASSERT_INT_EQ(c.n_lines, 2);
        ASSERT_STR_EQ(c.lines[0].domain, "*");
        ASSERT_TRUE(c.lines[0].soft && !c.lines[0].hard);
        ASSERT_TRUE(!c.lines[1].soft && c.lines[1].hard);
        ASSERT_TRUE(c.lines[1].value == MEMLOCK_UNLIMITED);
        ASSERT_INT_EQ(c.lines[1].line, 3);
        ASSERT_STR_EQ(c.lines[1].file, "/etc/security/limits.d/rdma.conf");

        limits_conf_effective(&c, "*", &soft, &hard);
        ASSERT_TRUE(soft == &c.lines[0] && hard == &c.lines[1]);
        /* A user without lines of their own gets "*". */
        limits_conf_effective(&c, "alice", &soft, &hard);
        ASSERT_TRUE(soft == &c.lines[0] && hard == &c.lines[1]);
        limits_conf_done(&c);
}

static void test_mixed(void) {
        const LimitsLine *soft, *hard;
        LimitsConf c = {};

        ASSERT_OK(limits_conf_parse(&c, "/etc/security/limits.conf", mixed));
        ASSERT_TRUE(!c.rejected);
        ASSERT_INT_EQ(c.n_lines, 6);
        ASSERT_STR_EQ(c.lines[0].domain, "oracle");
        ASSERT_TRUE(c.lines[0].value == 3145728 * KIB);
        ASSERT_STR_EQ(c.lines[2].domain, "@rdma");
        ASSERT_TRUE(c.lines[2].soft && c.lines[2].hard && c.lines[2].value == 1048576 * KIB);
        ASSERT_TRUE(c.lines[3].value == MEMLOCK_UNLIMITED);
        ASSERT_STR_EQ(c.lines[4].domain, "@500:");
        ASSERT_TRUE(c.lines[4].value == MEMLOCK_UNLIMITED);
        ASSERT_STR_EQ(c.lines[5].domain, "600:700");
        ASSERT_TRUE(c.lines[5].value == 64 * KIB);

        /* A domain's own line wins over a later "*" line. */
        limits_conf_effective(&c, "@rdma", &soft, &hard);
        ASSERT_TRUE(soft == &c.lines[2] && hard == &c.lines[2]);
        limits_conf_effective(&c, "oracle", &soft, &hard);
        ASSERT_TRUE(soft == &c.lines[0] && hard == &c.lines[1]);
        limits_conf_effective(&c, "*", &soft, &hard);
        ASSERT_TRUE(soft == &c.lines[3] && hard == &c.lines[3]);
        limits_conf_done(&c);
}

static void test_later_line_wins(void) {
        const LimitsLine *soft, *hard;
        LimitsConf c = {};

        /* As pam_limits reads limits.conf and then limits.d: the files concatenated. */
        ASSERT_OK(limits_conf_parse(
                &c, "/etc/security/limits.conf", "* - memlock 64\n@rdma soft memlock 128\n"));
        ASSERT_OK(limits_conf_parse(&c, "/etc/security/limits.d/90-rdma.conf", "* soft memlock unlimited\n"));
        limits_conf_effective(&c, "*", &soft, &hard);
        ASSERT_TRUE(soft->value == MEMLOCK_UNLIMITED && hard->value == 64 * KIB);
        ASSERT_STR_EQ(soft->file, "/etc/security/limits.d/90-rdma.conf");
        limits_conf_effective(&c, "@rdma", &soft, &hard);
        ASSERT_TRUE(soft->value == 128 * KIB && hard->value == 64 * KIB);
        limits_conf_effective(&c, "bob", &soft, &hard);
        ASSERT_TRUE(soft->value == MEMLOCK_UNLIMITED);
        limits_conf_done(&c);

        ASSERT_OK(limits_conf_parse(&c, "x", "bob hard memlock 1\n"));
        limits_conf_effective(&c, "*", &soft, &hard);
        ASSERT_TRUE(!soft && !hard);
        limits_conf_effective(&c, "bob", &soft, &hard);
        ASSERT_TRUE(!soft && hard->value == KIB);
        limits_conf_done(&c);
}

/* Root: Debian's pam_limits (debian/patches 027_pam_limits_better_init_allow_explicit_root: "* ... &&
 * !pl->root") skips "*" for root; upstream's (parse_config_file()) does not. A line naming root counts in
 * both and wins over "*" (LIMITS_DEF_USER over LIMITS_DEF_DEFAULT). */
static void test_root(void) {
        const LimitsLine *soft, *hard;
        LimitsConf c = {};

        ASSERT_OK(limits_conf_parse(&c, "f", "* - memlock unlimited\n@rdma - memlock unlimited\n"));
        limits_conf_effective(&c, "root", &soft, &hard);
        ASSERT_TRUE(soft == &c.lines[0] && hard == &c.lines[0]);
        c.wildcard_skips_root = true;
        limits_conf_effective(&c, "root", &soft, &hard);
        ASSERT_TRUE(!soft && !hard);
        limits_conf_effective(&c, "alice", &soft, &hard);
        ASSERT_TRUE(soft == &c.lines[0] && hard == &c.lines[0]);
        ASSERT_OK(limits_conf_parse(&c, "g", "root soft memlock 64\n* - memlock 1\n"));
        limits_conf_effective(&c, "root", &soft, &hard);
        ASSERT_TRUE(soft == &c.lines[2] && !hard);
        c.wildcard_skips_root = false;
        limits_conf_effective(&c, "root", &soft, &hard);
        ASSERT_TRUE(soft == &c.lines[2] && hard == &c.lines[3]);
        limits_conf_done(&c);
}

/* os-release's words (os-release(5): shell-style assignments, the value maybe quoted). */
static void test_os_release_words(void) {
        ASSERT_TRUE(os_release_names_debian("ID=debian"));
        ASSERT_TRUE(os_release_names_debian("NAME=x\nID_LIKE='ubuntu debian'\n"));
        ASSERT_TRUE(!os_release_names_debian("ID=\nID_LIKE=\"\"\n"));
        ASSERT_TRUE(!os_release_names_debian("VERSION_ID=debian\n"));
        ASSERT_TRUE(os_release_names_debian("VERSION_ID=12\n  ID=debian\n"));
        ASSERT_TRUE(!os_release_names_debian("ID=fedora\nPRETTY_NAME=\"not debian\"\n"));
        ASSERT_TRUE(!os_release_names_debian(""));
}

/* Which pam_limits a tree has, from its os-release as Debian 12, Ubuntu 24.04 and Fedora 43 ship it. */
static void test_root_os_release(void) {
        static const struct {
                const char *path, *text;
                bool debian;
        } trees[] = {
                { "/etc/os-release", "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nID=debian\n", true },
                { "/usr/lib/os-release", "NAME=\"Ubuntu\"\nID=ubuntu\nID_LIKE=debian\n", true },
                { "/etc/os-release", "NAME=\"Linux Mint\"\nID=linuxmint\nID_LIKE=\"ubuntu debian\"\n", true },
                { "/etc/os-release", "NAME=\"Fedora Linux\"\nID=fedora\nVERSION_ID=43\n", false },
                { "/etc/os-release", "ID=debianish\nVARIANT=debian\n", false },
                { NULL, NULL, false },
        };

        for (size_t i = 0; i < ELEMENTSOF(trees); i++) {
                char root[] = "/tmp/halod-limits-XXXXXX";
                _cleanup_(freep) char *cmd = NULL;
                LimitsConf c = {};
                Host h;

                ASSERT_TRUE(mkdtemp(root));
                if (trees[i].path) {
                        _cleanup_(freep) char *path = NULL;
                        FILE *f;

                        ASSERT_TRUE(asprintf(&cmd, "mkdir -p '%s/etc' '%s/usr/lib'", root, root) >= 0);
                        ASSERT_INT_EQ(system(cmd), 0);
                        cmd = mfree(cmd);
                        ASSERT_TRUE(asprintf(&path, "%s%s", root, trees[i].path) >= 0);
                        ASSERT_TRUE(f = fopen(path, "we"));
                        ASSERT_TRUE(fputs(trees[i].text, f) >= 0);
                        ASSERT_INT_EQ(fclose(f), 0);
                }
                h = (Host){ .root = root };
                ASSERT_OK(limits_conf_read(&h, &c));
                ASSERT_TRUE(c.wildcard_skips_root == trees[i].debian);
                limits_conf_done(&c);
                ASSERT_TRUE(asprintf(&cmd, "rm -rf '%s'", root) >= 0);
                ASSERT_INT_EQ(system(cmd), 0);
        }
}

static void test_broken(void) {
        static const char *const rejected[] = {
                "f:2: 'both' is not soft, hard or -: pam_limits ignores the memlock line",
                "f:3: the memlock line has no value: pam_limits ignores it",
                "f:8: 'lots' is not a memlock value (KiB, unlimited or -1): pam_limits ignores the line",
        };
        static const char *const misread[] = {
                "f:1: pam_limits reads '64m' as 64 KiB: it takes the leading number, in KiB, and ignores the rest",
                "f:5: pam_limits reads '-2' as unlimited: it takes the leading number, in KiB, and ignores the "
                "rest",
        };
        static const struct {
                unsigned line;
                bool soft, hard;
                uint64_t value;
        } lines[] = {
                { 1, true, false, 64 * KIB },         { 4, true, true, MEMLOCK_UNLIMITED },
                { 5, true, true, MEMLOCK_UNLIMITED }, { 6, false, true, MEMLOCK_UNLIMITED },
                { 7, true, true, 64 * KIB },          { 9, true, false, MEMLOCK_UNLIMITED },
        };
        LimitsConf c = {};

        ASSERT_OK(limits_conf_parse(&c, "f", broken));
        ASSERT_INT_EQ(strv_length(c.rejected), ELEMENTSOF(rejected));
        for (size_t i = 0; i < ELEMENTSOF(rejected); i++)
                ASSERT_STR_EQ(c.rejected[i], rejected[i]);
        ASSERT_INT_EQ(strv_length(c.misread), ELEMENTSOF(misread));
        for (size_t i = 0; i < ELEMENTSOF(misread); i++)
                ASSERT_STR_EQ(c.misread[i], misread[i]);
        ASSERT_INT_EQ(c.n_lines, ELEMENTSOF(lines));
        for (size_t i = 0; i < ELEMENTSOF(lines); i++) {
                ASSERT_INT_EQ(c.lines[i].line, lines[i].line);
                ASSERT_TRUE(c.lines[i].soft == lines[i].soft && c.lines[i].hard == lines[i].hard);
                ASSERT_TRUE(c.lines[i].value == lines[i].value);
        }
        limits_conf_done(&c);

        /* The largest number of KiB below RLIM_INFINITY / 1024, and that one, which is no limit. */
        ASSERT_OK(limits_conf_parse(&c, "f", "* - memlock 18014398509481982\n* - memlock 18014398509481983\n"));
        ASSERT_INT_EQ(c.n_lines, 2);
        ASSERT_TRUE(c.lines[0].value == 18014398509481982ULL * KIB);
        ASSERT_TRUE(c.lines[1].value == MEMLOCK_UNLIMITED);
        ASSERT_TRUE(!c.rejected && !c.misread);
        limits_conf_done(&c);
}

static void test_edges(void) {
        LimitsConf c = {};

        ASSERT_OK(limits_conf_parse(&c, "f", ""));
        ASSERT_OK(limits_conf_parse(&c, "f", "\n\n#\n   \t\n* - memlock"));
        ASSERT_OK(limits_conf_parse(&c, "f", "#* - memlock 1\n* #- memlock 1\n"));
        ASSERT_INT_EQ(c.n_lines, 0);
        ASSERT_INT_EQ(strv_length(c.rejected), 1); /* "* - memlock" without a newline */
        limits_conf_done(&c);
}

/* systemd's system.conf: only [Manager]'s DefaultLimitMEMLOCK=, rlimit_parse()'s values, the last file
 * that sets it winning and an empty value resetting it (src/basic/rlimit-util.c, src/core/main.c). */
static void test_systemd_conf(void) {
        static const struct {
                const char *value;
                int r;
                uint64_t soft, hard;
        } values[] = {
                { "infinity", 0, MEMLOCK_UNLIMITED, MEMLOCK_UNLIMITED },
                { "64M", 0, 64 * KIB * KIB, 64 * KIB * KIB },
                { "8388608", 0, 8388608, 8388608 },
                { "8M:infinity", 0, 8 * KIB * KIB, MEMLOCK_UNLIMITED },
                { "1G:64M", -EINVAL, 0, 0 }, /* soft above hard: systemd refuses it */
                { "1.5G", -EOPNOTSUPP, 0, 0 },
                { "1G 512M", -EOPNOTSUPP, 0, 0 },
                { "unlimited", -EINVAL, 0, 0 }, /* limits.conf's word, not systemd's */
                { "-1", -EINVAL, 0, 0 },
                { "64X", -EINVAL, 0, 0 },
                { "99999999999999999999", -EINVAL, 0, 0 },
                { "17179869184G", -EINVAL, 0, 0 }, /* 2^64 bytes */
        };
        SystemdConf c = {};

        for (size_t i = 0; i < ELEMENTSOF(values); i++) {
                MemlockLimit l = {};
                int r = systemd_rlimit_parse(values[i].value, &l);

                if (r != values[i].r || (r == 0 && (l.soft != values[i].soft || l.hard != values[i].hard))) {
                        fprintf(stderr, "%s: got %d %" PRIu64 ":%" PRIu64 "\n", values[i].value, r, l.soft, l.hard);
                        abort();
                }
        }

        /* Debian 12's system.conf: everything commented out. */
        ASSERT_OK(systemd_conf_parse(&c, "/etc/systemd/system.conf", "[Manager]\n#DefaultLimitMEMLOCK=\n"));
        ASSERT_TRUE(!c.set && !c.rejected);
        /* Another section's key, and spaces around the key and the value. */
        ASSERT_OK(systemd_conf_parse(
                &c,
                "a.conf",
                "[Other]\nDefaultLimitMEMLOCK=1M\n[Manager]\n  DefaultLimitMEMLOCK = infinity \r\n"));
        ASSERT_TRUE(c.set && c.limit.soft == MEMLOCK_UNLIMITED && c.line == 4);
        ASSERT_STR_EQ(c.file, "a.conf");
        /* A refused value leaves the earlier one; an empty one resets it. */
        ASSERT_OK(systemd_conf_parse(&c, "b.conf", "[Manager]\nDefaultLimitMEMLOCK=lots\n"));
        ASSERT_TRUE(c.set && c.limit.soft == MEMLOCK_UNLIMITED);
        ASSERT_STR_EQ(
                c.rejected[0],
                "b.conf:2: DefaultLimitMEMLOCK=lots is not a limit, and systemd ignores it (expected infinity, "
                "a size like 64M, or SOFT:HARD)");
        ASSERT_OK(systemd_conf_parse(&c, "c.conf", "[Manager]\nDefaultLimitMEMLOCK=\n"));
        ASSERT_TRUE(!c.set && !c.file);
        systemd_conf_done(&c);
}

int main(void) {
        test_systemd_conf();
        test_ignores_comments();
        test_rdma_conf();
        test_mixed();
        test_later_line_wins();
        test_root();
        test_os_release_words();
        test_root_os_release();
        test_broken();
        test_edges();
        printf("test-limits-conf: ok\n");
        return 0;
}
