/* SPDX-License-Identifier: MIT */
/* The registry of check ids: which ids a pattern stands for, and that every line is whole (a group
 * that selects it, a section, one line of what it judges, parts that are snapshot parts), that a
 * group's lines are adjacent, and that no two lines stand for one id. */
#include <stdio.h>

#include "check/check-kernel.h"
#include "check/check-registry.h"
#include "tests.h"

static void test_matches(void) {
        static const struct {
                const char *pattern, *id;
                bool match;
        } cases[] = {
                { "kernel.cmdline", "kernel.cmdline", true },
                { "kernel.cmdline", "kernel.cmdline-next", false },
                { "kernel.cmdline", "kernel.cmd", false },
                { "link.<NAME>.mtu", "link.rdma0.mtu", true },
                { "link.<NAME>.mtu", "link.rdma0.mtux", false },
                { "link.<NAME>.mtu", "link..mtu", false },
                { "link.<NAME>.mtu", "link.a.b.mtu", false },
                { "link.<NAME>.mtu", "link.rdma0.up", false },
                { "hosts.<NODE>", "hosts.worker", true },
                { "hosts.<NODE>", "hosts.", false },
                { "hosts.<NODE>", "hosts.worker.loopback", false },
                { "peer.<NODE>.rdma", "peer.node-2.rdma", true },
                { "profile", "profiles", false },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                bool got = check_registry_id_matches(cases[i].pattern, cases[i].id);

                if (got != cases[i].match)
                        fprintf(stderr, "%s ~ %s: expected %d\n", cases[i].pattern, cases[i].id, cases[i].match);
                ASSERT_TRUE(got == cases[i].match);
        }
        ASSERT_STR_EQ(check_registry_find("qos.rdma1.pause")->id, "qos.<NAME>.pause");
        ASSERT_STR_EQ(check_registry_find("nic.roce")->id, "nic.roce");
        ASSERT_TRUE(!check_registry_find("nic.rocee"));
        ASSERT_TRUE(!check_registry_find("kernel."));
}

/* The id a pattern stands for with every <...> one name, "x". */
static void example_id(const char *pattern, char *buf, size_t size) {
        size_t n = 0;

        for (const char *p = pattern; *p && n + 1 < size; p++) {
                if (*p == '<') {
                        buf[n++] = 'x';
                        p = strchr(p, '>');
                        ASSERT_TRUE(p);
                        continue;
                }
                buf[n++] = *p;
        }
        buf[n] = '\0';
}

static void test_lines(void) {
        ASSERT_TRUE(check_registry_size >= 40);
        for (size_t i = 0; i < check_registry_size; i++) {
                const CheckRegistryEntry *e = &check_registry[i];
                char id[CHECK_ID_MAX];

                fprintf(stderr, "%s\n", e->id);
                ASSERT_TRUE(startswith(e->id, e->group));
                ASSERT_TRUE(!isempty(e->section) && !isempty(e->judges));
                ASSERT_TRUE(!strchr(e->judges, '\n'));
                for (unsigned bit = 0; bit < 8 * sizeof(e->parts); bit++)
                        ASSERT_TRUE(
                                !(e->parts & (1u << bit)) || snapshot_part_name((SnapshotPart) (1u << bit)));
                /* Only this line stands for its example id. */
                example_id(e->id, id, sizeof(id));
                ASSERT_TRUE(check_registry_find(id) == e);
                /* A group function's lines are adjacent: it runs once, at its first. */
                if (e->run && i > 0 && check_registry[i - 1].run != e->run)
                        for (size_t j = 0; j < i; j++)
                                ASSERT_TRUE(check_registry[j].run != e->run);
        }
        ASSERT_INT_EQ(check_registry_count(check_kernel), 2);
        ASSERT_INT_EQ(check_registry_count(check_kernel_devices), 2);
}

int main(void) {
        test_matches();
        test_lines();
        return 0;
}
