/* SPDX-License-Identifier: MIT */
/* Tests the rdma. checks: fixture host trees for sysfs, the libibverbs test double for the devices. */
#include <arpa/inet.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "basic/fileio.h"
#include "basic/strv.h"
#include "check-read.h"
#include "check-test.h"
#include "check/check-rdma.h"
#include "check/check-registry.h"
#include "fake-verbs.h"
#include "rdma/rdma-sysfs-read.h"
#include "tests.h"

#define HOSTS TEST_DATA_DIR "/hosts/"
#define IFINDEX 4

static const char *profile_yaml(const char *required, const char *min_mtu) {
        static char buf[1024];

        snprintf(
                buf,
                sizeof(buf),
                "cluster: test\n"
                "links:\n"
                "  rdma0:\n"
                "    match: { driver: ice }\n"
                "nic: { pci-ids: [\"8086:1592\"], driver: ice }\n"
                "rdma: { required: %s, gid: roce-v2, min-active-mtu: %s, memlock: unlimited }\n"
                "nodes:\n"
                "  head: { hostname: halo-1, links: { rdma0: 192.168.100.1/30 } }\n",
                required,
                min_mtu);
        return buf;
}

static void run(const char *tree, const char *yaml, const CheckExpect *expect, size_t n) {
        _cleanup_(profile_freep) Profile *p = test_profile_load(yaml);
        Host h = { .root = tree };
        CheckList l = {};
        NodeContext c = { .host = &h, .profile = p, .node = profile_find_node(p, "head") };

        ASSERT_TRUE(c.node);
        ASSERT_OK(test_check_group(&c, NULL, check_rdma, &l));
        ASSERT_INT_EQ(l.n_checks, check_registry_count(check_rdma));
        assert_checks(&l, expect, n, tree);
        check_list_done(&l);
        ASSERT_INT_EQ(fake_verbs_open_contexts(), 0);
}

/* The RDMA device of the reference board as sysfs shows it (tests/data/hosts/make-nic-fixtures.py). */
#define IRDMA "sys/class/infiniband/irdma0"
#define IRDMA_PORT IRDMA "/ports/1"
#define MLX5_0 "sys/class/infiniband/mlx5_0/ports/1"
#define MLX5_1 "sys/class/infiniband/mlx5_1/ports/1"
#define ZERO_GID "0000:0000:0000:0000:0000:0000:0000:0000\n"

/* The middle node of a daisy chain on a dual-port ConnectX-5: rdma0 on function .0, rdma1 on .1. */
static const char connectx_yaml[] =
        "cluster: test\n"
        "links:\n"
        "  rdma0: { mtu: 9000 }\n"
        "  rdma1: { mtu: 9000 }\n"
        "nic: { pci-ids: [\"15b3:1017\"], driver: mlx5_core }\n"
        "rdma: { required: true, gid: roce-v2, min-active-mtu: 4096, memlock: unlimited }\n"
        "nodes:\n"
        "  head:\n"
        "    links:\n"
        "      rdma0: { address: 10.0.1.2/24, match: { pci: \"0000:01:00.0\" } }\n"
        "      rdma1: { address: 10.0.2.2/24, match: { name: enp1s0f1np1 } }\n";

/* soft-RoCE in a VM: rxe0 on the virtio NIC. */
static const char rxe_yaml[] =
        "cluster: test\n"
        "links:\n"
        "  rdma0: { match: { name: enp0s3 } }\n"
        "rdma: { required: true, gid: roce-v2, min-active-mtu: 4096 }\n"
        "nodes:\n"
        "  head: { links: { rdma0: 192.168.100.1/30 } }\n";

static const char realtek_yaml[] =
        "cluster: t\nlinks:\n  rdma0:\n    match: { name: enp1s0 }\n"
        "rdma: { required: true }\n"
        "nodes:\n  head: { links: { rdma0: 192.168.100.1/30 } }\n";

typedef struct TreeCase {
        const char *name;
        const char *tree; /* below tests/data/hosts */
        TreeEdit edits[8];
        const char *yaml; /* NULL: the E810 profile, rdma.required true, min-active-mtu 4096 */
        CheckExpect expect[6];
} TreeCase;

