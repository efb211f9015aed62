/* SPDX-License-Identifier: MIT */
/* The profile's value syntax: IPv4 prefixes, PCI and MAC addresses, durations, sizes, names, kernel
 * parameters, and the "did you mean" suggestions, as tables of real-world strings. */
#include <arpa/inet.h>
#include <stdio.h>

#include "basic/suggest.h"
#include "profile/profile-internal.h"
#include "tests.h"

static void test_ipv4_prefix(void) {
        static const struct {
                const char *input;
                int r;
                const char *normalized;
        } cases[] = {
                { "192.168.100.1/30", 0, "192.168.100.1/30" },
                { "10.0.1.2/24", 0, "10.0.1.2/24" },
                { "10.9.0.0/31", 0, "10.9.0.0/31" },
                { "1.2.3.4/32", 0, "1.2.3.4/32" },
                { "0.0.0.0/1", 0, "0.0.0.0/1" },
                { "255.255.255.255/8", 0, "255.255.255.255/8" },
                { "192.168.100.1/0", -ERANGE, NULL },
                { "192.168.100.1/33", -ERANGE, NULL },
                { "192.168.100.1/99", -ERANGE, NULL },
                { "192.168.100.1", -EINVAL, NULL },
                { "192.168.100.1/", -EINVAL, NULL },
                { "192.168.100.1/030", -EINVAL, NULL },
                { "192.168.100.1/03", -EINVAL, NULL },
                { "192.168.100.1/3a", -EINVAL, NULL },
                { "192.168.100.1/+3", -EINVAL, NULL },
                { "192.168.100.1/ 3", -EINVAL, NULL },
                { "192.168.100.1/100", -EINVAL, NULL },
                { "/24", -EINVAL, NULL },
                { "192.168.300.1/24", -EINVAL, NULL },
                { "192.168.100.01/24", -EINVAL, NULL },
                { "192.168.100/24", -EINVAL, NULL },
                { "0x0a.0.0.1/24", -EINVAL, NULL },
                { "fe80::1/64", -EINVAL, NULL },
                { " 10.0.0.1/24", -EINVAL, NULL },
                { "10.0.0.1/24 ", -EINVAL, NULL },
                { "", -EINVAL, NULL },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                Ipv4Prefix p = { .prefixlen = 99 };
                char buf[IPV4_PREFIX_STRING_MAX];
                int r = ipv4_prefix_from_string(cases[i].input, &p);

                if (r != cases[i].r)
                        fprintf(stderr, "ipv4_prefix_from_string(\"%s\")\n", cases[i].input);
                ASSERT_INT_EQ(r, cases[i].r);
                if (r == 0)
                        ASSERT_STR_EQ(ipv4_prefix_to_string(&p, buf), cases[i].normalized);
                else
                        ASSERT_INT_EQ(p.prefixlen, 99); /* untouched on failure */
        }
        ASSERT_INT_EQ(ipv4_prefix_from_string(NULL, &(Ipv4Prefix){}), -EINVAL);
}

