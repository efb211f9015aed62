/* SPDX-License-Identifier: MIT */
/* Tests for link matching: fixture sysfs trees (tests/data/hosts/links-*) with an E810 port, an igc
 * port, lo and a veth; and a host with two E810 ports. */
#include "snapshot/link-match.h"
#include "tests.h"

typedef struct Case {
        const char *host;
        LinkMatch match;
        int result;               /* 0, -ENOENT or -ENOTUNIQ */
        const char *ifname;       /* on success */
        const char *error_has[3]; /* substrings of the message on failure */
} Case;

static const Case cases[] = {
        { "links-e810", { .driver = (char *) "ice" }, 0, "enp194s0f0np0" },
        { "links-e810", { .pci = (char *) "0000:c2:00.0" }, 0, "enp194s0f0np0" },
        /* Upper-case hex from a hand-written profile still matches. */
        { "links-e810", { .pci = (char *) "0000:C2:00.0" }, 0, "enp194s0f0np0" },
        /* The fixture's address file is upper case, as some drivers print it. */
        { "links-e810", { .mac = (char *) "6c:fe:54:12:34:56" }, 0, "enp194s0f0np0" },
        { "links-e810", { .name = (char *) "enp194s0*" }, 0, "enp194s0f0np0" },
        { "links-e810", { .driver = (char *) "ice", .name = (char *) "enp*" }, 0, "enp194s0f0np0" },
        { "links-e810", { .driver = (char *) "igc" }, 0, "eno1" },
        /* Virtual devices match by name and mac, never by driver or pci. */
        { "links-e810", { .name = (char *) "veth0" }, 0, "veth0" },
        { "links-e810", { .mac = (char *) "3a:1b:2c:3d:4e:5f" }, 0, "veth0" },
        { "links-e810",
          { .driver = (char *) "veth" },
          -ENOENT,
          NULL,
          { "no network interface matches driver veth",
            "veth0 (virtual, mac 3a:1b:2c:3d:4e:5f)",
            "enp194s0f0np0 (driver ice, pci 0000:c2:00.0, mac 6c:fe:54:12:34:56)" } },
        { "links-e810",
          { .driver = (char *) "mlx5_core" },
          -ENOENT,
          NULL,
          { "no network interface matches driver mlx5_core; interfaces present: eno1 (driver igc" } },
        { "links-e810",
          { .driver = (char *) "ice", .pci = (char *) "0000:c2:00.1" },
          -ENOENT,
          NULL,
          { "driver ice, pci 0000:c2:00.1" } },
        { "links-e810",
          { .name = (char *) "en*" },
          -ENOTUNIQ,
          NULL,
          { "2 network interfaces match name en*: eno1 (driver igc",
            "enp194s0f0np0 (driver ice",
            "add pci or mac to the match" } },
        { "links-two-ice",
          { .driver = (char *) "ice" },
          -ENOTUNIQ,
          NULL,
          { "2 network interfaces match driver ice", "pci 0000:c2:00.0", "pci 0000:c2:00.1" } },
        { "links-two-ice", { .driver = (char *) "ice", .pci = (char *) "0000:c2:00.1" }, 0, "enp194s0f1np1" },
        { "links-two-ice", { .driver = (char *) "ice", .mac = (char *) "6C:FE:54:12:34:57" }, 0, "enp194s0f1np1" },
        { "no-such-host",
          { .driver = (char *) "ice" },
          -ENOENT,
          NULL,
          { "cannot list network interfaces in /sys/class/net" } },
};