static const TreeCase tree_cases[] = {
        { "E810, irdma in RoCE v2 mode",
          "nic-e810-x4",
          {},
          NULL,
          { { "rdma.driver",
              CHECK_PASS,
              "irdma is loaded, and nothing in modprobe.d or on the kernel command line keeps it from loading with "
              "ice at boot" },
            { "rdma.device", CHECK_PASS, "irdma0 port 1 on enp194s0np0" },
            { "rdma.port", CHECK_PASS, "irdma0 port 1 is ACTIVE, LINK_UP" },
            { "rdma.gid", CHECK_PASS, "RoCE v2 GID index 1 for 192.168.100.1" },
            /* sysfs has no active_mtu: irdma's rule on the netdev's 9000 gives 4096 */
            { "rdma.mtu",
              CHECK_PASS,
              "active MTU 4096 on irdma0 port 1 (enp194s0np0 MTU 9000); from the netdev MTU by irdma's rule, as "
              "sysfs has no active MTU" },
            /* the fixture has no /dev/infiniband */
            { "rdma.memlock", CHECK_FAIL, "no /dev/infiniband/uverbs* device" } } },
        { "E810, port down",
          "nic-e810-x4",
          { { IRDMA_PORT "/state", "1: DOWN\n" }, { IRDMA_PORT "/phys_state", "3: Disabled\n" } },
          NULL,
          { { "rdma.device", CHECK_PASS, NULL },
            { "rdma.port", CHECK_FAIL, "irdma0 port 1 is DOWN (physical state DISABLED): check the cable" } } },
        { "E810, port down, RDMA optional",
          "nic-e810-x4",
          { { IRDMA_PORT "/state", "1: DOWN\n" }, { IRDMA_PORT "/phys_state", "3: Disabled\n" } },
          "cluster: test\nlinks:\n  rdma0:\n    match: { driver: ice }\n"
          "rdma: { required: false, gid: roce-v2, min-active-mtu: 4096, memlock: unlimited }\n"
          "nodes:\n  head: { links: { rdma0: 192.168.100.1/30 } }\n",
          { { "rdma.port", CHECK_WARN, "is DOWN" }, { "rdma.memlock", CHECK_WARN, NULL } } },
        /* irdma's table before the address is configured: the link-local GID alone, RoCE v2. */
        { "E810, no GID for the address yet",
          "nic-e810-x4",
          { { IRDMA_PORT "/gids/1", ZERO_GID },
            { IRDMA_PORT "/gid_attrs/types/1", NULL },
            { IRDMA_PORT "/gid_attrs/ndevs/1", NULL } },
          NULL,
          { { "rdma.device", CHECK_PASS, "irdma0 port 1 on enp194s0np0" },
            { "rdma.gid",
              CHECK_FAIL,
              "no RoCE v2 GID for 192.168.100.1 on irdma0 port 1 (table: 0 fe80::6efe:54ff:fe12:3456 RoCE v2): "
              "is 192.168.100.1 configured on enp194s0np0?" } } },
        /* A profile asking for RoCE v1 on an E810: irdma registers RoCE v2 only. */
        { "E810, RoCE v1 wanted",
          "nic-e810-x4",
          {},
          "cluster: test\nlinks:\n  rdma0:\n    match: { driver: ice }\n"
          "rdma: { required: true, gid: roce-v1, min-active-mtu: 4096, memlock: unlimited }\n"
          "nodes:\n  head: { links: { rdma0: 192.168.100.1/30 } }\n",
          { { "rdma.gid",
              CHECK_FAIL,
              "irdma0 has a RoCE v2 GID (index 1) for 192.168.100.1 but no RoCE v1 one: the kernel lists an entry "
              "of each type the port supports, and irdma0 port 1 does not do RoCE v1 (irdma and rxe register RoCE "
              "v2 only); set rdma.gid: roce-v2, the type it has" } } },
        /* The address went and came back after another one: its entry is now 2. */
        { "E810, table renumbered",
          "nic-e810-x4",
          { { IRDMA_PORT "/gids/1", "0000:0000:0000:0000:0000:ffff:c0a8:6501\n" },
            { IRDMA_PORT "/gids/2", "0000:0000:0000:0000:0000:ffff:c0a8:6401\n" },
            { IRDMA_PORT "/gid_attrs/types/2", "RoCE v2\n" },
            { IRDMA_PORT "/gid_attrs/ndevs/2", "enp194s0np0\n" } },
          NULL,
          { { "rdma.gid", CHECK_PASS, "RoCE v2 GID index 2 for 192.168.100.1" } } },
        { "E810, netdev MTU 1500",
          "nic-e810-x4",
          { { "sys/class/net/enp194s0np0/mtu", "1500\n" } },
          NULL,
          { { "rdma.mtu",
              CHECK_FAIL,
              "active MTU 1024 < 4096 (rdma.min-active-mtu) on irdma0 port 1: enp194s0np0's MTU is 1500; an "
              "active MTU of 4096 needs a netdev MTU of at least 4096 (set the link's mtu, e.g. 9000); from the "
              "netdev MTU by irdma's rule" } } },
        /* irdma takes no headroom off: 4150 still gives 4096, where mlx5 and rxe give 2048. */
        { "E810, netdev MTU 4150",
          "nic-e810-x4",
          { { "sys/class/net/enp194s0np0/mtu", "4150\n" } },
          NULL,
          { { "rdma.mtu", CHECK_PASS, "active MTU 4096 on irdma0 port 1 (enp194s0np0 MTU 4150); from" } } },
        /* The netdev's MTU is all the active MTU can be derived from: without it, no verdict. */
        { "E810, netdev MTU unreadable",
          "nic-e810-x4",
          { { "sys/class/net/enp194s0np0/mtu", NULL } },
          NULL,
          { { "rdma.mtu",
              CHECK_WARN,
              "could not look at the MTU of irdma0 port 1: sysfs has no active MTU, and the MTU of enp194s0np0, "
              "from which the driver computes it, could not be read" } } },
        /* A tree that left out an attribute of the port (or a copy that could not read it). */
        { "E810, port state missing",
          "nic-e810-x4",
          { { IRDMA_PORT "/state", NULL } },
          NULL,
          { { "rdma.device",
              CHECK_FAIL,
              "cannot read the RDMA device of enp194s0np0 from the tree's /sys/class/infiniband: No such file or "
              "directory" } } },
        { "E810, port state garbled",
          "nic-e810-x4",
          { { IRDMA_PORT "/state", "ACTIVE\n" } },
          NULL,
          { { "rdma.device",
              CHECK_FAIL,
              "cannot read the RDMA device of enp194s0np0 from the tree's /sys/class/infiniband: an attribute of its "
              "port is not as ib_core writes it (state \"4: ACTIVE\", phys_state \"5: LinkUp\")" } } },
        { "E810, irdma in iWARP mode",
          "nic-e810-iwarp",
          {},
          NULL,
          { { "rdma.driver", CHECK_PASS, "irdma is loaded" },
            { "rdma.device",
              CHECK_FAIL,
              "irdma0 port 1 on enp194s0np0 runs iWARP (node type RNIC, on ice.iwarp.0), not RoCE, so it has no "
              "roce-v2 GID (rdma.gid): switch ice's RDMA protocol with `devlink dev param set pci/0000:c2:00.0 name "
              "enable_iwarp value false cmode runtime`, then `devlink dev param set pci/0000:c2:00.0 name "
              "enable_roce value true cmode runtime`" },
            { "rdma.port", CHECK_PASS, "irdma0 port 1 is ACTIVE, LINK_UP" },
            { "rdma.gid", CHECK_SKIP, "irdma0 port 1 runs iWARP, whose GID is the MAC address" } } },
        { "E810, no irdma device",
          "nic-e810-x4",
          { { IRDMA, NULL } },
          NULL,
          { { "rdma.device",
              CHECK_FAIL,
              "no RDMA device on enp194s0np0: load the RDMA driver (`modprobe irdma` for E810)" },
            { "rdma.port", CHECK_SKIP, "see rdma.device" },
            { "rdma.gid", CHECK_SKIP, NULL },
            { "rdma.mtu", CHECK_SKIP, NULL } } },
        { "E810, no RDMA in the kernel",
          "nic-e810-x4",
          { { "sys/class/infiniband", NULL } },
          NULL,
          { { "rdma.device", CHECK_FAIL, "(the kernel offers no RDMA devices at all)" } } },
        /* Without the kernel log (halod's sandbox hides it), a missing RDMA device on an ice NIC may be Safe
         * Mode or a missing irdma: the failure says that it could not look. */
        { "E810, no irdma device, no kernel log",
          "nic-e810-x4",
          { { IRDMA, NULL }, { "dev/kmsg", NULL } },
          NULL,
          { { "rdma.device",
              CHECK_FAIL,
              "no RDMA device on enp194s0np0: load the RDMA driver (`modprobe irdma` for E810), then `rdma link` "
              "lists it; could not look at the kernel log (/dev/kmsg: No such file or directory), which says "
              "whether ice runs it in Safe Mode: `sudo haloctl check --only rdma.device` reads it" } } },
        /* irdma is not loaded because ice offers it no device: modprobe would not help. */
        { "E810 in Safe Mode",
          "nic-e810-safe-mode",
          {},
          NULL,
          { { "rdma.driver",
              CHECK_FAIL,
              "irdma is not loaded: ice runs 0000:c2:00.0 in Safe Mode (ice found no DDP package file; kernel log), "
              "which offers irdma no RDMA device, so loading it by hand changes nothing; see nic.driver" },
            { "rdma.device",
              CHECK_FAIL,
              "ice runs 0000:c2:00.0 in Safe Mode (ice found no DDP package file; kernel log)" } } },
        { "no E810",
          "nic-absent",
          {},
          NULL,
          { { "rdma.driver", CHECK_SKIP, "no fabric NIC found for link rdma0, so no RDMA module" },
            { "rdma.device", CHECK_FAIL, "no RDMA device: no fabric NIC found for link rdma0 (see nic.pci)" },
            { "rdma.gid", CHECK_SKIP, NULL } } },
        /* A NIC that is neither family: both modules are named. */
        { "Realtek",
          "nic-absent",
          {},
          realtek_yaml,
          { { "rdma.device",
              CHECK_FAIL,
              "no RDMA device on enp1s0 (the kernel offers no RDMA devices at all): load the RDMA driver (`modprobe "
              "irdma` for E810, `modprobe mlx5_ib` for ConnectX), then `rdma link` lists it" } } },
        /* mlx5: one device per port, a v1 and a v2 GID per address; port 1 has no cable. */
        { "ConnectX-5, two ports",
          "nic-cx5-dual-x4",
          {},
          connectx_yaml,
          { { "rdma.driver", CHECK_PASS, "mlx5_ib is loaded" },
            { "rdma.device",
              CHECK_PASS,
              "rdma0: mlx5_0 port 1 on enp1s0f0np0; rdma1: mlx5_1 port 1 on enp1s0f1np1" },
            { "rdma.port",
              CHECK_FAIL,
              "rdma0: mlx5_0 port 1 is ACTIVE, LINK_UP; rdma1: mlx5_1 port 1 is DOWN (physical state DISABLED)" },
            /* the v2 entry of the address is index 3, not the v1 entry at 2 */
            { "rdma.gid",
              CHECK_PASS,
              "rdma0: RoCE v2 GID index 3 for 10.0.1.2; rdma1: RoCE v2 GID index 3 for 10.0.2.2" },
            { "rdma.mtu",
              CHECK_PASS,
              "rdma0: active MTU 4096 on mlx5_0 port 1 (enp1s0f0np0 MTU 9000, less mlx5's 96 bytes of RoCE "
              "headers); from the netdev MTU by mlx5's rule" },
            { "rdma.memlock",
              CHECK_FAIL,
              "no /dev/infiniband/uverbs* device: no RDMA driver is loaded (`modprobe mlx5_ib` for ConnectX)" } } },
        /* Firmware that reports RoCE v1 only: one v1 entry per address and no v2 one. The fix is the NIC's,
         * not rdma_cm's default_roce_mode, which adds no entry. */
        { "ConnectX-5, RoCE v1 only",
          "nic-cx5-dual-x4",
          { { MLX5_0 "/gids/1", ZERO_GID },
            { MLX5_0 "/gid_attrs/types/1", NULL },
            { MLX5_0 "/gids/3", ZERO_GID },
            { MLX5_0 "/gid_attrs/types/3", NULL } },
          connectx_yaml,
          { { "rdma.gid",
              CHECK_FAIL,
              "rdma0: mlx5_0 has a RoCE v1 GID (index 2) for 10.0.1.2 but no RoCE v2 one: the kernel lists an "
              "entry of each type the port supports, so mlx5_0 port 1 does not do RoCE v2 (irdma, rxe and mlx5 on "
              "a ConnectX-4 or newer do; mlx5 lists v2 only when the firmware reports it); no rdma_cm setting adds "
              "the entry. Update the NIC's firmware or use a NIC with RoCE v2, or set rdma.gid: roce-v1 when every "
              "node runs RoCE v1; rdma1: RoCE v2 GID index 3 for 10.0.2.2" } } },
        /* No GID names a netdev (none is configured yet): each link's PCI function finds its device. */
        { "ConnectX-5, found by PCI function",
          "nic-cx5-dual-x4",
          { { MLX5_0 "/gid_attrs/ndevs", NULL }, { MLX5_1 "/gid_attrs/ndevs", NULL } },
          connectx_yaml,
          { { "rdma.device",
              CHECK_PASS,
              "rdma0: mlx5_0 port 1 on enp1s0f0np0; rdma1: mlx5_1 port 1 on enp1s0f1np1" } } },
        { "ConnectX-5, no mlx5_ib devices",
          "nic-cx5-dual-x4",
          { { "sys/class/infiniband/mlx5_0", NULL }, { "sys/class/infiniband/mlx5_1", NULL } },
          connectx_yaml,
          { { "rdma.device",
              CHECK_FAIL,
              "rdma0: no RDMA device on enp1s0f0np0: load the RDMA driver (`modprobe mlx5_ib` for ConnectX), then "
              "`rdma link` lists it; rdma1: no RDMA device on enp1s0f1np1: load the RDMA driver (`modprobe "
              "mlx5_ib` for ConnectX), then `rdma link` lists it" } } },
        /* ice's kernel log says nothing about a ConnectX: without it, nothing is said about it. */
        { "ConnectX-5, no mlx5_ib devices, no kernel log",
          "nic-cx5-dual-x4",
          { { "sys/class/infiniband/mlx5_0", NULL },
            { "sys/class/infiniband/mlx5_1", NULL },
            { "dev/kmsg", NULL } },
          connectx_yaml,
          { { "rdma.device",
              CHECK_FAIL,
              "rdma0: no RDMA device on enp1s0f0np0: load the RDMA driver (`modprobe mlx5_ib` for ConnectX), then "
              "`rdma link` lists it; rdma1" } } },
        /* rxe: no PCI parent, its netdev in "parent", RoCE v2 only, 80 bytes of headroom. */
        { "rxe on virtio",
          "nic-rxe-virtio",
          {},
          rxe_yaml,
          { { "rdma.device", CHECK_PASS, "rxe0 port 1 on enp0s3" },
            { "rdma.port", CHECK_PASS, "rxe0 port 1 is ACTIVE, LINK_UP" },
            { "rdma.gid", CHECK_PASS, "RoCE v2 GID index 1 for 192.168.100.1" },
            { "rdma.mtu",
              CHECK_PASS,
              "active MTU 4096 on rxe0 port 1 (enp0s3 MTU 9000, less rxe's 80 bytes of RoCE headers); from the "
              "netdev MTU by rxe's rule" } } },
        { "rxe on virtio, MTU 4150",
          "nic-rxe-virtio",
          { { "sys/class/net/enp0s3/mtu", "4150\n" } },
          rxe_yaml,
          { { "rdma.mtu",
              CHECK_FAIL,
              "active MTU 2048 < 4096 (rdma.min-active-mtu) on rxe0 port 1: enp0s3's MTU is 4150; an active MTU "
              "of 4096 needs a netdev MTU of at least 4176 (rxe takes 80 bytes of RoCE headers off it)" } } },
        /* No GID on the netdev yet: rxe's "parent" names it. */
        { "rxe on virtio, found by parent",
          "nic-rxe-virtio",
          { { "sys/class/infiniband/rxe0/ports/1/gid_attrs", NULL } },
          rxe_yaml,
          { { "rdma.device", CHECK_PASS, "rxe0 port 1 on enp0s3" },
            { "rdma.gid", CHECK_FAIL, "no RoCE v2 GID for 192.168.100.1 on rxe0 port 1 (table: empty)" } } },
};