static void test_ipv4_subnets(void) {
        static const struct {
                const char *a, *b;
                bool same;
        } cases[] = {
                { "192.168.100.1/30", "192.168.100.2/30", true },
                { "192.168.100.1/30", "192.168.100.5/30", false },
                { "192.168.100.1/30", "192.168.100.2/24", false }, /* same network, other length */
                { "10.0.1.1/24", "10.0.1.254/24", true },
                { "10.0.1.1/24", "10.0.2.1/24", false },
                { "10.9.0.0/31", "10.9.0.1/31", true },
                { "10.9.0.1/32", "10.9.0.1/32", true },
                { "10.9.0.1/32", "10.9.0.2/32", false },
                { "172.16.0.1/12", "172.31.255.254/12", true },
                { "128.0.0.1/1", "255.0.0.1/1", true },
                { "127.0.0.1/1", "128.0.0.1/1", false },
        };
        static const struct {
                const char *input;
                bool network_or_broadcast;
        } hosts[] = {
                { "192.168.100.0/30", true }, { "192.168.100.1/30", false }, { "192.168.100.2/30", false },
                { "192.168.100.3/30", true }, { "10.0.1.0/24", true },       { "10.0.1.255/24", true },
                { "10.0.1.128/24", false },   { "10.9.0.0/31", false },      { "10.9.0.1/31", false },
                { "10.9.0.0/32", false },     { "10.255.255.255/8", true },  { "10.0.0.0/8", true },
        };
        static const struct {
                const char *address;
                bool unicast;
        } unicast[] = {
                { "0.0.0.1", false },         { "127.0.0.1", false },      { "127.255.0.9", false },
                { "224.0.0.5", false },       { "239.1.1.1", false },      { "240.0.0.1", false },
                { "255.255.255.255", false }, { "1.0.0.1", true },         { "10.0.0.1", true },
                { "192.168.100.1", true },    { "223.255.255.254", true },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                Ipv4Prefix a, b;

                ASSERT_OK(ipv4_prefix_from_string(cases[i].a, &a));
                ASSERT_OK(ipv4_prefix_from_string(cases[i].b, &b));
                ASSERT_INT_EQ(ipv4_prefix_same_subnet(&a, &b), cases[i].same);
                ASSERT_INT_EQ(ipv4_prefix_same_subnet(&b, &a), cases[i].same);
        }
        for (size_t i = 0; i < ELEMENTSOF(hosts); i++) {
                Ipv4Prefix a;

                ASSERT_OK(ipv4_prefix_from_string(hosts[i].input, &a));
                ASSERT_INT_EQ(ipv4_prefix_is_network_or_broadcast(&a), hosts[i].network_or_broadcast);
        }
        {
                static const struct {
                        const char *prefix, *address;
                        bool contains;
                } contains[] = {
                        { "10.0.2.0/24", "10.0.2.3", true },
                        { "10.0.2.0/24", "10.0.3.3", false },
                        { "10.0.0.0/16", "10.0.3.4", true },
                        { "192.168.100.1/30", "192.168.100.2", true },
                        { "192.168.100.1/30", "192.168.100.5", false },
                        { "10.9.0.1/32", "10.9.0.1", true },
                        { "10.9.0.1/32", "10.9.0.2", false },
                };

                for (size_t i = 0; i < ELEMENTSOF(contains); i++) {
                        Ipv4Prefix p;
                        struct in_addr a;

                        ASSERT_OK(ipv4_prefix_from_string(contains[i].prefix, &p));
                        ASSERT_TRUE(inet_pton(AF_INET, contains[i].address, &a) == 1);
                        ASSERT_INT_EQ(ipv4_prefix_contains(&p, a), contains[i].contains);
                }
        }
        for (size_t i = 0; i < ELEMENTSOF(unicast); i++) {
                struct in_addr a;

                ASSERT_INT_EQ(inet_pton(AF_INET, unicast[i].address, &a), 1);
                ASSERT_INT_EQ(ipv4_address_is_unicast(a), unicast[i].unicast);
        }
        ASSERT_INT_EQ(ipv4_prefix_netmask(0), 0);
        ASSERT_INT_EQ(ipv4_prefix_netmask(30), 0xfffffffc);
        ASSERT_INT_EQ(ipv4_prefix_netmask(32), 0xffffffff);
}

