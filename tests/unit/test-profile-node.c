/* SPDX-License-Identifier: MIT */
/* Which node this machine is: by --node, by hostname (full or short), by a local address; and the
 * messages that list the candidates when none or several match. */
#include <arpa/inet.h>
#include <stdio.h>

#include "basic/strv.h"
#include "profile/profile.h"
#include "tests.h"

static const char profile_text[] =
        "cluster: sel\n"
        "links:\n"
        "  rdma0: { match: { driver: ice } }\n"
        "  rdma1: { match: { driver: ice, name: enp194s0f1np1 } }\n"
        "nodes:\n"
        "  head: { hostname: halo-1, links: { rdma0: 192.168.100.1/30 } }\n"
        "  worker: { hostname: halo-2.lab.example, links: { rdma0: 192.168.100.2/30, rdma1: 10.0.2.2/24 } }\n"
        "  spare: { links: { rdma1: 10.0.2.3/24 } }\n"
        "  twin-a: { hostname: twin.a.example, links: { rdma1: 10.0.2.4/24 } }\n"
        "  twin-b: { hostname: twin.b.example, links: { rdma1: 10.0.2.5/24 } }\n";

static const char all_nodes[] =
        "head (halo-1, 192.168.100.1), worker (halo-2.lab.example, 192.168.100.2, 10.0.2.2), "
        "spare (no hostname, 10.0.2.3), twin-a (twin.a.example, 10.0.2.4), twin-b (twin.b.example, 10.0.2.5)";

static void test_select(void) {
        static const struct {
                const char *node_name;
                const char *hostname;
                const char *addresses; /* comma-separated */
                int r;
                const char *selected;
        } cases[] = {
                /* --node wins over everything. */
                { "worker", "halo-1", "192.168.100.1", 0, "worker" },
                { "spare", NULL, NULL, 0, "spare" },
                { "nobody", "halo-1", NULL, -ENOENT, NULL },
                /* Hostname: exact and case-insensitive. */
                { NULL, "halo-1", NULL, 0, "head" },
                { NULL, "HALO-1", NULL, 0, "head" },
                { NULL, "halo-2.lab.example", NULL, 0, "worker" },
                /* Short hostnames, both ways. */
                { NULL, "halo-1.lab.example", NULL, 0, "head" },
                { NULL, "halo-2", NULL, 0, "worker" },
                { NULL, "halo-2.other.example", NULL, -ENOENT, NULL },
                /* A node without hostname answers to its name. */
                { NULL, "spare", NULL, 0, "spare" },
                { NULL, "spare.lab", NULL, 0, "spare" },
                /* The hostname decides before the addresses. */
                { NULL, "halo-1", "192.168.100.2", 0, "head" },
                /* Two nodes share the short name "twin". */
                { NULL, "twin", NULL, -ENOTUNIQ, NULL },
                { NULL, "twin.a.example", NULL, 0, "twin-a" },
                /* Addresses when the hostname says nothing. */
                { NULL, "build-7", "127.0.0.1,10.0.2.3", 0, "spare" },
                { NULL, NULL, "192.168.100.2", 0, "worker" },
                { NULL, NULL, "10.0.2.2,192.168.100.2", 0, "worker" },
                { NULL, "build-7", "10.0.2.3,10.0.2.4", -ENOTUNIQ, NULL },
                { NULL, "build-7", "10.0.2.9", -ENOENT, NULL },
                { NULL, NULL, NULL, -ENOENT, NULL },
        };
        _cleanup_(profile_freep) Profile *p = NULL;

        ASSERT_OK(profile_load_string("sel.yaml", profile_text, strlen(profile_text), &p, NULL));

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_(strv_freep) char **split = NULL;
                _cleanup_(freep) char *error = NULL, *copy = NULL;
                struct in_addr addresses[8];
                const ProfileNode *n = NULL;
                size_t k = 0;
                int r;

                if (cases[i].addresses) {
                        copy = strdup(cases[i].addresses);
                        for (char *s = strtok(copy, ","); s; s = strtok(NULL, ","))
                                ASSERT_INT_EQ(inet_pton(AF_INET, s, &addresses[k++]), 1);
                }
                r = profile_select_node(p, cases[i].node_name, cases[i].hostname, addresses, k, &n, &error);
                if (r != cases[i].r)
                        fprintf(stderr, "case %zu: %s\n", i, strna(error));
                ASSERT_INT_EQ(r, cases[i].r);
                if (r == 0) {
                        ASSERT_STR_EQ(n->name, cases[i].selected);
                        ASSERT_TRUE(!error);
                } else {
                        ASSERT_TRUE(!n);
                        ASSERT_TRUE(error && !strchr(error, '\n'));
                }
        }
}