/* ib_core's attributes as its sysfs.c prints them, and what is not. */
static void test_sysfs_parsers(void) {
        static const struct {
                const char *text;
                int r;
                unsigned value;
        } numbered[] = {
                { "4: ACTIVE", 0, 4 },
                { "1: DOWN", 0, 1 },
                { "5: LinkUp", 0, 5 },
                { "3: Disabled", 0, 3 },
                { "1: CA", 0, 1 },
                { "4: RNIC", 0, 4 },
                { "ACTIVE", -EBADMSG },
                { "4 ACTIVE", -EBADMSG },
                { "-1: x", -EBADMSG },
                { "", -EBADMSG },
                { "99999999999: x", -EBADMSG },
        };
        static const struct {
                const char *text;
                int r;
                const char *address;
        } gids[] = {
                { "fe80:0000:0000:0000:6efe:54ff:fe12:3456", 0, "fe80::6efe:54ff:fe12:3456" },
                { "0000:0000:0000:0000:0000:ffff:c0a8:6401", 0, "::ffff:192.168.100.1" },
                { "6cfe:5412:3456:0000:0000:0000:0000:0000", 0, "6cfe:5412:3456::" },
                { "FE80:0000:0000:0000:0000:0000:0000:0001", 0, "fe80::1" },
                { "fe80::1", -EBADMSG },
                { "fe80:0000:0000:0000:6efe:54ff:fe12:3456:", -EBADMSG },
                { "fe80:0000:0000:0000:6efe:54ff:fe12", -EBADMSG },
                { "fe80:0000:0000:0000:6efe:54ff:fe12:345g", -EBADMSG },
        };
        RdmaGidType t;
        unsigned u;

        for (size_t i = 0; i < ELEMENTSOF(numbered); i++) {
                int r = rdma_sysfs_parse_numbered(numbered[i].text, &u);

                if (r != numbered[i].r || (r == 0 && u != numbered[i].value)) {
                        fprintf(stderr, "numbered \"%s\": got %d %u\n", numbered[i].text, r, u);
                        abort();
                }
        }
        for (size_t i = 0; i < ELEMENTSOF(gids); i++) {
                struct in6_addr a, want;
                int r = rdma_sysfs_parse_gid(gids[i].text, &a);

                if (r != gids[i].r ||
                    (r == 0 &&
                     (inet_pton(AF_INET6, gids[i].address, &want) != 1 || memcmp(&a, &want, sizeof(a)) != 0))) {
                        fprintf(stderr, "gid \"%s\": got %d\n", gids[i].text, r);
                        abort();
                }
        }
        ASSERT_OK(rdma_sysfs_parse_gid_type("RoCE v2", RDMA_LINK_LAYER_ETHERNET, &t));
        ASSERT_INT_EQ(t, RDMA_GID_ROCE_V2);
        ASSERT_OK(rdma_sysfs_parse_gid_type("IB/RoCE v1", RDMA_LINK_LAYER_ETHERNET, &t));
        ASSERT_INT_EQ(t, RDMA_GID_ROCE_V1);
        ASSERT_OK(rdma_sysfs_parse_gid_type("IB/RoCE v1", RDMA_LINK_LAYER_INFINIBAND, &t));
        ASSERT_INT_EQ(t, RDMA_GID_IB);
        ASSERT_INT_EQ(rdma_sysfs_parse_gid_type("RoCE v3", RDMA_LINK_LAYER_ETHERNET, &t), -EBADMSG);
        ASSERT_OK(rdma_sysfs_parse_link_layer("Ethernet", &u));
        ASSERT_INT_EQ(u, RDMA_LINK_LAYER_ETHERNET);
        ASSERT_OK(rdma_sysfs_parse_link_layer("InfiniBand", &u));
        ASSERT_INT_EQ(u, RDMA_LINK_LAYER_INFINIBAND);
        ASSERT_INT_EQ(rdma_sysfs_parse_link_layer("ethernet", &u), -EBADMSG);
}

/* The rdma. checks of each case's tree: every fact read from its sysfs, none from libibverbs. */
static void test_trees(void) {
        for (size_t i = 0; i < ELEMENTSOF(tree_cases); i++) {
                const TreeCase *t = &tree_cases[i];
                _cleanup_(freep) char *base = NULL;
                size_t n_edits = 0, n_expect = 0;
                char *root;

                while (n_edits < ELEMENTSOF(t->edits) && t->edits[n_edits].path)
                        n_edits++;
                while (n_expect < ELEMENTSOF(t->expect) && t->expect[n_expect].id)
                        n_expect++;
                ASSERT_TRUE(asprintf(&base, HOSTS "%s", t->tree) >= 0);
                root = copy_tree_edited(base, t->edits, n_edits);
                fprintf(stderr, "test-check-rdma: %s\n", t->name);
                fake_verbs_setup(NULL, 0, ENOSYS); /* the running kernel's devices must not count */
                run(root, t->yaml ?: profile_yaml("true", "4096"), t->expect, n_expect);
                ASSERT_TRUE(!fake_verbs_called());
                remove_tree(root);
        }
}

static void test_no_rdma_section(void) {
        static const char yaml[] =
                "cluster: t\nlinks:\n  rdma0:\n    match: { driver: ice }\n"
                "nodes:\n  head: { links: { rdma0: 192.168.100.1/30 } }\n";
        static const CheckExpect e[] = {
                { "rdma.device", CHECK_SKIP, "the profile has no rdma: section" },
                { "rdma.memlock", CHECK_SKIP, "the profile has no rdma: section" },
        };

        run(HOSTS "nic-e810-x4", yaml, e, ELEMENTSOF(e));
}