static void test_pci_mac(void) {
        static const struct {
                const char *input, *pci;
        } pci[] = {
                { "0000:c2:00.0", "0000:c2:00.0" },
                { "C2:00.1", "0000:c2:00.1" },
                { "0001:03:1f.7", "0001:03:1f.7" },
                { "ABCD:EF:01.2", "abcd:ef:01.2" },
                { "c2:00", NULL },
                { "c2:20.0", NULL },
                { "c2:00.8", NULL },
                { "0000:c2:00.0.1", NULL },
                { "000:c2:00.0", NULL },
                { "10000:e1:00.0", NULL },
                { "g2:00.0", NULL },
                { "0000-c2:00.0", NULL },
                { "", NULL },
        };
        static const struct {
                const char *input, *mac;
        } mac[] = {
                { "6c:fe:54:12:34:56", "6c:fe:54:12:34:56" },
                { "6C:FE:54:12:34:AB", "6c:fe:54:12:34:ab" },
                { "6c-fe-54-12-34-56", "6c:fe:54:12:34:56" },
                { "6c:fe-54:12:34:56", NULL },
                { "6c:fe:54:12:34", NULL },
                { "6c:fe:54:12:34:5", NULL },
                { "6c:fe:54:12:34:567", NULL },
                { "6cfe.5412.3456", NULL },
                { "zz:fe:54:12:34:56", NULL },
        };
        static const struct {
                const char *input;
                int r;
                uint16_t vendor, device;
        } ids[] = {
                { "8086:1592", 0, 0x8086, 0x1592 }, { "15B3:1021", 0, 0x15b3, 0x1021 },
                { "8086-1592", -EINVAL, 0, 0 },     { "8086:159", -EINVAL, 0, 0 },
                { "80861592", -EINVAL, 0, 0 },      { "8086:15920", -EINVAL, 0, 0 },
        };

        for (size_t i = 0; i < ELEMENTSOF(pci); i++) {
                char buf[16];
                int r = pci_address_normalize(pci[i].input, buf);

                ASSERT_TRUE(pci[i].pci ? r == 0 : r < 0);
                if (pci[i].pci)
                        ASSERT_STR_EQ(buf, pci[i].pci);
        }
        for (size_t i = 0; i < ELEMENTSOF(mac); i++) {
                char buf[18];
                int r = mac_address_normalize(mac[i].input, buf);

                ASSERT_TRUE(mac[i].mac ? r == 0 : r < 0);
                if (mac[i].mac)
                        ASSERT_STR_EQ(buf, mac[i].mac);
        }
        for (size_t i = 0; i < ELEMENTSOF(ids); i++) {
                PciId id = {};

                ASSERT_INT_EQ(pci_id_from_string(ids[i].input, &id), ids[i].r);
                ASSERT_INT_EQ(id.vendor, ids[i].vendor);
                ASSERT_INT_EQ(id.device, ids[i].device);
        }
}

static void test_numbers_durations_sizes(void) {
        static const struct {
                const char *input;
                int r;
                uint64_t usec;
        } durations[] = {
                { "60s", 0, 60000000ULL },
                { "5m", 0, 300000000ULL },
                { "1h", 0, 3600000000ULL },
                { "500ms", 0, 500000ULL },
                { "1m30s", 0, 90000000ULL },
                { "1h1m1s1ms", 0, 3661001000ULL },
                { "24h", 0, 86400000000ULL },
                { "60", -EINVAL, 0 },
                { "1d", -EINVAL, 0 },
                { "1.5s", -EINVAL, 0 },
                { "s", -EINVAL, 0 },
                { "", -EINVAL, 0 },
                { "60 s", -EINVAL, 0 },
                { "-1s", -EINVAL, 0 },
                { "99999999999999999999h", -ERANGE, 0 },
                { "9999999999999h", -ERANGE, 0 },
        };
        static const struct {
                const char *input;
                int r;
                uint64_t bytes;
        } sizes[] = {
                { "65536", 0, 65536ULL },  { "64K", 0, 65536ULL },     { "64k", 0, 65536ULL },
                { "64M", 0, 67108864ULL }, { "2G", 0, 2147483648ULL }, { "1T", 0, 1099511627776ULL },
                { "64MB", -EINVAL, 0 },    { "64 M", -EINVAL, 0 },     { "M", -EINVAL, 0 },
                { "064M", -EINVAL, 0 },    { "1.5G", -EINVAL, 0 },     { "99999999999T", -ERANGE, 0 },
                { "", -EINVAL, 0 },
        };
        static const struct {
                const char *input;
                int r;
                uint64_t v;
        } numbers[] = {
                { "0", 0, 0 },           { "9000", 0, 9000 },     { "18446744073709551615", 0, UINT64_MAX },
                { "09000", -EINVAL, 0 }, { "-1", -EINVAL, 0 },    { "+1", -EINVAL, 0 },
                { "1e3", -EINVAL, 0 },   { "0x10", -EINVAL, 0 },  { "18446744073709551616", -ERANGE, 0 },
                { "", -EINVAL, 0 },      { "9000 ", -EINVAL, 0 },
        };
        char buf[32];

        for (size_t i = 0; i < ELEMENTSOF(durations); i++) {
                uint64_t v = 0;

                ASSERT_INT_EQ(parse_duration_usec(durations[i].input, &v), durations[i].r);
                ASSERT_INT_EQ(v, durations[i].usec);
        }
        for (size_t i = 0; i < ELEMENTSOF(sizes); i++) {
                uint64_t v = 0;

                ASSERT_INT_EQ(parse_size_bytes(sizes[i].input, &v), sizes[i].r);
                ASSERT_INT_EQ(v, sizes[i].bytes);
        }
        for (size_t i = 0; i < ELEMENTSOF(numbers); i++) {
                uint64_t v = 0;

                ASSERT_INT_EQ(parse_uint64(numbers[i].input, &v), numbers[i].r);
                ASSERT_TRUE(v == numbers[i].v);
        }
        ASSERT_STR_EQ(format_duration(60000000ULL, buf), "1m");
        ASSERT_STR_EQ(format_duration(90000000ULL, buf), "1m30s");
        ASSERT_STR_EQ(format_duration(3661001000ULL, buf), "1h1m1s1ms");
        ASSERT_STR_EQ(format_duration(500000ULL, buf), "500ms");
        ASSERT_STR_EQ(format_duration(0, buf), "0s");
}

