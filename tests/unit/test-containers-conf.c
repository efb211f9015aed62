/* SPDX-License-Identifier: MIT */
/* Tests the containers.conf reader with files as podman's packages ship them and as people edit them:
 * default_ulimits' memlock entry, files that replace or extend it, and what podman refuses. */
#include "basic/strv.h"
#include "limits/memlock-sources.h"
#include "tests.h"

/* The shape of Fedora's /usr/share/containers/containers.conf (containers-common): every table,
 * default_ulimits commented out, multi-line arrays and strings in other keys. */
static const char vendor[] =
        "# The containers configuration file specifies all of the available configuration\n"
        "# command-line options/flags for container engine tools like Podman & Buildah,\n"
        "[containers]\n"
        "\n"
        "# List of annotation. Specified as\n"
        "#annotations = []\n"
        "\n"
        "default_capabilities = [\n"
        "  \"CHOWN\",\n"
        "  \"DAC_OVERRIDE\",\n"
        "  \"FOWNER\",\n"
        "]\n"
        "\n"
        "default_sysctls = [\n"
        "  \"net.ipv4.ping_group_range=0 0\",\n"
        "]\n"
        "\n"
        "# A list of ulimits to be set in containers by default, specified as\n"
        "# \"<ulimit name>=<soft limit>:<hard limit>\", for example:\n"
        "# \"nofile=1024:2048\"\n"
        "# See setrlimit(2) for a list of resource names.\n"
        "# Any limit not specified here will be inherited from the process launching the\n"
        "# container engine.\n"
        "#\n"
        "#default_ulimits = [\n"
        "#  \"nofile=1280:2560\",\n"
        "#]\n"
        "log_driver = \"journald\"\n"
        "pidns = \"private\"\n"
        "shm_size = \"65536k\"\n"
        "\n"
        "[secrets]\n"
        "#driver = \"file\"\n"
        "\n"
        "[secrets.opts]\n"
        "#root = \"/example/directory\"\n"
        "\n"
        "[network]\n"
        "cni_plugin_dirs = [\n"
        "  \"/usr/local/libexec/cni\",\n"
        "  \"/usr/libexec/cni\", # a comment inside the array\n"
        "]\n"
        "default_subnet_pools = [\n"
        "  {\"base\" = \"10.89.0.0/16\", \"size\" = 24},\n"
        "  {\"base\" = \"10.90.0.0/15\", \"size\" = 24},\n"
        "]\n"
        "\n"
        "[engine]\n"
        "events_logger = \"journald\"\n"
        "image_parallel_copies = 0\n"
        "num_locks = 2048\n"
        "remote = false\n"
        "helper_binaries_dir = [\n"
        "  \"/usr/local/libexec/podman\",\n"
        "  \"/usr/libexec/podman\",\n"
        "]\n"
        "\n"
        "[engine.runtimes]\n"
        "crun = [\n"
        "  \"/usr/bin/crun\",\n"
        "  \"/usr/local/bin/crun\",\n"
        "]\n"
        "\n"
        "[engine.volume_plugins]\n"
        "\n"
        "[machine]\n"
        "image = \"\"\"\n"
        "testing\n"
        "[containers]\n"
        "default_ulimits = [\"memlock=1:1\"]\n"
        "\"\"\"\n"
        "\n"
        "[farms]\n";

/* What an RDMA node's administrator writes: memlock unlimited, as podman run --ulimit writes it. */
static const char admin[] =
        "[containers]\n"
        "default_ulimits = [\n"
        "  \"nofile=65535:65535\",\n"
        "  \"memlock=-1:-1\", # RDMA pins memory\n"
        "]\n";

static void test_vendor_file_sets_nothing(void) {
        ContainersConf c = {};

        ASSERT_OK(containers_conf_parse(&c, "/usr/share/containers/containers.conf", vendor));
        ASSERT_TRUE(!c.rejected);
        ASSERT_TRUE(!c.file && !c.has_memlock);
        containers_conf_done(&c);
}