static void test_mtu_evaluate(void) {
        static const struct {
                unsigned active, max, netdev, min;
                CheckOutcome outcome;
        } cases[] = {
                { 4096, 4096, 9000, 4096, CHECK_PASS },
                { 4096, 4096, 4200, 4096, CHECK_PASS }, /* 4200 - 96 = 4104: room for 4096 */
                { 2048, 4096, 4150, 0, CHECK_PASS },    /* mlx5 and rxe subtract the headers */
                { 4096, 4096, 4150, 0, CHECK_PASS },    /* irdma does not */
                { 1024, 4096, 1500, 0, CHECK_PASS },
                { 1024, 4096, 1500, 4096, CHECK_FAIL },
                { 1024, 4096, 9000, 0, CHECK_WARN },
                { 4096, 4096, 1500, 0, CHECK_WARN },    /* more than the netdev can carry */
                { 2048, 2048, 9000, 2048, CHECK_PASS }, /* the port's maximum caps it */
                { 4096, 4096, 0, 4096, CHECK_PASS },    /* netdev MTU unknown */
                { 0, 4096, 9000, 0, CHECK_FAIL },
        };

        /* Each known driver's own rule, from its source: rxe takes 80 bytes off (eth_mtu_int_to_enum()),
         * so 4096 to 4175 give 2048; irdma none (ib_mtu_int_to_enum(netdev->mtu)); mlx5 96. */
        static const struct {
                const char *device;
                RoceMtuDriver driver;
                unsigned active, netdev, min;
                CheckOutcome outcome;
                const char *summary;
        } known[] = {
                { "rxe0",
                  ROCE_MTU_DRIVER_RXE,
                  2048,
                  4096,
                  0,
                  CHECK_PASS,
                  "active MTU 2048 on rxe0 port 1 (eth1 MTU 4096, less rxe's 80 bytes of RoCE headers)" },
                { "rxe0", ROCE_MTU_DRIVER_RXE, 4096, 4176, 0, CHECK_PASS, "(eth1 MTU 4176, less rxe's 80" },
                { "rxe0",
                  ROCE_MTU_DRIVER_RXE,
                  4096,
                  4150,
                  0,
                  CHECK_WARN,
                  "(expected 2048, as rxe takes 80 bytes of RoCE headers off the netdev MTU)" },
                { "rxe0",
                  ROCE_MTU_DRIVER_RXE,
                  2048,
                  4096,
                  4096,
                  CHECK_FAIL,
                  "an active MTU of 4096 needs a netdev MTU of at least 4176 (rxe takes 80 bytes of RoCE headers "
                  "off it) (set the link's mtu, e.g. 9000)" },
                { "irdma0", ROCE_MTU_DRIVER_IRDMA, 4096, 4096, 4096, CHECK_PASS, "(eth1 MTU 4096)" },
                { "irdma0", ROCE_MTU_DRIVER_IRDMA, 2048, 4150, 0, CHECK_WARN, "(expected 4096): the RDMA port missed" },
                { "irdma0",
                  ROCE_MTU_DRIVER_IRDMA,
                  2048,
                  4000,
                  4096,
                  CHECK_FAIL,
                  "needs a netdev MTU of at least 4096 (set the link's mtu" },
                { "mlx5_0",
                  ROCE_MTU_DRIVER_MLX5,
                  2048,
                  4150,
                  4096,
                  CHECK_FAIL,
                  "needs a netdev MTU of at least 4192 (mlx5 takes 96 bytes of RoCE headers off it)" },
                { "roce0",
                  ROCE_MTU_DRIVER_UNKNOWN,
                  2048,
                  4000,
                  4096,
                  CHECK_FAIL,
                  "needs a netdev MTU of at least 4096 with irdma, 4176 with rxe, 4192 with mlx5 (set" },
        };

        /* mlx5 takes the RoCE headers (96 bytes) off the netdev MTU before it picks the IB MTU: its
         * active MTU follows that arithmetic and no other. */
        static const struct {
                unsigned active, netdev;
                CheckOutcome outcome;
                const char *summary;
        } mlx5[] = {
                { 4096,
                  9000,
                  CHECK_PASS,
                  "active MTU 4096 on mlx5_0 port 1 (enp1s0f0np0 MTU 9000, less mlx5's 96 bytes of RoCE headers)" },
                { 4096, 4200, CHECK_PASS, "active MTU 4096 on mlx5_0 port 1 (enp1s0f0np0 MTU 4200" },
                { 2048, 4150, CHECK_PASS, "active MTU 2048 on mlx5_0 port 1 (enp1s0f0np0 MTU 4150" },
                { 1024, 1500, CHECK_PASS, "active MTU 1024 on mlx5_0 port 1 (enp1s0f0np0 MTU 1500" },
                /* irdma could show 4096 at 4150; mlx5 cannot: its port missed the change. */
                { 4096,
                  4150,
                  CHECK_WARN,
                  "active MTU 4096 of mlx5_0 port 1 does not follow enp1s0f0np0's MTU 4150 (expected 2048, as mlx5 "
                  "takes 96 bytes of RoCE headers off the netdev MTU)" },
                { 2048, 9000, CHECK_WARN, "(expected 4096, as mlx5 takes 96 bytes" },
        };

        for (size_t i = 0; i < ELEMENTSOF(mlx5); i++) {
                _cleanup_(port_check_done) PortCheck p = {};

                ASSERT_OK(check_rdma_mtu_evaluate(
                        "mlx5_0",
                        ROCE_MTU_DRIVER_MLX5,
                        1,
                        mlx5[i].active,
                        4096,
                        "enp1s0f0np0",
                        mlx5[i].netdev,
                        0,
                        &p));
                if (p.outcome != mlx5[i].outcome || !strstr(p.summary, mlx5[i].summary)) {
                        fprintf(stderr,
                                "mlx5 case %zu: got %s \"%s\"\n",
                                i,
                                check_outcome_to_string(p.outcome),
                                p.summary);
                        abort();
                }
        }
        ASSERT_INT_EQ(roce_mtu_for_netdev_mtu(9000, ROCE_HEADROOM_MLX5), 4096);
        ASSERT_INT_EQ(roce_mtu_for_netdev_mtu(4200, ROCE_HEADROOM_MLX5), 4096);

        for (size_t i = 0; i < ELEMENTSOF(known); i++) {
                _cleanup_(port_check_done) PortCheck p = {};

                ASSERT_OK(check_rdma_mtu_evaluate(
                        known[i].device,
                        known[i].driver,
                        1,
                        known[i].active,
                        4096,
                        "eth1",
                        known[i].netdev,
                        known[i].min,
                        &p));
                if (p.outcome != known[i].outcome || !strstr(p.summary, known[i].summary)) {
                        fprintf(stderr,
                                "%s case %zu: got %s \"%s\"\n",
                                known[i].device,
                                i,
                                check_outcome_to_string(p.outcome),
                                p.summary);
                        abort();
                }
        }

        /* A device whose driver is not known: any known rule's reading passes. */
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_(port_check_done) PortCheck p = {};

                ASSERT_OK(check_rdma_mtu_evaluate(
                        "roce0",
                        ROCE_MTU_DRIVER_UNKNOWN,
                        1,
                        cases[i].active,
                        cases[i].max,
                        "enp194s0np0",
                        cases[i].netdev,
                        cases[i].min,
                        &p));
                if (p.outcome != cases[i].outcome) {
                        fprintf(stderr,
                                "case %zu: got %s \"%s\"\n",
                                i,
                                check_outcome_to_string(p.outcome),
                                p.summary);
                        abort();
                }
        }
        ASSERT_INT_EQ(roce_mtu_for_netdev_mtu(9000, ROCE_HEADROOM_MLX5), 4096);
        ASSERT_INT_EQ(roce_mtu_for_netdev_mtu(1500, ROCE_HEADROOM_MLX5), 1024);
        ASSERT_INT_EQ(roce_mtu_for_netdev_mtu(4150, ROCE_HEADROOM_MLX5), 2048);
        ASSERT_INT_EQ(roce_mtu_for_netdev_mtu(4150, 0), 4096);
        ASSERT_INT_EQ(roce_mtu_for_netdev_mtu(300, ROCE_HEADROOM_MLX5), 0);
        /* rxe: eth_mtu_int_to_enum() takes RXE_MAX_HDR_LENGTH (80) off. */
        ASSERT_INT_EQ(roce_mtu_for_netdev_mtu(4175, ROCE_HEADROOM_RXE), 2048);
        ASSERT_INT_EQ(roce_mtu_for_netdev_mtu(4176, ROCE_HEADROOM_RXE), 4096);
        ASSERT_INT_EQ(roce_netdev_mtu_needed(4096, ROCE_MTU_DRIVER_RXE), 4176);
        ASSERT_INT_EQ(roce_netdev_mtu_needed(4096, ROCE_MTU_DRIVER_IRDMA), 4096);
        ASSERT_INT_EQ(roce_netdev_mtu_needed(4096, ROCE_MTU_DRIVER_MLX5), 4192);
        ASSERT_INT_EQ(roce_mtu_driver_from_name("rdma_rxe"), ROCE_MTU_DRIVER_RXE);
        ASSERT_INT_EQ(roce_mtu_driver_from_name("ice"), ROCE_MTU_DRIVER_IRDMA);
        ASSERT_INT_EQ(roce_mtu_driver_from_name("mlx5_core"), ROCE_MTU_DRIVER_MLX5);
        ASSERT_INT_EQ(roce_mtu_driver_from_name("virtio_net"), ROCE_MTU_DRIVER_UNKNOWN);
}

/* A file of a scratch host tree; text NULL makes a directory. */
typedef struct TreeFile {
        const char *path;
        const char *text;
} TreeFile;

/* A scratch host tree for rdma.memlock: /dev/infiniband/uverbs0 with a real mode and owner (mode 0:
 * none), /etc/group, and files. NULL when the owner cannot be set (not root). */
static char *make_tree(mode_t mode, gid_t gid, const TreeFile *files, size_t n_files) {
        char *root = strdup("/tmp/nic-memlock-XXXXXX");
        _cleanup_(freep) char *p = NULL;

        ASSERT_TRUE(root && mkdtemp(root));
        ASSERT_TRUE(asprintf(&p, "mkdir -p %s/dev/infiniband %s/etc/security/limits.d", root, root) >= 0);
        ASSERT_INT_EQ(system(p), 0);
        p = mfree(p);
        ASSERT_TRUE(asprintf(&p, "%s/etc/group", root) >= 0);
        ASSERT_OK(write_file_atomic(p, "root:x:0:\nrdma:x:985:\n", 22, 0644));
        p = mfree(p);
        for (size_t i = 0; i < n_files; i++) {
                _cleanup_(freep) char *dir = NULL;

                ASSERT_TRUE(asprintf(&p, "%s%s", root, files[i].path) >= 0);
                ASSERT_TRUE(asprintf(&dir, "mkdir -p \"$(dirname '%s')\"", p) >= 0);
                ASSERT_INT_EQ(system(dir), 0);
                if (files[i].text)
                        ASSERT_OK(write_file_atomic(p, files[i].text, strlen(files[i].text), 0644));
                else
                        ASSERT_TRUE(mkdir(p, 0755) >= 0);
                p = mfree(p);
        }
        if (mode != 0) {
                ASSERT_TRUE(asprintf(&p, "%s/dev/infiniband/uverbs0", root) >= 0);
                ASSERT_OK(write_file_atomic(p, "", 0, 0600));
                ASSERT_TRUE(chmod(p, mode) >= 0);
                if (gid != (gid_t) -1 && chown(p, (uid_t) -1, gid) < 0) {
                        /* Only root can give a file away; the group case needs it. */
                        free(root);
                        return NULL;
                }
        }
        return root;
}

#define MIB (1024ULL * 1024ULL)
#define UNLIMITED MEMLOCK_UNLIMITED

/* rdma.memlock on the tree h with the services' limit handed in: the files read as the snapshot reads
 * them (memlock_facts_read_files(), SNAPSHOT_ETC_GROUP, SNAPSHOT_DEVICES), then the check. */
static int memlock_evaluate(const Host *h, const MemlockServices *services, uint64_t want, PortCheck *ret) {
        _cleanup_(memlock_facts_done) MemlockFacts f = { .services = *services };
        _cleanup_(snapshot_done) Snapshot s = {};
        const NodeContext c = { .host = h };
        int r;

        r = memlock_facts_read_files(h, &f);
        if (r < 0)
                return r;
        snapshot_init(&s, &c);
        r = snapshot_read(&s, SNAPSHOT_ETC_GROUP | SNAPSHOT_DEVICES);
        if (r < 0)
                return r;
        return check_rdma_memlock_evaluate(&f, &s.host, NIC_FAMILY_UNKNOWN, want, ret);
}

/* rdma.memlock for node c as a verify runs it: every source read by the snapshot (SNAPSHOT_MEMLOCK). */
static int memlock_run(const NodeContext *c, NicFamily family, PortCheck *ret) {
        _cleanup_(snapshot_done) Snapshot s = {};
        int r;

        snapshot_init(&s, c);
        r = snapshot_read(&s, SNAPSHOT_MEMLOCK | SNAPSHOT_ETC_GROUP | SNAPSHOT_DEVICES);
        if (r < 0)
                return r;
        return check_rdma_memlock_evaluate(&s.host.memlock, &s.host, family, c->profile->rdma.memlock, ret);
}

static const MemlockServices services_unlimited = {
        .state = MEMLOCK_SERVICES_READ,
        .limit = { .soft = UNLIMITED, .hard = UNLIMITED },
};
/* systemd's built-in default since v240: what the e2e container's services got. */
static const MemlockServices services_8m = {
        .state = MEMLOCK_SERVICES_READ,
        .limit = { .soft = 8 * MIB, .hard = 8 * MIB },
};
static const MemlockServices services_not_asked = { .state = MEMLOCK_SERVICES_NOT_ASKED };
/* The guest: DefaultLimitMEMLOCK=infinity, and PID 1's own limit an eighth of its RAM
 * (systemd's bump_rlimit_memlock()), 187032 KiB as /proc/1/limits showed it. */