/* nic.speed-min: Gbit/s as people write a link speed; ethtool's Mbit/s and other units are refused. */
static void test_speed(void) {
        static const struct {
                const char *input;
                int r;
                unsigned gbit;
        } speeds[] = {
                { "100", 0, 100 },
                { "100G", 0, 100 },
                { "25G", 0, 25 },
                { "1", 0, 1 },
                { "1600G", 0, 1600 },
                { "400G", 0, 400 },
                { "0", -ERANGE, 0 },
                { "0G", -ERANGE, 0 },
                { "1601", -ERANGE, 0 },
                { "100000", -ERANGE, 0 },                   /* ethtool's Mbit/s */
                { "99999999999999999999999G", -ERANGE, 0 }, /* past uint64_t: still just out of range */
                { "", -EINVAL, 0 },
                { "G", -EINVAL, 0 },
                { "100g", -EINVAL, 0 },
                { "100Gb", -EINVAL, 0 },
                { "100GbE", -EINVAL, 0 },
                { "100 G", -EINVAL, 0 },
                { "100GG", -EINVAL, 0 },
                { "0100", -EINVAL, 0 },
                { "-1", -EINVAL, 0 },
                { "+100", -EINVAL, 0 },
                { "1e2", -EINVAL, 0 },
                { "100.0", -EINVAL, 0 },
                { "100M", -EINVAL, 0 },
                { "0x64", -EINVAL, 0 },
        };

        for (size_t i = 0; i < ELEMENTSOF(speeds); i++) {
                unsigned v = 0;

                ASSERT_INT_EQ(parse_speed_gbit(speeds[i].input, &v), speeds[i].r);
                ASSERT_INT_EQ(v, speeds[i].gbit);
        }
}