static void run_case(const Case *t) {
        _cleanup_(freep) char *root = NULL, *ifname = NULL, *error = NULL;
        Host h;
        int r;

        ASSERT_TRUE(asprintf(&root, TEST_DATA_DIR "/hosts/%s", t->host) >= 0);
        h = (Host){ .root = root };

        r = link_match_resolve(&h, &t->match, &ifname, &error);
        if (r != t->result) {
                fprintf(stderr, "%s: got %d (%s), expected %d\n", t->host, r, strna(error), t->result);
                abort();
        }
        if (r == 0) {
                ASSERT_STR_EQ(ifname, t->ifname);
                ASSERT_TRUE(!error);
                return;
        }
        ASSERT_TRUE(!ifname);
        ASSERT_TRUE(error);
        for (size_t i = 0; i < ELEMENTSOF(t->error_has) && t->error_has[i]; i++)
                if (!strstr(error, t->error_has[i])) {
                        fprintf(stderr, "%s: message \"%s\" lacks \"%s\"\n", t->host, error, t->error_has[i]);
                        abort();
                }
}

static void test_describe(void) {
        _cleanup_(freep) char *a = NULL, *b = NULL;
        LinkMatch m = { .driver = (char *) "ice",
                        .pci = (char *) "0000:c2:00.0",
                        .mac = (char *) "6c:fe:54:12:34:56",
                        .name = (char *) "enp*" };
        LinkMatch empty = {};

        a = link_match_describe(&m);
        ASSERT_STR_EQ(a, "driver ice, pci 0000:c2:00.0, mac 6c:fe:54:12:34:56, name enp*");
        b = link_match_describe(&empty);
        ASSERT_STR_EQ(b, "an empty match");
}

static void test_list(void) {
        Host h = { .root = TEST_DATA_DIR "/hosts/links-e810" };
        NetdevInfo *a = NULL;
        size_t n = 0;

        ASSERT_OK(netdev_list(&h, &a, &n));
        ASSERT_INT_EQ(n, 4);
        /* Sorted by name, lower-case MAC, no driver or pci for virtual devices. */
        ASSERT_STR_EQ(a[0].name, "eno1");
        ASSERT_STR_EQ(a[1].name, "enp194s0f0np0");
        ASSERT_STR_EQ(a[1].driver, "ice");
        ASSERT_STR_EQ(a[1].pci, "0000:c2:00.0");
        ASSERT_STR_EQ(a[1].mac, "6c:fe:54:12:34:56");
        ASSERT_STR_EQ(a[2].name, "lo");
        ASSERT_TRUE(!a[2].driver && !a[2].pci);
        ASSERT_STR_EQ(a[3].name, "veth0");
        netdev_info_array_free(a, n);
}

/* mac: is the permanent address where the device has one (issue 31): the current one is the user
 * halod's to set (CAP_NET_ADMIN), and moving the profile's address onto another NIC must not move the
 * link there. A veth has no permanent address: its current one is all there is. */
static void test_mac_is_permanent(void) {
        NetdevInfo moved = { .name = (char *) "enp2s0",
                             .driver = (char *) "ice",
                             .pci = (char *) "0000:02:00.0",
                             .mac = (char *) "6c:fe:54:12:34:56",
                             .permanent_mac = (char *) "6c:fe:54:00:00:02" };
        NetdevInfo real = { .name = (char *) "enp194s0f0np0",
                            .driver = (char *) "ice",
                            .pci = (char *) "0000:c2:00.0",
                            .mac = (char *) "02:00:00:00:00:01",
                            .permanent_mac = (char *) "6c:fe:54:12:34:56" };
        NetdevInfo veth = { .name = (char *) "veth0", .mac = (char *) "3a:1b:2c:3d:4e:5f" };
        LinkMatch m = { .mac = (char *) "6C:FE:54:12:34:56" };
        LinkMatch v = { .mac = (char *) "3a:1b:2c:3d:4e:5f" };

        ASSERT_TRUE(!link_match_test(&m, &moved));
        ASSERT_TRUE(link_match_test(&m, &real));
        ASSERT_TRUE(link_match_test(&v, &veth));
}

int main(void) {
        for (size_t i = 0; i < ELEMENTSOF(cases); i++)
                run_case(&cases[i]);
        test_describe();
        test_list();
        test_mac_is_permanent();
        return 0;
}