static const MemlockServices services_unlimited_pid1_guest = {
        .state = MEMLOCK_SERVICES_READ,
        .limit = { .soft = UNLIMITED, .hard = UNLIMITED },
        .has_pid1 = true,
        .pid1 = { .soft = 187032ULL * 1024, .hard = 187032ULL * 1024 },
};
static const MemlockServices services_unlimited_pid1_unlimited = {
        .state = MEMLOCK_SERVICES_READ,
        .limit = { .soft = UNLIMITED, .hard = UNLIMITED },
        .has_pid1 = true,
        .pid1 = { .soft = UNLIMITED, .hard = UNLIMITED },
};
static const MemlockServices services_unlimited_stale = {
        .state = MEMLOCK_SERVICES_READ,
        .limit = { .soft = UNLIMITED, .hard = UNLIMITED },
        .stale = (char *const[]){ (char *) "vllm.service (PID 4242, 8 MiB)",
                                  (char *) "sshd.service (PID 812, 8 MiB)",
                                  NULL },
};
static const MemlockServices services_unlimited_hidden = {
        .state = MEMLOCK_SERVICES_READ,
        .limit = { .soft = UNLIMITED, .hard = UNLIMITED },
        .stale_error = "this process cannot see PID 1 and the services in /proc",
};

typedef struct MemlockCase {
        const char *name;
        mode_t mode; /* of /dev/infiniband/uverbs0; 0: none */
        gid_t gid;
        TreeFile files[4];
        const MemlockServices *services;
        uint64_t want;
        CheckOutcome outcome;
        const char *has[3];     /* substrings of the summary */
        const char *has_not[2]; /* and what it must not say */
} MemlockCase;

static void memlock_case(const MemlockCase *t) {
        _cleanup_(port_check_done) PortCheck p = {};
        size_t n_files = 0;
        char *root;
        Host h;

        while (n_files < ELEMENTSOF(t->files) && t->files[n_files].path)
                n_files++;
        root = make_tree(t->mode, t->gid, t->files, n_files);
        if (!root) {
                fprintf(stderr, "test-check-rdma: cannot chown (not root), skipping %s\n", t->name);
                return;
        }
        h = (Host){ .root = root };
        ASSERT_OK(memlock_evaluate(&h, t->services, t->want, &p));
        for (size_t i = 0; i < ELEMENTSOF(t->has); i++)
                if (p.outcome != t->outcome || (t->has[i] && !strstr(p.summary, t->has[i]))) {
                        fprintf(stderr,
                                "memlock %s: got %s \"%s\", expected %s with \"%s\"\n",
                                t->name,
                                check_outcome_to_string(p.outcome),
                                p.summary,
                                check_outcome_to_string(t->outcome),
                                strna(t->has[i]));
                        abort();
                }
        for (size_t i = 0; i < ELEMENTSOF(t->has_not); i++)
                if (t->has_not[i] && strstr(p.summary, t->has_not[i])) {
                        fprintf(stderr, "memlock %s: \"%s\" says \"%s\"\n", t->name, p.summary, t->has_not[i]);
                        abort();
                }
        remove_tree(root);
}

#define RDMA_CONF "/etc/security/limits.d/90-rdma.conf"

/* What rdma.memlock says a reboot (or `systemctl daemon-reexec`) brings into force: systemd's
 * DefaultLimitMEMLOCK only where the files set enough and the running manager gives less. */
static void test_memlock_pending_reboot(void) {
        static const char *const dropin = "/etc/systemd/system.conf.d/90-halod-memlock.conf";
        const struct {
                const char *name;
                TreeFile files[2];
                const MemlockServices *services;
                const char *reboot; /* NULL: nothing pending */
        } cases[] = {
                { "written, not read",
                  { { dropin, "# Written by halod\n[Manager]\nDefaultLimitMEMLOCK=infinity\n" } },
                  &services_8m,
                  "memlock: unlimited for services from systemd's DefaultLimitMEMLOCK "
                  "(/etc/systemd/system.conf.d/90-halod-memlock.conf:3), or `systemctl daemon-reexec`" },
                { "read", { { dropin, "[Manager]\nDefaultLimitMEMLOCK=infinity\n" } }, &services_unlimited, NULL },
                /* A later file takes it back: a reboot brings 8 MiB again. */
                { "reset",
                  { { dropin, "[Manager]\nDefaultLimitMEMLOCK=infinity\n" },
                    { "/usr/lib/systemd/system.conf.d/95-vendor.conf", "[Manager]\nDefaultLimitMEMLOCK=\n" } },
                  &services_8m,
                  NULL },
                { "too small", { { dropin, "[Manager]\nDefaultLimitMEMLOCK=64M\n" } }, &services_8m, NULL },
                /* --root: the running manager does not describe the tree. */
                { "not asked",
                  { { dropin, "[Manager]\nDefaultLimitMEMLOCK=infinity\n" } },
                  &services_not_asked,
                  NULL },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_(memlock_facts_done) MemlockFacts f = { .services = *cases[i].services };
                _cleanup_(freep) char *reboot = NULL;
                size_t n = cases[i].files[1].path ? 2 : 1;
                char *root = make_tree(0666, (gid_t) -1, cases[i].files, n);
                Host h;

                ASSERT_TRUE(root);
                h = (Host){ .root = root };
                ASSERT_OK(memlock_facts_read_files(&h, &f));
                ASSERT_OK(check_rdma_memlock_pending_reboot(&f, UNLIMITED, &reboot));
                if (!streq_ptr(reboot, cases[i].reboot)) {
                        fprintf(stderr,
                                "memlock %s: got \"%s\", expected \"%s\"\n",
                                cases[i].name,
                                strna(reboot),
                                strna(cases[i].reboot));
                        abort();
                }
                remove_tree(root);
        }
}