static void test_messages(void) {
        _cleanup_(profile_freep) Profile *p = NULL;
        _cleanup_(freep) char *error = NULL, *expected = NULL;
        struct in_addr a[2];
        const ProfileNode *n = NULL;

        ASSERT_OK(profile_load_string("sel.yaml", profile_text, strlen(profile_text), &p, NULL));
        ASSERT_INT_EQ(inet_pton(AF_INET, "127.0.0.1", &a[0]), 1);
        ASSERT_INT_EQ(inet_pton(AF_INET, "192.0.2.7", &a[1]), 1);

        ASSERT_INT_EQ(profile_select_node(p, NULL, "build-7", a, 2, &n, &error), -ENOENT);
        ASSERT_TRUE(
                asprintf(
                        &expected,
                        "this machine (hostname 'build-7', addresses 127.0.0.1, 192.0.2.7) is none of the profile's nodes: %s; pass --node NAME",
                        all_nodes) > 0);
        ASSERT_STR_EQ(error, expected);
        error = mfree(error);
        expected = mfree(expected);

        ASSERT_INT_EQ(profile_select_node(p, NULL, NULL, NULL, 0, &n, &error), -ENOENT);
        ASSERT_TRUE(
                asprintf(
                        &expected,
                        "this machine (hostname unknown, no IPv4 addresses) is none of the profile's nodes: %s; pass --node NAME",
                        all_nodes) > 0);
        ASSERT_STR_EQ(error, expected);
        error = mfree(error);

        ASSERT_INT_EQ(profile_select_node(p, NULL, "twin", NULL, 0, &n, &error), -ENOTUNIQ);
        ASSERT_STR_EQ(
                error,
                "this machine (hostname 'twin', no IPv4 addresses) matches more than one of the profile's nodes: twin-a (twin.a.example, 10.0.2.4), twin-b (twin.b.example, 10.0.2.5); pass --node NAME");
        error = mfree(error);

        ASSERT_INT_EQ(profile_select_node(p, "nobody", NULL, NULL, 0, &n, &error), -ENOENT);
        expected = mfree(expected);
        ASSERT_TRUE(
                asprintf(
                        &expected,
                        "the profile has no node 'nobody'; its nodes are: %s; pass --node with one of these names",
                        all_nodes) > 0);
        ASSERT_STR_EQ(error, expected);

        /* ret_error may be NULL. */
        ASSERT_INT_EQ(profile_select_node(p, "nobody", NULL, NULL, 0, &n, NULL), -ENOENT);
}

static bool contains(const struct in_addr *a, size_t n, struct in_addr x) {
        for (size_t i = 0; i < n; i++)
                if (a[i].s_addr == x.s_addr)
                        return true;
        return false;
}

/* Cross-checks getifaddrs() against the kernel's own list of local addresses: the "/32 host LOCAL"
 * entries of /proc/net/fib_trie, one per address on an interface that is up. */
static void test_local_addresses(void) {
        _cleanup_(freep) struct in_addr *a = NULL;
        _cleanup_(fclosep) FILE *f = NULL;
        char line[256], last[INET_ADDRSTRLEN] = "";
        size_t n = 0, checked = 0;

        ASSERT_OK(local_ipv4_addresses(&a, &n));
        ASSERT_TRUE(n == 0 || a);

        f = fopen("/proc/net/fib_trie", "re");
        ASSERT_TRUE(f);
        while (fgets(line, sizeof(line), f)) {
                char *s = strstr(line, "|-- ");
                struct in_addr x;

                if (s) {
                        (void) snprintf(last, sizeof(last), "%.*s", (int) strcspn(s + 4, " \n"), s + 4);
                        continue;
                }
                if (!strstr(line, "/32 host LOCAL") || inet_pton(AF_INET, last, &x) != 1)
                        continue;
                if (!contains(a, n, x))
                        fprintf(stderr, "local address %s missing from local_ipv4_addresses()\n", last);
                ASSERT_TRUE(contains(a, n, x));
                checked++;
        }
        printf("%zu local addresses, %zu confirmed by /proc/net/fib_trie\n", n, checked);
}

int main(void) {
        test_select();
        test_messages();
        test_local_addresses();
        return EXIT_SUCCESS;
}