static void test_admin_file(void) {
        ContainersConf c = {};

        ASSERT_OK(containers_conf_parse(&c, "/usr/share/containers/containers.conf", vendor));
        ASSERT_OK(containers_conf_parse(&c, "/etc/containers/containers.conf", admin));
        ASSERT_TRUE(!c.rejected);
        ASSERT_TRUE(c.has_memlock);
        ASSERT_TRUE(c.memlock.soft == MEMLOCK_UNLIMITED && c.memlock.hard == MEMLOCK_UNLIMITED);
        ASSERT_STR_EQ(c.memlock_entry, "memlock=-1:-1");
        ASSERT_STR_EQ(c.file, "/etc/containers/containers.conf");
        ASSERT_INT_EQ(c.line, 4);
        containers_conf_done(&c);
}

static void test_later_file_replaces(void) {
        ContainersConf c = {};

        ASSERT_OK(containers_conf_parse(&c, "/etc/containers/containers.conf", admin));
        /* A drop-in read later replaces the whole array: the memlock entry is gone. */
        ASSERT_OK(containers_conf_parse(
                &c,
                "/etc/containers/containers.conf.d/50-nofile.conf",
                "[containers]\ndefault_ulimits = [\"nofile=1024:2048\"]\n"));
        ASSERT_TRUE(!c.has_memlock && !c.memlock_entry);
        ASSERT_STR_EQ(c.file, "/etc/containers/containers.conf.d/50-nofile.conf");
        ASSERT_INT_EQ(c.line, 2);

        /* Unless it says {append = true} (containers.conf v5): then what it lists is added. */
        ASSERT_OK(containers_conf_parse(&c, "/etc/containers/containers.conf", admin));
        ASSERT_OK(containers_conf_parse(
                &c,
                "/etc/containers/containers.conf.d/60-append.conf",
                "[containers]\ndefault_ulimits = [\"nofile=1024:2048\", {append = true}]\n"));
        ASSERT_TRUE(c.has_memlock);
        ASSERT_STR_EQ(c.file, "/etc/containers/containers.conf");
        ASSERT_OK(containers_conf_parse(
                &c,
                "/etc/containers/containers.conf.d/70-append.conf",
                "[containers]\ndefault_ulimits = [\n  {append=true},\n  'memlock=65536:131072',\n]\n"));
        ASSERT_TRUE(c.memlock.soft == 65536 && c.memlock.hard == 131072);
        ASSERT_STR_EQ(c.file, "/etc/containers/containers.conf.d/70-append.conf");
        ASSERT_INT_EQ(c.line, 4);

        /* A file without default_ulimits changes nothing. */
        ASSERT_OK(containers_conf_parse(
                &c, "/etc/containers/containers.conf.d/80-x.conf", "[engine]\nnum_locks = 4096\n"));
        ASSERT_TRUE(c.memlock.soft == 65536);
        containers_conf_done(&c);
}

static void test_where_the_key_is(void) {
        static const struct {
                const char *text;
                bool has_memlock;
        } cases[] = {
                { "[containers]\ndefault_ulimits=[\"memlock=1024\"]", true },
                { "containers.default_ulimits = [\"memlock=1024\"]\n", true },
                { "[ containers ]\n\"default_ulimits\" = [\"memlock=1024\"]\n", true },
                { "[\"containers\"]\ndefault_ulimits = ['memlock=1024']\n", true },
                { "[containers] # the table\r\ndefault_ulimits = [\"memlock=1024\"] # and a comment\r\n",
                  true },
                { "[containers]\ndefault_ulimits = [\"memlock\\u003d1024\"]\n", true },
                /* the same key in another table, or only in a comment or a string */
                { "[engine]\ndefault_ulimits = [\"memlock=1024\"]\n", false },
                { "[containers.x]\ndefault_ulimits = [\"memlock=1024\"]\n", false },
                { "[[containers]]\ndefault_ulimits = [\"memlock=1024\"]\n", false },
                { "[containers]\n#default_ulimits = [\"memlock=1024\"]\n", false },
                { "[containers]\nx = \"default_ulimits = ['memlock=1024']\"\n", false },
                { "[containers]\nx = '''\ndefault_ulimits = ['memlock=1024']\n'''\n", false },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                ContainersConf c = {};

                ASSERT_OK(containers_conf_parse(&c, "f", cases[i].text));
                if (c.rejected || c.has_memlock != cases[i].has_memlock) {
                        fprintf(stderr, "case %zu: %s\n", i, c.rejected ? c.rejected[0] : "wrong answer");
                        abort();
                }
                if (c.has_memlock)
                        ASSERT_TRUE(c.memlock.soft == 1024 && c.memlock.hard == 1024);
                containers_conf_done(&c);
        }
}