static void test_memlock(void) {
        const char *limits = "# RDMA\n*   -   memlock   unlimited\n@rdma hard memlock unlimited # KiB\n";
        const MemlockServices unreadable = {
                .state = MEMLOCK_SERVICES_UNREADABLE,
                .error = "systemd did not answer for DefaultLimitMEMLOCKSoft: Connection timed out",
        };
        const MemlockServices no_systemd = {
                .state = MEMLOCK_SERVICES_NO_SYSTEMD,
                .error = "/proc/1/limits: Permission denied",
        };
        const MemlockServices pid1_8m = { .state = MEMLOCK_SERVICES_PID1, .limit = { 8 * MIB, 8 * MIB } };
        const MemlockServices pid1_unlimited = { .state = MEMLOCK_SERVICES_PID1,
                                                 .limit = { UNLIMITED, UNLIMITED } };
        const MemlockServices soft_only = {
                .state = MEMLOCK_SERVICES_READ,
                .limit = { .soft = 8 * MIB, .hard = UNLIMITED },
        };
        const MemlockCase cases[] = {
                { "granted everywhere",
                  0666,
                  (gid_t) -1,
                  { { RDMA_CONF, limits } },
                  &services_unlimited,
                  UNLIMITED,
                  CHECK_PASS,
                  { "services: unlimited (systemd's DefaultLimitMEMLOCK); login sessions: unlimited (" RDMA_CONF
                    ":2); /dev/infiniband/uverbs0 usable by everyone" } },
                { "group rdma",
                  0660,
                  985,
                  { { RDMA_CONF, limits } },
                  &services_unlimited,
                  UNLIMITED,
                  CHECK_PASS,
                  { "/dev/infiniband/uverbs0 usable by group rdma" } },
                { "uverbs root only",
                  0600,
                  (gid_t) -1,
                  { { RDMA_CONF, limits } },
                  &services_unlimited,
                  UNLIMITED,
                  CHECK_FAIL,
                  { "/dev/infiniband/uverbs0 (mode 0600, gid 0) is not read-writable by group rdma" } },
                { "no uverbs",
                  0,
                  (gid_t) -1,
                  { { RDMA_CONF, limits } },
                  &services_unlimited,
                  UNLIMITED,
                  CHECK_FAIL,
                  { "no /dev/infiniband/uverbs* device" } },
                /* The node: limits.d is right, systemd's default is not, and halod's own limit
                 * (whatever it is) plays no part. */
                { "services short",
                  0666,
                  (gid_t) -1,
                  { { RDMA_CONF, limits } },
                  &services_8m,
                  UNLIMITED,
                  CHECK_FAIL,
                  { "services get 8 MiB < unlimited (systemd's DefaultLimitMEMLOCK): set "
                    "DefaultLimitMEMLOCK=infinity in the [Manager] section of /etc/systemd/system.conf.d/90-rdma.conf, "
                    "then run `systemctl daemon-reexec`" },
                  { "login sessions", "RLIMIT_MEMLOCK" } },
                { "services short, soft only",
                  0666,
                  (gid_t) -1,
                  { { RDMA_CONF, limits } },
                  &soft_only,
                  UNLIMITED,
                  CHECK_FAIL,
                  { "services get 8 MiB (hard unlimited) < unlimited" } },
                /* The drop-in is written (rdma.limits: manage, or by hand) and the running manager has not
                 * read it yet: the fix is the re-read, not another file. */
                { "services pending",
                  0666,
                  (gid_t) -1,
                  { { RDMA_CONF, limits },
                    { "/etc/systemd/system.conf.d/90-halod-memlock.conf",
                      "# Written by halod\n[Manager]\nDefaultLimitMEMLOCK=infinity\n" } },
                  &services_8m,
                  UNLIMITED,
                  CHECK_FAIL,
                  { "services get 8 MiB < unlimited (systemd's DefaultLimitMEMLOCK): "
                    "/etc/systemd/system.conf.d/90-halod-memlock.conf:3 sets unlimited, which the running manager "
                    "has not read yet: run `systemctl daemon-reexec`" },
                  { "set DefaultLimitMEMLOCK=infinity in" } },
                /* A later file or an empty assignment takes it back: the fix is the file again. */
                { "services pending, reset",
                  0666,
                  (gid_t) -1,
                  { { RDMA_CONF, limits },
                    { "/etc/systemd/system.conf.d/90-halod-memlock.conf",
                      "[Manager]\nDefaultLimitMEMLOCK=infinity\n" },
                    { "/usr/lib/systemd/system.conf.d/95-vendor.conf", "[Manager]\nDefaultLimitMEMLOCK=\n" } },
                  &services_8m,
                  UNLIMITED,
                  CHECK_FAIL,
                  { "services get 8 MiB < unlimited (systemd's DefaultLimitMEMLOCK): set DefaultLimitMEMLOCK=infinity" },
                  { "has not read yet" } },
                /* Too small in the file, or a value systemd ignores. */
                { "services pending, too small",
                  0666,
                  (gid_t) -1,
                  { { RDMA_CONF, limits },
                    { "/etc/systemd/system.conf", "[Manager]\nDefaultLimitMEMLOCK=64M\n" },
                    { "/run/systemd/system.conf.d/x.conf", "[Manager]\nDefaultLimitMEMLOCK=lots\n" } },
                  &services_8m,
                  UNLIMITED,
                  CHECK_FAIL,
                  { "set DefaultLimitMEMLOCK=infinity",
                    "/run/systemd/system.conf.d/x.conf:2: DefaultLimitMEMLOCK=lots is not a limit, and systemd "
                    "ignores it" },
                  { "has not read yet" } },
                /* No limits.d line: a session keeps what opens it, sshd's (the services') or su's caller's,
                 * never "8 MiB" for every session. */
                { "nothing configured",
                  0666,
                  (gid_t) -1,
                  {},
                  &services_8m,
                  UNLIMITED,
                  CHECK_FAIL,
                  { "services get 8 MiB < unlimited (systemd's DefaultLimitMEMLOCK)",
                    "login sessions keep the limit of the program that opens them, as no soft or - memlock line for "
                    "* is in /etc/security/limits.conf or limits.d: sshd and getty logins the services' 8 MiB "
                    "(systemd's DefaultLimitMEMLOCK), su and runuser their caller's",
                    "below unlimited: set \"* - memlock unlimited\" in " RDMA_CONF " and log in again" },
                  { "login sessions get 8 MiB" } },
                /* The node after DefaultLimitMEMLOCK=infinity: runuser, runuser -l and su as nobody
                 * got PID 1's own 187032 KiB, never "login sessions: unlimited". */
                { "services unlimited, su keeps PID 1's",
                  0666,
                  (gid_t) -1,
                  {},
                  &services_unlimited_pid1_guest,
                  UNLIMITED,
                  CHECK_FAIL,
                  { "sshd and getty logins the services' unlimited (systemd's DefaultLimitMEMLOCK), su and runuser "
                    "their caller's, PID 1's own 187032 KiB (/proc/1/limits) where the caller is no service; below "
                    "unlimited: set \"* - memlock unlimited\"" },
                  { "login sessions: unlimited" } },
                /* PID 1's own unread: the check cannot tell what su sessions get, and says so. */
                { "sessions inherit the services' unlimited",
                  0666,
                  (gid_t) -1,
                  {},
                  &services_unlimited,
                  UNLIMITED,
                  CHECK_WARN,
                  { "login sessions keep the limit of the program that opens them (no memlock line for * in "
                    "/etc/security/limits.conf or limits.d): sshd and getty logins the services' unlimited" },
                  { "login sessions: unlimited" } },
                { "sessions inherit unlimited from both",
                  0666,
                  (gid_t) -1,
                  {},
                  &services_unlimited_pid1_unlimited,
                  UNLIMITED,
                  CHECK_PASS,
                  { "login sessions: no memlock line for *, so each keeps what opens it: sshd and getty logins the "
                    "services' unlimited" } },
                /* "* hard memlock unlimited" alone sets only the hard limit; the kernel checks the soft one. */
                { "hard-only line",
                  0666,
                  (gid_t) -1,
                  { { RDMA_CONF, "*   hard   memlock   unlimited\n" } },
                  &services_8m,
                  UNLIMITED,
                  CHECK_FAIL,
                  { "login sessions: " RDMA_CONF ":1 sets only the hard memlock limit (unlimited, \"hard\"): "
                    "pam_limits leaves the soft limit, the one the kernel checks, at what the program that opens "
                    "the session has (sshd and getty logins the services' 8 MiB",
                    "add \"* soft memlock unlimited\" beside it (or make it \"* - memlock unlimited\") and log in "
                    "again" },
                  { "no memlock line" } },
                /* Even where what opens sessions has enough today: the soft limit is left to chance. */
                { "hard-only line, services unlimited",
                  0666,
                  (gid_t) -1,
                  { { RDMA_CONF, "* hard memlock unlimited\n" } },
                  &services_unlimited_pid1_unlimited,
                  UNLIMITED,
                  CHECK_FAIL,
                  { RDMA_CONF ":1 sets only the hard memlock limit" } },
                /* setup_limits() cuts the soft limit to the hard one: @rdma gets 1 GiB. */
                { "a group's hard line under *'s soft",
                  0666,
                  (gid_t) -1,
                  { { RDMA_CONF, "* - memlock unlimited\n@rdma hard memlock 1048576\n" } },
                  &services_unlimited,
                  UNLIMITED,
                  CHECK_WARN,
                  { "login sessions of @rdma get 1 GiB < unlimited (" RDMA_CONF ":1 and " RDMA_CONF ":2)" } },
                /* After `systemctl daemon-reexec`: the running services keep the limit they started with. */
                { "services raised, some still run with the old limit",
                  0666,
                  (gid_t) -1,
                  { { RDMA_CONF, limits } },
                  &services_unlimited_stale,
                  UNLIMITED,
                  CHECK_PASS,
                  { "services: unlimited (systemd's DefaultLimitMEMLOCK) for those started from now on; these run "
                    "with less than their units now give (a service keeps the limit it started with), so restart "
                    "them: vllm.service (PID 4242, 8 MiB), sshd.service (PID 812, 8 MiB)" } },
                { "services raised, the running ones not compared",
                  0666,
                  (gid_t) -1,
                  { { RDMA_CONF, limits } },
                  &services_unlimited_hidden,
                  UNLIMITED,
                  CHECK_PASS,
                  { "a service keeps the limit it started with, and the running ones could not be compared (this "
                    "process cannot see PID 1 and the services in /proc): restart the workload's service after "
                    "raising it" } },
                { "sessions short",
                  0666,
                  (gid_t) -1,
                  { { "/etc/security/limits.conf", "*\tsoft\tmemlock\t65536\n" } },
                  &services_unlimited,
                  UNLIMITED,
                  CHECK_FAIL,
                  { "login sessions get 64 MiB (hard unlimited) < unlimited (/etc/security/limits.conf:1): make that "
                    "\"* - memlock unlimited\" and log in again" },
                  { "services get" } },
                { "sessions short of a size",
                  0666,
                  (gid_t) -1,
                  { { "/etc/security/limits.conf", "* - memlock 1024\n" } },
                  &services_unlimited,
                  64 * MIB,
                  CHECK_FAIL,
                  { "login sessions get 1 MiB < 64 MiB (/etc/security/limits.conf:1): make that \"* - memlock 65536\"" } },
                /* --root on a tree booted with systemd: what services get is the running manager's, never
                 * a pass. */
                { "the rdma group is enough, the services unread",
                  0666,
                  (gid_t) -1,
                  { { RDMA_CONF, "@rdma - memlock unlimited\n" } },
                  &services_not_asked,
                  UNLIMITED,
                  CHECK_WARN,
                  { "could not look at what services get: systemd's DefaultLimitMEMLOCK is the running manager's, "
                    "and --root reads a tree (its run/systemd/system says it was booted with systemd)" } },
                { "the rdma group is enough, the services are not",
                  0666,
                  (gid_t) -1,
                  { { RDMA_CONF, "@rdma - memlock unlimited\n" } },
                  &services_8m,
                  UNLIMITED,
                  CHECK_FAIL,
                  { "services get 8 MiB < unlimited" },
                  { "login sessions get" } },
                { "a group kept short",
                  0666,
                  (gid_t) -1,
                  { { RDMA_CONF, "* - memlock unlimited\n@users - memlock 64\n" } },
                  &services_unlimited,
                  UNLIMITED,
                  CHECK_WARN,
                  { "login sessions of @users get 64 KiB < unlimited (" RDMA_CONF ":2)" } },
                /* "64M" is 64 KiB to pam_limits (strtoull()'s leading number), not a line it ignores: the
                 * later soft line wins, and sessions get 64 KiB. */
                { "a line pam_limits misreads",
                  0666,
                  (gid_t) -1,
                  { { RDMA_CONF, "* - memlock unlimited\n* soft memlock 64M\n" } },
                  &services_unlimited,
                  UNLIMITED,
                  CHECK_FAIL,
                  { "login sessions get 64 KiB (hard unlimited) < unlimited (" RDMA_CONF ":2 and " RDMA_CONF
                    ":1)",
                    RDMA_CONF ":2: pam_limits reads '64m' as 64 KiB: it takes the leading number, in KiB, and "
                              "ignores the rest" } },
                { "a line pam_limits ignores",
                  0666,
                  (gid_t) -1,
                  { { RDMA_CONF, "* - memlock unlimited\n* soft memlock lots\n" } },
                  &services_unlimited,
                  UNLIMITED,
                  CHECK_WARN,
                  { RDMA_CONF ":2: 'lots' is not a memlock value (KiB, unlimited or -1): pam_limits ignores the "
                              "line" } },
                { "a drop-in that cannot be read",
                  0666,
                  (gid_t) -1,
                  { { RDMA_CONF, limits }, { "/etc/security/limits.d/95-x.conf", NULL } },
                  &services_unlimited,
                  UNLIMITED,
                  CHECK_WARN,
                  { "could not look at /etc/security/limits.d/95-x.conf (Is a directory): `sudo haloctl check --only "
                    "rdma.memlock` reads it" } },
                { "systemd does not answer",
                  0666,
                  (gid_t) -1,
                  { { RDMA_CONF, limits } },
                  &unreadable,
                  UNLIMITED,
                  CHECK_WARN,
                  { "could not look at systemd's DefaultLimitMEMLOCK (systemd did not answer for "
                    "DefaultLimitMEMLOCKSoft: Connection timed out)" } },
                /* Without systemd every process inherits PID 1's limit: the kernel's default 8 MiB. */
                { "no systemd, PID 1 at 8 MiB",
                  0666,
                  (gid_t) -1,
                  { { RDMA_CONF, limits } },
                  &pid1_8m,
                  UNLIMITED,
                  CHECK_FAIL,
                  { "every process gets 8 MiB < unlimited from PID 1 (/proc/1/limits): the host does not run "
                    "systemd, so no DefaultLimitMEMLOCK raises it; raise PID 1's limit where it is started (a "
                    "container's runtime: --ulimit memlock=-1:-1; OpenRC: rc_ulimit=\"-l unlimited\" in "
                    "/etc/rc.conf), then restart the workload" },
                  { "services:" } },
                { "no systemd, PID 1 unlimited",
                  0666,
                  (gid_t) -1,
                  { { RDMA_CONF, limits } },
                  &pid1_unlimited,
                  UNLIMITED,
                  CHECK_PASS,
                  { "every process: unlimited (PID 1's limit, /proc/1/limits; the host does not run systemd); "
                    "login sessions: unlimited" } },
                { "no systemd, PID 1 unreadable",
                  0666,
                  (gid_t) -1,
                  { { RDMA_CONF, limits } },
                  &no_systemd,
                  UNLIMITED,
                  CHECK_WARN,
                  { "the host does not run systemd, so every process starts from PID 1's limit, and that could "
                    "not be read (/proc/1/limits: Permission denied)" } },
                { "podman short",
                  0666,
                  (gid_t) -1,
                  { { RDMA_CONF, limits },
                    { "/usr/bin/podman", "" },
                    { "/etc/containers/containers.conf",
                      "[containers]\ndefault_ulimits = [\"nofile=1280:2560\", \"memlock=67108864:67108864\"]\n" } },
                  &services_unlimited,
                  UNLIMITED,
                  CHECK_FAIL,
                  { "podman containers get 64 MiB < unlimited (default_ulimits \"memlock=67108864:67108864\", "
                    "/etc/containers/containers.conf:2): make it \"memlock=-1:-1\" in [containers] of "
                    "/etc/containers/containers.conf, or start each with `podman run --ulimit memlock=-1:-1` (the "
                    "CDI devices halod.io/fabric cannot set a limit)" } },
                { "podman short in the vendor file",
                  0666,
                  (gid_t) -1,
                  { { RDMA_CONF, limits },
                    { "/usr/bin/podman", "" },
                    { "/usr/share/containers/containers.conf",
                      "[containers]\ndefault_ulimits = [\"memlock=65536\"]\n" } },
                  &services_unlimited,
                  UNLIMITED,
                  CHECK_FAIL,
                  { "(default_ulimits \"memlock=65536\", /usr/share/containers/containers.conf:2): make it "
                    "\"memlock=-1:-1\" in [containers] of /etc/containers/containers.conf" } },
                { "podman granted",
                  0666,
                  (gid_t) -1,
                  { { RDMA_CONF, limits },
                    { "/usr/bin/podman", "" },
                    { "/etc/containers/containers.conf.d/90-rdma.conf",
                      "[containers]\ndefault_ulimits = [ 'memlock=-1:-1' ]\n" } },
                  &services_unlimited,
                  UNLIMITED,
                  CHECK_PASS,
                  { "podman containers: unlimited (default_ulimits \"memlock=-1:-1\", "
                    "/etc/containers/containers.conf.d/90-rdma.conf:2)" } },
                { "podman inherits",
                  0666,
                  (gid_t) -1,
                  { { RDMA_CONF, limits }, { "/usr/bin/podman", "" } },
                  &services_unlimited,
                  UNLIMITED,
                  CHECK_PASS,
                  { "podman containers: the limit of whoever starts podman (no memlock in default_ulimits; the CDI "
                    "devices halod.io/fabric cannot raise it: `podman run --ulimit memlock=-1:-1`)" } },
                { "podman refuses the file",
                  0666,
                  (gid_t) -1,
                  { { RDMA_CONF, limits },
                    { "/usr/bin/podman", "" },
                    { "/etc/containers/containers.conf",
                      "[containers]\ndefault_ulimits = [\"memlock=lots\"]\n" } },
                  &services_unlimited,
                  UNLIMITED,
                  CHECK_WARN,
                  { "/etc/containers/containers.conf:2: default_ulimits entry \"memlock=lots\" is not "
                    "memlock=SOFT[:HARD] in bytes or -1: podman refuses it" } },
                { "no podman, its file does not count",
                  0666,
                  (gid_t) -1,
                  { { RDMA_CONF, limits },
                    { "/etc/containers/containers.conf",
                      "[containers]\ndefault_ulimits = [\"memlock=65536\"]\n" } },
                  &services_unlimited,
                  UNLIMITED,
                  CHECK_PASS,
                  {},
                  { "podman" } },
                { "a size that is enough",
                  0666,
                  (gid_t) -1,
                  {},
                  &(const MemlockServices){ .state = MEMLOCK_SERVICES_READ,
                                            .limit = { 64ULL << 30, 64ULL << 30 },
                                            .has_pid1 = true,
                                            .pid1 = { 64ULL << 30, 64ULL << 30 } },
                  32ULL << 30,
                  CHECK_PASS,
                  { "services: 64 GiB (systemd's DefaultLimitMEMLOCK); login sessions: no memlock line for *, so each "
                    "keeps what opens it: sshd and getty logins the services' 64 GiB" } },
                /* Debian's pam_limits applies "*" to everyone but root (debian/patches
                 * 027_pam_limits_better_init_allow_explicit_root), whose sessions start from PID 1's
                 * limit; Fedora's, upstream's, applies it to root too. */
                { "Debian: * does not reach root",
                  0666,
                  (gid_t) -1,
                  { { RDMA_CONF, limits },
                    { "/etc/os-release", "PRETTY_NAME=\"Debian GNU/Linux 12\"\nID=debian\n" } },
                  &services_unlimited_pid1_guest,
                  UNLIMITED,
                  CHECK_FAIL,
                  { "login sessions of root get 187032 KiB < unlimited: this host's pam_limits (Debian's) does not "
                    "apply the * line (" RDMA_CONF ":2) to root, whose sessions start from PID 1's limit "
                    "(/proc/1/limits): add \"root - memlock unlimited\" in /etc/security/limits.d/90-rdma.conf and "
                    "log in again" } },
                { "Ubuntu: root's own line",
                  0666,
                  (gid_t) -1,
                  { { RDMA_CONF, "* - memlock unlimited\nroot - memlock unlimited\n" },
                    { "/etc/os-release", "ID=ubuntu\nID_LIKE=debian\n" } },
                  &services_unlimited_pid1_guest,
                  UNLIMITED,
                  CHECK_PASS,
                  { "login sessions: unlimited (" RDMA_CONF ":1)" },
                  { "root get" } },
                { "Debian: root's line short",
                  0666,
                  (gid_t) -1,
                  { { RDMA_CONF, "* - memlock unlimited\nroot - memlock 1024\n" },
                    { "/etc/os-release", "ID=debian\n" } },
                  &services_unlimited_pid1_guest,
                  UNLIMITED,
                  CHECK_WARN,
                  { "login sessions of root get 1 MiB < unlimited (" RDMA_CONF ":2)" } },
                /* The same patch makes init_limits() read /proc/1/limits for every session: without a
                 * line, sshd's and su's sessions alike start from PID 1's limit, not from what opens them. */
                { "Debian: sessions start from PID 1's",
                  0666,
                  (gid_t) -1,
                  { { "/etc/os-release", "ID=debian\n" } },
                  &services_unlimited_pid1_guest,
                  UNLIMITED,
                  CHECK_FAIL,
                  { "login sessions start from PID 1's limit (Debian's pam_limits), as no soft or - memlock line for "
                    "* is in /etc/security/limits.conf or limits.d: every login PID 1's 187032 KiB (/proc/1/limits); "
                    "below unlimited: set \"* - memlock unlimited\" in " RDMA_CONF " and log in again" },
                  { "sshd and getty", "program that opens" } },
                { "Debian: PID 1's unread",
                  0666,
                  (gid_t) -1,
                  { { "/etc/os-release", "ID=ubuntu\nID_LIKE=debian\n" } },
                  &services_unlimited,
                  UNLIMITED,
                  CHECK_WARN,
                  { "login sessions start from PID 1's limit (Debian's pam_limits) (no memlock line for * in "
                    "/etc/security/limits.conf or limits.d): every login PID 1's, which could not be read (not "
                    "asked)" },
                  { "the services' unlimited" } },
                { "Debian: PID 1's unlimited",
                  0666,
                  (gid_t) -1,
                  { { "/etc/os-release", "ID=debian\n" } },
                  &services_unlimited_pid1_unlimited,
                  UNLIMITED,
                  CHECK_PASS,
                  { "login sessions: no memlock line for *, so each starts from PID 1's (Debian's pam_limits): every "
                    "login PID 1's unlimited (/proc/1/limits)" } },
                { "Debian: hard-only line",
                  0666,
                  (gid_t) -1,
                  { { RDMA_CONF, "* hard memlock unlimited\n" }, { "/etc/os-release", "ID=debian\n" } },
                  &services_unlimited_pid1_guest,
                  UNLIMITED,
                  CHECK_FAIL,
                  { "pam_limits leaves the soft limit, the one the kernel checks, at PID 1's, where Debian's "
                    "pam_limits starts each session (every login PID 1's 187032 KiB (/proc/1/limits))" } },
                { "Fedora: * reaches root",
                  0666,
                  (gid_t) -1,
                  { { RDMA_CONF, limits }, { "/etc/os-release", "ID=fedora\nVERSION_ID=43\n" } },
                  &services_unlimited_pid1_guest,
                  UNLIMITED,
                  CHECK_PASS,
                  { "login sessions: unlimited (" RDMA_CONF ":2)" },
                  { "root" } },
                { "no minimum", 0666, (gid_t) -1, {}, &services_8m, 0, CHECK_PASS, { "services: 8 MiB" } },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++)
                memlock_case(&cases[i]);
}