static void test_names(void) {
        ASSERT_TRUE(cluster_name_is_valid("strix-halo"));
        ASSERT_TRUE(cluster_name_is_valid("Lab_2.test"));
        ASSERT_TRUE(!cluster_name_is_valid("strix halo"));
        ASSERT_TRUE(!cluster_name_is_valid(""));
        ASSERT_TRUE(cluster_name_is_valid("123456789012345678901234567890123456789012345678901234567890123"));
        ASSERT_TRUE(!cluster_name_is_valid("1234567890123456789012345678901234567890123456789012345678901234"));

        ASSERT_TRUE(link_name_is_valid("rdma0"));
        ASSERT_TRUE(link_name_is_valid("fab-b_1"));
        ASSERT_TRUE(link_name_is_valid("123456789012345"));
        ASSERT_TRUE(!link_name_is_valid("1234567890123456"));
        ASSERT_TRUE(!link_name_is_valid("RDMA0"));
        ASSERT_TRUE(!link_name_is_valid("rdma.0"));

        ASSERT_TRUE(node_name_is_valid("Head_1-a"));
        ASSERT_TRUE(!node_name_is_valid("head.1"));
        ASSERT_TRUE(!node_name_is_valid("worker node"));

        ASSERT_TRUE(hostname_is_valid("halo-1"));
        ASSERT_TRUE(hostname_is_valid("a1.lab.example"));
        ASSERT_TRUE(hostname_is_valid("C3"));
        ASSERT_TRUE(!hostname_is_valid("-x"));
        ASSERT_TRUE(!hostname_is_valid("x-"));
        ASSERT_TRUE(!hostname_is_valid("halo_2"));
        ASSERT_TRUE(!hostname_is_valid("a..b"));
        ASSERT_TRUE(!hostname_is_valid("a.b."));
        ASSERT_TRUE(!hostname_is_valid(".a"));
        ASSERT_TRUE(!hostname_is_valid(""));
        ASSERT_TRUE(hostname_is_valid("a23456789012345678901234567890123456789012345678901234567890123"));
        ASSERT_TRUE(!hostname_is_valid("a234567890123456789012345678901234567890123456789012345678901234"));

        ASSERT_TRUE(ifname_glob_is_valid("enp194s0*"));
        ASSERT_TRUE(ifname_glob_is_valid("eth[01]"));
        ASSERT_TRUE(ifname_glob_is_valid("enp194s0f0np0ab"));
        ASSERT_TRUE(!ifname_glob_is_valid("enp194s0f0np0abc"));
        ASSERT_TRUE(!ifname_glob_is_valid("eth0:1"));
        ASSERT_TRUE(!ifname_glob_is_valid("a/b"));
        ASSERT_TRUE(!ifname_glob_is_valid("a b"));

        ASSERT_TRUE(driver_name_is_valid("ice"));
        ASSERT_TRUE(driver_name_is_valid("mlx5_core"));
        ASSERT_TRUE(!driver_name_is_valid("ice/2"));

        ASSERT_TRUE(zone_name_is_valid("trusted"));
        ASSERT_TRUE(!zone_name_is_valid("trusted zone"));

        ASSERT_TRUE(firmware_version_is_valid("4.91"));
        ASSERT_TRUE(firmware_version_is_valid("28.39.1002"));
        ASSERT_TRUE(firmware_version_is_valid("4.40-rc1+git"));
        ASSERT_TRUE(!firmware_version_is_valid("latest"));
        ASSERT_TRUE(!firmware_version_is_valid("4.91 0x8001"));
}

static void test_kernel_parameters(void) {
        static const struct {
                const char *input;
                bool valid;
        } cases[] = {
                { "iommu=pt", true },
                { "pci=realloc", true },
                { "pcie_aspm=off", true },
                { "amdgpu.gttsize=126976", true },
                { "ttm.pages_limit=32505856", true },
                { "quiet", true },
                { "foo-bar", true },
                { "console=ttyS0,115200n8", true },
                { "dyndbg=\"file ice* +p\"", true },
                { "empty=", true },
                { "=pt", false },
                { "a b", false },
                { "pci = realloc", false },
                { "x=a b", false },
                { "x=\"a", false },
                { "x=\"a\"b\"", false },
                { "na/me=1", false },
                { "", false },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                if (kernel_parameter_is_valid(cases[i].input) != cases[i].valid)
                        fprintf(stderr, "kernel_parameter_is_valid(\"%s\")\n", cases[i].input);
                ASSERT_INT_EQ(kernel_parameter_is_valid(cases[i].input), cases[i].valid);
        }
}

