/* SPDX-License-Identifier: MIT */
/* The networkd backend's pure parts: the text of halod's .network file (exact), the [Match] reader
 * against a netdev by systemd.network(5)'s rules, and netplan's ethernets (the Ubuntu guide's
 * 01-rdma.yaml among them). */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>

#include "apply/networkd-file.h"
#include "basic/strv.h"
#include "net/netplan-match.h"
#include "net/networkd-match.h"
#include "tests.h"

static Ipv4Prefix prefix(const char *a, uint8_t len) {
        Ipv4Prefix p = { .prefixlen = len };

        ASSERT_TRUE(inet_pton(AF_INET, a, &p.address) == 1);
        return p;
}

static void test_file_text(void) {
        NodeRoute routes[] = {
                { .to = prefix("10.0.3.0", 24), .link = (char *) "rdma0", .metric = 50, .has_metric = true },
                { .to = prefix("10.0.4.0", 24), .link = (char *) "rdma1" },
                { .to = prefix("10.0.5.0", 24), .link = (char *) "rdma0" },
        };
        _cleanup_(freep) char *text = NULL, *veth = NULL, *new_key = NULL;
        NetworkdFileConfig cfg = {
                .link = "rdma0",
                .ifname = "enp194s0f0np0",
                .permanent_mac = "6c:fe:54:00:00:01",
                .mtu = 9000,
                .address = prefix("192.168.100.1", 30),
                .routes = routes,
                .n_routes = ELEMENTSOF(routes),
                .forwarding = true,
        };

        ASSERT_TRUE(inet_pton(AF_INET, "192.168.100.2", &routes[0].via) == 1);
        ASSERT_TRUE(inet_pton(AF_INET, "192.168.101.2", &routes[1].via) == 1);
        ASSERT_TRUE(inet_pton(AF_INET, "192.168.100.2", &routes[2].via) == 1);

        ASSERT_OK(networkd_file_text(&cfg, &text));
        ASSERT_STR_EQ(
                text,
                "# Written by halod for link rdma0 of its profile; halod rewrites it on every apply.\n"
                "# Edit the profile instead: see halod(8), BACKENDS.\n"
                "\n"
                "[Match]\n"
                "PermanentMACAddress=6c:fe:54:00:00:01\n"
                "\n"
                "[Link]\n"
                "MTUBytes=9000\n"
                "\n"
                "[Network]\n"
                "Address=192.168.100.1/30\n"
                "ConfigureWithoutCarrier=yes\n"
                "IPForward=ipv4\n"
                "\n"
                "[Route]\n"
                "Destination=10.0.3.0/24\n"
                "Gateway=192.168.100.2\n"
                "Metric=50\n"
                "\n"
                "[Route]\n"
                "Destination=10.0.5.0/24\n"
                "Gateway=192.168.100.2\n");

        /* systemd 256 and later: the link's own switch. */
        cfg.forwarding_key = NETWORKD_FORWARDING_IPV4FORWARDING;
        ASSERT_OK(networkd_file_text(&cfg, &new_key));
        ASSERT_TRUE(strstr(new_key, "\nIPv4Forwarding=yes\n"));
        ASSERT_TRUE(!strstr(new_key, "IPForward="));

        /* A veth: no permanent address, so the name; no MTU, no routes, no forwarding. */
        cfg = (NetworkdFileConfig){ .link = "rdma0", .ifname = "veth0", .address = prefix("10.0.0.1", 24) };
        ASSERT_OK(networkd_file_text(&cfg, &veth));
        ASSERT_STR_EQ(
                veth,
                "# Written by halod for link rdma0 of its profile; halod rewrites it on every apply.\n"
                "# Edit the profile instead: see halod(8), BACKENDS.\n"
                "\n"
                "[Match]\n"
                "Name=veth0\n"
                "\n"
                "[Network]\n"
                "Address=10.0.0.1/24\n"
                "ConfigureWithoutCarrier=yes\n");

        cfg.ifname = NULL;
        ASSERT_INT_EQ(networkd_file_text(&cfg, &text), -EINVAL);
}

static void test_match_on_permanent(void) {
        static const struct {
                int permanent_result;
                int want;
        } cases[] = {
                { 0, 1 },                         /* an E810's address: PermanentMACAddress= */
                { -ENODATA, 0 },                  /* a veth answers zeros: Name= */
                { -EAFNOSUPPORT, -EAFNOSUPPORT }, /* a sandbox without AF_INET: an error, not Name= */
                { -EPERM, -EPERM },
                { -ENODEV, -ENODEV },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++)
                ASSERT_INT_EQ(networkd_match_on_permanent(cases[i].permanent_result), cases[i].want);
}

static void test_file_name(void) {
        _cleanup_(freep) char *n = networkd_file_name("rdma0");

        ASSERT_STR_EQ(n, "05-halod-rdma0.network");
        ASSERT_TRUE(networkd_file_name_is_halod(n));
        ASSERT_TRUE(!networkd_file_name_is_halod("10-netplan-rdma0.network"));
        /* Why it wins: networkd takes the first matching file by name. */
        ASSERT_TRUE(strcmp(n, "10-netplan-rdma0.network") < 0);
}