/* /proc/1/limits as fs/proc/base.c (proc_pid_limits()) prints it: "%-25s %-20s %-20s %-10s" rows, with
 * the kernel's default memlock (MLOCK_LIMIT, 8 MiB) that PID 1 starts with. */
static const char pid1_limits_8m[] =
        "Limit                     Soft Limit           Hard Limit           Units     \n"
        "Max cpu time              unlimited            unlimited            seconds   \n"
        "Max file size             unlimited            unlimited            bytes     \n"
        "Max data size             unlimited            unlimited            bytes     \n"
        "Max stack size            8388608              unlimited            bytes     \n"
        "Max core file size        0                    unlimited            bytes     \n"
        "Max resident set          unlimited            unlimited            bytes     \n"
        "Max processes             96551                96551                processes \n"
        "Max open files            1048576              1048576              files     \n"
        "Max locked memory         8388608              8388608              bytes     \n"
        "Max address space         unlimited            unlimited            bytes     \n"
        "Max file locks            unlimited            unlimited            locks     \n"
        "Max pending signals       96551                96551                signals   \n"
        "Max msgqueue size         819200               819200               bytes     \n"
        "Max nice priority         0                    0                    \n"
        "Max realtime priority     0                    0                    \n"
        "Max realtime timeout      unlimited            unlimited            us        \n";