static void test_suggest(void) {
        static const char *const top[] = { "cluster", "mode",  "links",  "nic", "rdma",
                                           "kernel",  "nodes", "health", NULL };
        static const char *const link[] = { "match", "mtu", "firewall-zone", "ipv6", NULL };
        static const struct {
                const char *word;
                const char *const *known;
                const char *suggestion;
        } cases[] = {
                { "helth", top, "health" },
                { "linkz", top, "links" },
                { "link", top, "links" },
                { "Nodes", top, "nodes" },
                { "CLUSTER", top, "cluster" },
                { "clsuter", top, "cluster" },
                { "kernal", top, "kernel" },
                { "nics", top, "nic" },
                { "rmda", top, "rdma" },
                { "gpu", top, NULL },
                { "whatever", top, NULL },
                { "mtuu", link, "mtu" },
                { "firewall_zone", link, "firewall-zone" },
                { "zone", link, NULL },
                { "ipv4", link, "ipv6" },
                { "matches", link, "match" },
                { "", link, NULL },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                const char *s = suggest_closest(cases[i].word, cases[i].known);

                if (!streq_ptr(s, cases[i].suggestion))
                        fprintf(stderr, "suggest_closest(\"%s\") = %s\n", cases[i].word, strna(s));
                ASSERT_TRUE(streq_ptr(s, cases[i].suggestion));
        }
        ASSERT_INT_EQ(edit_distance("abc", "abc"), 0);
        ASSERT_INT_EQ(edit_distance("abc", "acb"), 1);
        ASSERT_INT_EQ(edit_distance("", "abc"), 3);
        ASSERT_INT_EQ(edit_distance("kitten", "sitting"), 3);
        ASSERT_TRUE(
                edit_distance("a", "0123456789012345678901234567890123456789012345678901234567890123") ==
                SIZE_MAX);
}

static void test_enums(void) {
        ASSERT_STR_EQ(profile_mode_to_string(PROFILE_MODE_ENFORCE), "enforce");
        ASSERT_STR_EQ(profile_mode_to_string(PROFILE_MODE_VERIFY), "verify");
        ASSERT_TRUE(!profile_mode_to_string(_PROFILE_MODE_MAX));
        ASSERT_TRUE(!profile_mode_to_string(_PROFILE_MODE_INVALID));
        ASSERT_INT_EQ(profile_mode_from_string("verify"), PROFILE_MODE_VERIFY);
        ASSERT_INT_EQ(profile_mode_from_string("Verify"), _PROFILE_MODE_INVALID);
        ASSERT_INT_EQ(profile_mode_from_string(NULL), _PROFILE_MODE_INVALID);
        for (int i = 0; i < _RDMA_GID_TYPE_MAX; i++)
                ASSERT_INT_EQ(rdma_gid_type_from_string(rdma_gid_type_to_string(i)), i);
        ASSERT_STR_EQ(rdma_gid_type_to_string(RDMA_GID_ROCE_V2), "roce-v2");
        ASSERT_INT_EQ(rdma_gid_type_from_string("rocev2"), _RDMA_GID_TYPE_INVALID);
}

static void test_mode_rule(void) {
        static const struct {
                ProfileMode mode;
                bool force;
                bool may_change;
        } cases[] = {
                { PROFILE_MODE_ENFORCE, false, true },
                { PROFILE_MODE_ENFORCE, true, true },
                { PROFILE_MODE_VERIFY, false, false },
                { PROFILE_MODE_VERIFY, true, true },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                Profile p = { .mode = cases[i].mode };

                ASSERT_INT_EQ(profile_may_change_host(&p, cases[i].force), cases[i].may_change);
        }
}

int main(void) {
        test_ipv4_prefix();
        test_ipv4_subnets();
        test_pci_mac();
        test_numbers_durations_sizes();
        test_speed();
        test_names();
        test_kernel_parameters();
        test_suggest();
        test_enums();
        test_mode_rule();
        return EXIT_SUCCESS;
}