static void test_match(void) {
        static const NetdevIdentity ice = {
                .ifname = "enp194s0f0np0",
                .mac = "6c:fe:54:00:00:01",
                .permanent_mac = "6c:fe:54:00:00:01",
                .driver = "ice",
                .type = "ether",
        };
        static const NetdevIdentity veth = { .ifname = "veth0", .mac = "d6:8e:42:86:1d:96", .type = "ether" };
        static const struct {
                const char *text;
                bool ice, veth;
        } cases[] = {
                { "[Match]\nName=enp194s0f0np0\n", true, false },
                { "[Match]\nName=enp* veth*\n", true, true },
                { "[Match]\nName=!enp*\n", false, true },
                { "[Match]\nName=enp*\nName=\n", false, false }, /* cleared: no key left */
                { "[Match]\nName=\nName=veth0\n", false, true },
                { "# comment\n[Match]\n  Name = veth0  \n; another\n", false, true },
                { "[Match]\nMACAddress=6C:FE:54:00:00:01\n", true, false },
                { "[Match]\nPermanentMACAddress=6c:fe:54:00:00:01\n", true, false },
                { "[Match]\nPermanentMACAddress=d6:8e:42:86:1d:96\n", false, false }, /* a veth has none */
                { "[Match]\nDriver=ice\nName=enp*\n", true, false },
                { "[Match]\nDriver=mlx5_core\n", false, true }, /* the veth's driver is unknown here */
                { "[Match]\nType=wlan\nWLANInterfaceType=ad-hoc\n", false, false },
                { "[Match]\nName=ve-*\nDriver=veth\n", false, false },
                { "[Match]\nVirtualization=container\nName=host0\n", false, false },
                { "[Match]\nPath=pci-0000:c2:00.0\n", true, true }, /* not judged: taken as matching */
                { "[Match]\nPath=pci-0000:c2:00.0\nHost=\n", true, true }, /* Host= resets Host= only */
                { "[Match]\nPath=pci-0000:c2:00.0\nPath=\nName=veth0\n", false, true }, /* Path= reset */
                { "[Network]\nAddress=10.0.0.1/24\n", false, false }, /* no [Match]: networkd ignores it */
                { "", false, false },
                { "[Match]\n[Network]\nName=veth0\n", false, false },
                { "[Match]\nName=veth0\n[Match]\nDriver=ice\n", false, true }, /* the veth's driver is unknown */
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                bool m;

                ASSERT_OK(networkd_file_matches(cases[i].text, &ice, &m));
                if (m != cases[i].ice) {
                        fprintf(stderr, "case %zu (ice): %s\n", i, cases[i].text);
                        ASSERT_TRUE(m == cases[i].ice);
                }
                ASSERT_OK(networkd_file_matches(cases[i].text, &veth, &m));
                if (m != cases[i].veth) {
                        fprintf(stderr, "case %zu (veth): %s\n", i, cases[i].text);
                        ASSERT_TRUE(m == cases[i].veth);
                }
        }
}

static void assert_netplan(const char *text, const NetdevIdentity *id, const char *want) {
        _cleanup_(strv_freep) char **ids = NULL;
        _cleanup_(freep) char *joined = NULL;

        ASSERT_OK(netplan_file_matches(text, strlen(text), id, &ids));
        joined = ids ? strv_join(ids, ",") : strdup("");
        ASSERT_STR_EQ(joined, want);
}

static void test_netplan(void) {
        /* The guide's file for a ConnectX node on Ubuntu 24.04. */
        static const char guide[] =
                "network:\n"
                "  version: 2\n"
                "  renderer: networkd\n"
                "  ethernets:\n"
                "    rdma0:\n"
                "      match: { driver: mlx5_core, macaddress: \"b8:3f:d2:00:00:01\" }\n"
                "      set-name: rdma0\n"
                "      mtu: 9000\n"
                "      addresses: [192.168.100.1/30]\n"
                "    rdma1:\n"
                "      match: { driver: mlx5_core, macaddress: \"b8:3f:d2:00:00:02\" }\n"
                "      set-name: rdma1\n"
                "      mtu: 9000\n"
                "    eno1:\n"
                "      dhcp4: true\n";
        static const NetdevIdentity cx0 = {
                .ifname = "rdma0", .mac = "b8:3f:d2:00:00:01", .driver = "mlx5_core", .type = "ether"
        };
        static const NetdevIdentity renamed = {
                /* a bond took over the MAC; the permanent one still matches */
                .ifname = "rdma1",
                .mac = "b8:3f:d2:00:00:09",
                .permanent_mac = "b8:3f:d2:00:00:02",
                .driver = "mlx5_core",
        };
        static const NetdevIdentity eno1 = { .ifname = "eno1", .driver = "igb" };
        static const NetdevIdentity other = { .ifname = "veth0", .mac = "d6:8e:42:86:1d:96", .driver = "veth" };
        _cleanup_(strv_freep) char **ids = NULL;

        assert_netplan(guide, &cx0, "rdma0");
        assert_netplan(guide, &renamed, "rdma1");
        assert_netplan(guide, &eno1, "eno1");
        assert_netplan(guide, &other, "");
        assert_netplan("network:\n  ethernets:\n    all:\n      match: { name: \"en*\" }\n", &eno1, "all");
        assert_netplan(
                "network:\n  ethernets:\n    x:\n      match: { driver: [ice, mlx5_core] }\n", &cx0, "x");
        assert_netplan("network:\n  ethernets:\n    x:\n      match: { driver: [ice] }\n", &cx0, "");
        assert_netplan("network: {}\n", &cx0, "");
        assert_netplan("", &cx0, "");
        assert_netplan("[1, 2]\n", &cx0, "");
        ASSERT_INT_EQ(netplan_file_matches("network: [\n", 11, &cx0, &ids), -EBADMSG);
}

int main(void) {
        test_file_text();
        test_match_on_permanent();
        test_file_name();
        test_match();
        test_netplan();
        return 0;
}