static void test_pid1_limits(void) {
        _cleanup_(profile_freep) Profile *p = test_profile_load(profile_yaml("true", "4096"));
        _cleanup_(port_check_done) PortCheck pc = {};
        const TreeFile files[] = { { "/proc/1/limits", pid1_limits_8m },
                                   { RDMA_CONF, "*   -   memlock   unlimited\n" } };
        MemlockLimit l;
        NodeContext c;
        char *root;
        Host h;

        ASSERT_OK(proc_limits_parse_memlock(pid1_limits_8m, &l));
        ASSERT_TRUE(l.soft == 8 * MIB && l.hard == 8 * MIB);
        ASSERT_OK(proc_limits_parse_memlock(
                "Max locked memory         unlimited            65536                bytes\n", &l));
        ASSERT_TRUE(l.soft == UNLIMITED && l.hard == 65536);
        ASSERT_INT_EQ(
                proc_limits_parse_memlock(
                        "Max locked memory         lots                 8388608              bytes\n", &l),
                -EBADMSG);
        ASSERT_INT_EQ(proc_limits_parse_memlock("Max locked memory         8388608\n", &l), -EBADMSG);
        ASSERT_INT_EQ(
                proc_limits_parse_memlock("Max locked memoryx        8388608              8388608\n", &l),
                -ENOENT);
        ASSERT_INT_EQ(proc_limits_parse_memlock("", &l), -ENOENT);

        /* A tree without /run/systemd/system and with a proc/1/limits: judged by PID 1's limit,
         * whatever limits.d grants login sessions. */
        root = make_tree(0666, (gid_t) -1, files, ELEMENTSOF(files));
        if (!root) {
                fprintf(stderr, "test-check-rdma: cannot chown (not root), skipping the PID 1 tree\n");
                return;
        }
        h = (Host){ .root = root };
        c = (NodeContext){ .host = &h, .profile = p, .node = profile_find_node(p, "head") };
        ASSERT_OK(memlock_run(&c, NIC_FAMILY_UNKNOWN, &pc));
        fprintf(stderr, "rdma.memlock on a tree without systemd: %s\n", pc.summary);
        ASSERT_INT_EQ(pc.outcome, CHECK_FAIL);
        ASSERT_TRUE(startswith(pc.summary, "every process gets 8 MiB < unlimited from PID 1 (/proc/1/limits)"));
        ASSERT_STR_EQ(pc.actual, "PID 1 8 MiB, login sessions unlimited");
        remove_tree(root);
}

/* rdma.memlock on a scratch tree of files, run as the daemon runs it: the outcome and a part of the
 * summary. false when the tree cannot be made (not root): the caller skips. */
static bool memlock_tree_case(
        const Profile *p,
        const TreeFile *files,
        size_t n,
        CheckOutcome outcome,
        const char *has,
        const char *what,
        size_t i) {
        _cleanup_(port_check_done) PortCheck pc = {};
        char *root = make_tree(0666, (gid_t) -1, files, n);
        NodeContext c;
        Host h;

        if (!root) {
                fprintf(stderr, "test-check-rdma: cannot chown (not root), skipping the %s\n", what);
                return false;
        }
        h = (Host){ .root = root };
        c = (NodeContext){ .host = &h, .profile = p, .node = profile_find_node(p, "head") };
        ASSERT_OK(memlock_run(&c, NIC_FAMILY_UNKNOWN, &pc));
        if (pc.outcome != outcome || !strstr(pc.summary, has)) {
                fprintf(stderr, "%s %zu: got %s \"%s\"\n", what, i, check_outcome_to_string(pc.outcome), pc.summary);
                abort();
        }
        remove_tree(root);
        return true;
}

/* A tree booted with systemd (run/systemd/system) under --root: what services get is the running
 * manager's, which the tree does not hold, so the check never passes and says which source it could not
 * read; PID 1's own limit (systemd's: an eighth of RAM), from the tree, is what su keeps. Before, the
 * check passed here. */
static void test_systemd_tree(void) {
        _cleanup_(profile_freep) Profile *p = test_profile_load(profile_yaml("true", "4096"));
        const TreeFile files[] = {
                { "/proc/1/limits",
                  "Limit                     Soft Limit           Hard Limit           Units     \n"
                  "Max locked memory         191520768            191520768            bytes     \n" },
                { "/run/systemd/system", NULL },
        };
        static const struct {
                const char *limits_d;
                CheckOutcome outcome;
                const char *has;
        } cases[] = {
                { "*   -   memlock   unlimited\n",
                  CHECK_WARN,
                  "could not look at what services get: systemd's DefaultLimitMEMLOCK is the running manager's, "
                  "and --root reads a tree (its run/systemd/system says it was booted with systemd); `haloctl "
                  "check` on the node reads it" },
                { "*   hard   memlock   unlimited\n",
                  CHECK_FAIL,
                  "/etc/security/limits.d/90-rdma.conf:1 sets only the hard memlock limit (unlimited, \"hard\"): "
                  "pam_limits leaves the soft limit, the one the kernel checks, at what the program that opens the "
                  "session has (sshd and getty logins the services' (not read: it is the running manager's), su "
                  "and runuser their caller's, PID 1's own 187032 KiB (/proc/1/limits) where the caller is no "
                  "service)" },
                { "",
                  CHECK_FAIL,
                  "login sessions keep the limit of the program that opens them, as no soft or - memlock line for "
                  "* is in /etc/security/limits.conf or limits.d: sshd and getty logins the services' (not read: "
                  "it is the running manager's), su and runuser their caller's, PID 1's own 187032 KiB" },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                TreeFile all[3] = { files[0], files[1], { RDMA_CONF, cases[i].limits_d } };

                if (!memlock_tree_case(
                            p, all, ELEMENTSOF(all), cases[i].outcome, cases[i].has, "systemd tree", i))
                        return;
        }
}

/* A tree that was not booted (systemd installed, no run/systemd/system, no proc/1/limits), as haloctl check
 * --root sees an image: systemd has loaded nothing yet, so services get at boot what the tree's
 * system.conf and system.conf.d say, read in systemd's order (src/shared/conf-parser.c,
 * config_parse_standard_file_with_dropins(): the first main file of /etc, /run, /usr/local/lib, /usr/lib;
 * then the drop-ins of those directories by file name, /etc's copy of a name hiding the others, the last
 * one winning), or systemd's built-in 8 MiB (src/basic/constants.h, DEFAULT_RLIMIT_MEMLOCK). Before,
 * such a tree warned that the running manager's value was not read. */
static void test_unbooted_tree(void) {
        _cleanup_(profile_freep) Profile *p = test_profile_load(profile_yaml("true", "4096"));
        static const struct {
                TreeFile files[4];
                CheckOutcome outcome;
                const char *has;
        } cases[] = {
                { { { "/usr/lib/systemd/system.conf", "[Manager]\nDefaultLimitMEMLOCK=64M\n" },
                    { "/usr/lib/systemd/system.conf.d/10-vendor.conf", "[Manager]\nDefaultLimitMEMLOCK=1G\n" },
                    { "/etc/systemd/system.conf.d/90-rdma.conf", "[Manager]\nDefaultLimitMEMLOCK=infinity\n" } },
                  CHECK_PASS,
                  "services: unlimited at boot (DefaultLimitMEMLOCK, /etc/systemd/system.conf.d/90-rdma.conf:2)" },
                { { { "/run/systemd/system.conf.d/90-rdma.conf", "[Manager]\nDefaultLimitMEMLOCK=64M\n" },
                    { "/etc/systemd/system.conf.d/90-rdma.conf", "[Manager]\nDefaultLimitMEMLOCK=infinity\n" },
                    { "/usr/lib/systemd/system.conf.d/95-late.conf", "[Manager]\nDefaultLimitMEMLOCK=64M\n" } },
                  CHECK_FAIL,
                  "services get 64 MiB < unlimited at boot (DefaultLimitMEMLOCK, "
                  "/usr/lib/systemd/system.conf.d/95-late.conf:2): set DefaultLimitMEMLOCK=infinity in the "
                  "[Manager] section of /etc/systemd/system.conf.d/90-rdma.conf" },
                { { { "/etc/systemd/system.conf", "[Manager]\n#DefaultLimitMEMLOCK=\n" },
                    { "/usr/lib/systemd/system.conf", "[Manager]\nDefaultLimitMEMLOCK=infinity\n" } },
                  CHECK_FAIL,
                  "services get 8 MiB < unlimited at boot (systemd's built-in default: no system.conf or "
                  "system.conf.d file of the tree sets DefaultLimitMEMLOCK)" },
                { { { "/run/systemd/system.conf", "[Manager]\nDefaultLimitMEMLOCK=infinity\n" } },
                  CHECK_PASS,
                  "services: unlimited at boot (DefaultLimitMEMLOCK, /run/systemd/system.conf:2)" },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                TreeFile all[6] = { { "/usr/lib/systemd/systemd", "" },
                                    { RDMA_CONF, "* - memlock unlimited\n" } };
                size_t n = 2;

                for (size_t j = 0; j < ELEMENTSOF(cases[i].files) && cases[i].files[j].path; j++)
                        all[n++] = cases[i].files[j];
                if (!memlock_tree_case(p, all, n, cases[i].outcome, cases[i].has, "unbooted tree", i))
                        return;
        }
}

int main(void) {
        test_sysfs_parsers();
        test_trees();
        test_no_rdma_section();
        test_mtu_evaluate();
        test_memlock();
        test_memlock_pending_reboot();
        test_pid1_limits();
        test_systemd_tree();
        test_unbooted_tree();
        printf("test-check-rdma: ok\n");
        return 0;
}