static void test_refused(void) {
        static const struct {
                const char *text;
                const char *error;
        } cases[] = {
                { "[containers]\ndefault_ulimits = [\"memlock=lots\"]\n",
                  "f:2: default_ulimits entry \"memlock=lots\" is not memlock=SOFT[:HARD] in bytes or -1: podman "
                  "refuses it" },
                { "[containers]\ndefault_ulimits = [\"memlock=2048:1024\"]\n",
                  "f:2: default_ulimits entry \"memlock=2048:1024\" is not memlock=SOFT[:HARD] in bytes or -1: "
                  "podman refuses it" },
                { "[containers]\ndefault_ulimits = \"memlock=-1\"\n",
                  "f:2: default_ulimits is not an array of strings" },
                { "[containers]\ndefault_ulimits = [1024]\n",
                  "f:2: default_ulimits holds a value that is not a string" },
                { "[containers]\ndefault_ulimits = [\"memlock=-1:-1\"\n",
                  "f:3: expected ',' or ']' in an array" },
                { "[containers]\ndefault_ulimits = [\"memlock=-1:-1]\n",
                  "f:2: a string is not closed on its line" },
                { "[engine]\nx = \"\"\"\nnever closed\n", "f:4: a string is not closed" },
                { "[containers\n", "f:1: a table header is not closed with ]" },
                { "[containers]\nlog_driver \"journald\"\n", "f:2: expected '=' after the key log_driver" },
                { "[containers]\nx = 1 2\n", "f:2: unexpected '2' after the value: one key = value a line" },
                { "x = \"\\q\"\n", "f:1: unknown escape in a string: \\q" },
                { "x = \"\\uD800\"\n", "f:1: \\uD800 is not a Unicode scalar value" },
                { "x = [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]\n",
                  "f:1: values nested deeper than 32 levels" },
                { "= 1\n", "f:1: expected a key, found '='" },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                ContainersConf c = {};

                ASSERT_OK(containers_conf_parse(&c, "f", cases[i].text));
                ASSERT_INT_EQ(strv_length(c.rejected), 1);
                ASSERT_STR_EQ(c.rejected[0], cases[i].error);
                /* a refused file decides nothing */
                ASSERT_TRUE(!c.file && !c.has_memlock);
                containers_conf_done(&c);
        }
}

static void test_ulimit_entries(void) {
        static const struct {
                const char *entry;
                int r;
                uint64_t soft, hard;
        } cases[] = {
                { "memlock=-1:-1", 1, MEMLOCK_UNLIMITED, MEMLOCK_UNLIMITED },
                { "memlock=-1", 1, MEMLOCK_UNLIMITED, MEMLOCK_UNLIMITED },
                { "memlock=67108864", 1, 67108864, 67108864 },
                { "memlock=65536:-1", 1, 65536, MEMLOCK_UNLIMITED },
                { "memlock=9223372036854775807", 1, INT64_MAX, INT64_MAX },
                { "nofile=1280:2560", 0, 0, 0 },
                { "RLIMIT_MEMLOCK=-1", 0, 0, 0 },
                { "memlock=", -EINVAL, 0, 0 },
                { "memlock=-2", -EINVAL, 0, 0 },
                { "memlock=-1:1024", -EINVAL, 0, 0 },
                { "memlock=64M", -EINVAL, 0, 0 },
                { "memlock=1:2:3", -EINVAL, 0, 0 },
                { "memlock=9223372036854775808", -EINVAL, 0, 0 },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                MemlockLimit l = {};
                int r = podman_ulimit_parse_memlock(cases[i].entry, &l);

                if (r != cases[i].r || l.soft != cases[i].soft || l.hard != cases[i].hard) {
                        fprintf(stderr,
                                "%s: r=%d soft=%" PRIu64 " hard=%" PRIu64 "\n",
                                cases[i].entry,
                                r,
                                l.soft,
                                l.hard);
                        abort();
                }
        }
}

int main(void) {
        test_vendor_file_sets_nothing();
        test_admin_file();
        test_later_file_replaces();
        test_where_the_key_is();
        test_refused();
        test_ulimit_entries();
        printf("test-containers-conf: ok\n");
        return 0;
}
