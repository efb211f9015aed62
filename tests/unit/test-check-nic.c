/* SPDX-License-Identifier: MIT */
/* Tests the nic. checks on fixture host trees, and their decisions on real-world values. */
#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "basic/strv.h"
#include "check-read.h"
#include "check-test.h"
#include "check/check-nic.h"
#include "check/check-registry.h"
#include "nic/ice-ddp.h"
#include "nic/nic-family.h"
#include "tests.h"

#define HOSTS TEST_DATA_DIR "/hosts/"

static const char *profile_yaml(const char *match, const char *pcie_min_width) {
        static char buf[2048];

        snprintf(
                buf,
                sizeof(buf),
                "cluster: test\n"
                "links:\n"
                "  rdma0:\n"
                "    match: %s\n"
                "    mtu: 9000\n"
                "nic:\n"
                "  pci-ids: [\"8086:1592\", \"8086:1593\"]\n"
                "  driver: ice\n"
                "  firmware-min: \"4.91\"\n"
                "%s%s%s"
                "rdma: { required: true, gid: roce-v2, min-active-mtu: 4096, memlock: unlimited }\n"
                "nodes:\n"
                "  head: { hostname: halo-1, links: { rdma0: 192.168.100.1/30 } }\n",
                match,
                pcie_min_width ? "  pcie-min-width: " : "",
                strempty(pcie_min_width),
                pcie_min_width ? "\n" : "");
        return buf;
}

static void run_node(const char *tree, const char *yaml, const char *node, const CheckExpect *expect, size_t n) {
        _cleanup_(profile_freep) Profile *p = test_profile_load(yaml);
        Host h = { .root = tree };
        CheckList l = {};
        NodeContext c = { .host = &h, .profile = p, .node = profile_find_node(p, node) };

        ASSERT_TRUE(c.node);
        ASSERT_OK(test_check_group(&c, /* s= */ NULL, check_nic, &l));
        ASSERT_INT_EQ(l.n_checks, check_registry_count(check_nic));
        assert_checks(&l, expect, n, tree);
        check_list_done(&l);
}

static void run(const char *tree, const char *yaml, const CheckExpect *expect, size_t n) {
        run_node(tree, yaml, "head", expect, n);
}

static void test_reference_board(void) {
        /* The reference deployment: an x16 E810 in the board's x4 slot, which the profile accepts. */
        static const CheckExpect ok[] = {
                { "nic.pci",
                  CHECK_PASS,
                  "Intel Corporation Ethernet Controller E810-C for QSFP at 0000:c2:00.0" },
                { "nic.pcie", CHECK_PASS, "PCIe 16 GT/s x4 (capable x16): at most ~63 Gbit/s of the NIC's 100" },
                { "nic.driver",
                  CHECK_PASS,
                  "ice drives enp194s0np0, DDP package ICE OS Default Package version 1.3.36.0 (kernel log)" },
                /* devlink and an ioctl: not from a fixture tree */
                { "nic.firmware", CHECK_SKIP, "(devlink, ETHTOOL_GDRVINFO)" },
                { "nic.speed", CHECK_SKIP, "(ETHTOOL_GLINKSETTINGS), which does not describe the tree" },
                { "nic.roce", CHECK_SKIP, "comes from the running kernel (devlink)" },
        };
        static const CheckExpect too_narrow[] = {
                { "nic.pcie", CHECK_FAIL, "nic.pcie-min-width is 8: use a slot with at least 8 lanes" },
        };
        static const CheckExpect unaccepted[] = {
                { "nic.pcie", CHECK_WARN, "fewer lanes than the card has" },
        };

        run(HOSTS "nic-e810-x4", profile_yaml("{ driver: ice }", "4"), ok, ELEMENTSOF(ok));
        run(HOSTS "nic-e810-x4", profile_yaml("{ pci: \"0000:c2:00.0\" }", "4"), ok, ELEMENTSOF(ok));
        run(HOSTS "nic-e810-x4", profile_yaml("{ name: \"enp194s0*\" }", "4"), ok, ELEMENTSOF(ok));
        run(HOSTS "nic-e810-x4", profile_yaml("{ mac: \"6c:fe:54:12:34:56\" }", "4"), ok, ELEMENTSOF(ok));
        run(HOSTS "nic-e810-x4", profile_yaml("{ driver: ice }", "8"), too_narrow, ELEMENTSOF(too_narrow));
        run(HOSTS "nic-e810-x4", profile_yaml("{ driver: ice }", NULL), unaccepted, ELEMENTSOF(unaccepted));
}

static void test_other_trees(void) {
        static const CheckExpect x16[] = {
                { "nic.pcie", CHECK_PASS, "PCIe 16 GT/s x16: ~252 Gbit/s, enough for the NIC's 100" },
                { "nic.driver", CHECK_PASS, NULL },
        };
        static const CheckExpect safe_mode[] = {
                { "nic.pci", CHECK_PASS, NULL },
                { "nic.driver", CHECK_FAIL, "ice runs enp194s0np0 in Safe Mode" },
        };
        static const CheckExpect config_64[] = {
                { "nic.pcie", CHECK_WARN, "PCIe 16 GT/s x8 (capable x16)" }, /* from sysfs */
        };
        static const CheckExpect absent[] = {
                { "nic.pci",
                  CHECK_FAIL,
                  "no PCI device with nic.pci-ids (8086:1592, 8086:1593) on this machine" },
                { "nic.pcie", CHECK_SKIP, "see nic.pci" },
                { "nic.driver", CHECK_SKIP, "no fabric NIC found for link rdma0 (see nic.pci)" },
                { "nic.firmware", CHECK_SKIP, "no fabric NIC found for link rdma0 (see nic.pci)" },
        };
        static const CheckExpect wrong_device[] = {
                { "nic.pci", CHECK_FAIL, "is 10ec:8125, not one of nic.pci-ids (8086:1592, 8086:1593)" },
                { "nic.driver", CHECK_FAIL, "enp1s0 is driven by r8169, not ice" },
        };
        static const CheckExpect no_netdev_by_pci[] = {
                { "nic.pci", CHECK_PASS, "E810-C for QSFP at 0000:c2:00.0" },
                { "nic.pcie", CHECK_PASS, NULL },
                { "nic.driver",
                  CHECK_FAIL,
                  "no driver is bound to 0000:c2:00.0: load it (`modprobe ice` for E810)" },
                { "nic.firmware", CHECK_FAIL, "has no network interface" },
        };
        static const CheckExpect no_tree[] = {
                { "nic.pci", CHECK_FAIL, "cannot list network interfaces in /sys/class/net" },
                { "nic.pcie", CHECK_SKIP, NULL },
        };
        static const CheckExpect no_netdev_by_driver[] = {
                { "nic.pci", CHECK_FAIL, "(devices with nic.pci-ids are at 0000:c2:00.0)" },
        };

        run(HOSTS "nic-e810-x16", profile_yaml("{ driver: ice }", "4"), x16, ELEMENTSOF(x16));
        run(HOSTS "nic-e810-safe-mode", profile_yaml("{ driver: ice }", "4"), safe_mode, ELEMENTSOF(safe_mode));
        run(HOSTS "nic-e810-config-64", profile_yaml("{ driver: ice }", NULL), config_64, ELEMENTSOF(config_64));
        run(HOSTS "nic-absent", profile_yaml("{ driver: ice }", "4"), absent, ELEMENTSOF(absent));
        run(HOSTS "nic-absent", profile_yaml("{ name: enp1s0 }", "4"), wrong_device, ELEMENTSOF(wrong_device));
        run(HOSTS "nic-no-netdev",
            profile_yaml("{ pci: \"0000:c2:00.0\" }", "4"),
            no_netdev_by_pci,
            ELEMENTSOF(no_netdev_by_pci));
        run(HOSTS "nic-no-netdev",
            profile_yaml("{ driver: ice }", "4"),
            no_netdev_by_driver,
            ELEMENTSOF(no_netdev_by_driver));
        /* A tree that does not exist at all: every check says why, nothing crashes. */
        run(HOSTS "does-not-exist", profile_yaml("{ driver: ice }", "4"), no_tree, ELEMENTSOF(no_tree));
}

static const char *connectx_yaml(const char *links, const char *node_links) {
        static char buf[2048];

        snprintf(
                buf,
                sizeof(buf),
                "cluster: test\n"
                "links:\n"
                "%s"
                "nic:\n"
                "  pci-ids: [\"15b3:1017\", \"15b3:1019\"]\n"
                "  driver: mlx5_core\n"
                "  firmware-min: \"16.35.2000\"\n"
                "  pcie-min-width: 4\n"
                "nodes:\n"
                "  head: { links: { %s } }\n",
                links,
                node_links);
        return buf;
}

/* A ConnectX-5 (PCIe 3.0 x16) in the reference board's x4 slot: named from pci.ids, bounded against
 * its 100 Gbit/s, driven by mlx5_core with no word about ice's DDP package. */
static void test_connectx(void) {
        char *root;
        static const CheckExpect single[] = {
                { "nic.pci", CHECK_PASS, "Mellanox Technologies MT27800 Family [ConnectX-5] at 0000:01:00.0" },
                { "nic.pcie", CHECK_PASS, "PCIe 8 GT/s x4 (capable x16): at most ~32 Gbit/s of the NIC's 100" },
                { "nic.driver", CHECK_PASS, "mlx5_core drives enp1s0f0np0" },
                { "nic.firmware", CHECK_SKIP, "(devlink, ETHTOOL_GDRVINFO)" },
        };
        /* Port 1 has no cable: the netdev has no speed, the PCI id gives the line rate. */
        static const CheckExpect dual[] = {
                { "nic.pci",
                  CHECK_PASS,
                  "rdma0: Mellanox Technologies MT27800 Family [ConnectX-5] at 0000:01:00.0; rdma1: Mellanox "
                  "Technologies MT27800 Family [ConnectX-5] at 0000:01:00.1" },
                { "nic.pcie",
                  CHECK_PASS,
                  "rdma0: PCIe 8 GT/s x4 (capable x16): at most ~32 Gbit/s of the NIC's 100; rdma1: PCIe 8 GT/s x4 "
                  "(capable x16): at most ~32 Gbit/s of the NIC's 100" },
                { "nic.driver",
                  CHECK_PASS,
                  "rdma0: mlx5_core drives enp1s0f0np0; rdma1: mlx5_core drives enp1s0f1np1" },
        };
        static const CheckExpect ambiguous[] = {
                { "nic.pci",
                  CHECK_FAIL,
                  "link rdma0: 2 network interfaces match driver mlx5_core: enp1s0f0np0 (driver mlx5_core, pci 0000:01:00.0" },
        };
        static const CheckExpect e810_profile[] = {
                { "nic.pci",
                  CHECK_FAIL,
                  "Mellanox Technologies MT27800 Family [ConnectX-5] at 0000:01:00.0 is 15b3:1017, not one of "
                  "nic.pci-ids (8086:1592, 8086:1593)" },
                { "nic.driver", CHECK_FAIL, "enp1s0f0np0 is driven by mlx5_core, not ice (nic.driver)" },
        };
        static const CheckExpect too_narrow[] = {
                { "nic.pcie",
                  CHECK_FAIL,
                  "PCIe 8 GT/s x4 (capable x16): at most ~32 Gbit/s of the NIC's 100; nic.pcie-min-width is 8" },
        };

        run(HOSTS "nic-cx5-x4",
            connectx_yaml("  rdma0:\n    match: { driver: mlx5_core }\n", "rdma0: 192.168.100.1/30"),
            single,
            ELEMENTSOF(single));
        run(HOSTS "nic-cx5-dual-x4",
            connectx_yaml(
                    "  rdma0: {}\n  rdma1: {}\n",
                    "rdma0: { address: 10.0.1.2/24, match: { pci: \"0000:01:00.0\" } }, "
                    "rdma1: { address: 10.0.2.2/24, match: { name: enp1s0f1np1 } }"),
            dual,
            ELEMENTSOF(dual));
        /* Two ports, one driver: the link must say which. */
        run(HOSTS "nic-cx5-dual-x4",
            connectx_yaml("  rdma0:\n    match: { driver: mlx5_core }\n", "rdma0: 192.168.100.1/30"),
            ambiguous,
            ELEMENTSOF(ambiguous));
        run(HOSTS "nic-cx5-x4",
            profile_yaml("{ name: enp1s0f0np0 }", "4"),
            e810_profile,
            ELEMENTSOF(e810_profile));
        run(HOSTS "nic-cx5-x4", profile_yaml("{ name: enp1s0f0np0 }", "8"), too_narrow, ELEMENTSOF(too_narrow));

        /* No kernel log (halod's sandbox): nothing to skip for a NIC without ice's DDP package. */
        root = copy_tree_without(HOSTS "nic-cx5-x4", "dev/kmsg");
        run(root,
            connectx_yaml("  rdma0:\n    match: { driver: mlx5_core }\n", "rdma0: 192.168.100.1/30"),
            single,
            ELEMENTSOF(single));
        remove_tree(root);
}

/* mlx5_core did not bind: the suggestion names ConnectX's driver, from the PCI id. */
static void test_connectx_unbound(void) {
        static const CheckExpect e[] = {
                { "nic.pci", CHECK_PASS, "[ConnectX-5] at 0000:01:00.0" },
                { "nic.driver",
                  CHECK_FAIL,
                  "no driver is bound to enp1s0f0np0: load it (`modprobe mlx5_core` for ConnectX), then `journalctl "
                  "-k` says whether it probed" },
        };
        static const char yaml[] =
                "cluster: t\nlinks:\n  rdma0:\n    match: { pci: \"0000:01:00.0\" }\n"
                "nic: { pcie-min-width: 4 }\n"
                "nodes:\n  head: { links: { rdma0: 192.168.100.1/30 } }\n";
        char *root = copy_tree_without(
                HOSTS "nic-cx5-x4", "sys/devices/pci0000:00/0000:00:01.1/0000:01:00.0/driver");

        run(root, yaml, e, ELEMENTSOF(e));
        remove_tree(root);
}

/* An interface that is not the direct child of a PCI device: a virtio NIC (the PCI device is the
 * virtio device's parent) is judged by that PCI device; a virtual one has none, and the summary says
 * so instead of "(null)". */
static void test_not_a_pci_child(void) {
        static const CheckExpect virtio[] = {
                { "nic.pci",
                  CHECK_FAIL,
                  "Red Hat, Inc. Virtio 1.0 network device at 0000:00:03.0 is 1af4:1041, not one of "
                  "nic.pci-ids (8086:1592, 8086:1593)" },
        };
        static const char virtio_yaml[] =
                "cluster: t\nlinks:\n  rdma0:\n    match: { name: enp0s3 }\n"
                "nic: { driver: virtio_net }\n"
                "nodes:\n  head: { links: { rdma0: 192.168.100.1/30 } }\n";
        static const CheckExpect virtio_accepted[] = {
                { "nic.pci", CHECK_PASS, "Red Hat, Inc. Virtio 1.0 network device at 0000:00:03.0" },
        };
        static const CheckExpect virtual[] = {
                { "nic.pci",
                  CHECK_FAIL,
                  "lo (link rdma0) has no device in sysfs: it is a virtual interface, not a NIC; match the "
                  "link to the NIC's port (devices with nic.pci-ids are at 0000:c2:00.0)" },
        };

        run(HOSTS "nic-virtio", profile_yaml("{ name: enp0s3 }", "4"), virtio, ELEMENTSOF(virtio));
        run(HOSTS "nic-virtio", virtio_yaml, virtio_accepted, ELEMENTSOF(virtio_accepted));
        run(HOSTS "nic-e810-x4", profile_yaml("{ name: lo }", "4"), virtual, ELEMENTSOF(virtual));
}

static void test_no_nic_section(void) {
        static const char yaml[] =
                "cluster: t\nlinks:\n  rdma0:\n    match: { driver: ice }\n"
                "nodes:\n  head: { links: { rdma0: 192.168.100.1/30 } }\n";
        static const CheckExpect skip[] = {
                { "nic.pci", CHECK_SKIP, "the profile has no nic: section" },
                { "nic.firmware",
                  CHECK_SKIP,
                  "the profile has no nic: section, nor has node head one of its own" },
        };

        run(HOSTS "nic-e810-x4", yaml, skip, ELEMENTSOF(skip));
}

/* A node with its own nic: is checked against it, the others against the profile's: on the same E810
 * host, head (its own nic: is the E810's) passes and worker (the profile's ConnectX) does not. */
static void test_node_own_nic(void) {
        static const char yaml[] =
                "cluster: t\n"
                "links: { rdma0: { match: { driver: ice }, mtu: 9000 } }\n"
                "nic: { pci-ids: [\"15b3:1017\"], driver: mlx5_core, firmware-min: \"16.35.2000\" }\n"
                "nodes:\n"
                "  head:\n"
                "    links: { rdma0: 192.168.100.1/30 }\n"
                "    nic: { pci-ids: [\"8086:1592\", \"8086:1593\"], driver: ice, firmware-min: \"4.91\", pcie-min-width: 4 }\n"
                "  worker: { links: { rdma0: 192.168.100.2/30 } }\n";
        static const CheckExpect head[] = {
                { "nic.pci",
                  CHECK_PASS,
                  "Intel Corporation Ethernet Controller E810-C for QSFP at 0000:c2:00.0" },
                { "nic.pcie", CHECK_PASS, "PCIe 16 GT/s x4 (capable x16): at most ~63 Gbit/s of the NIC's 100" },
                { "nic.driver", CHECK_PASS, "ice drives enp194s0np0" },
                { "nic.firmware", CHECK_SKIP, "(devlink, ETHTOOL_GDRVINFO)" },
        };
        static const CheckExpect worker[] = {
                { "nic.pci", CHECK_FAIL, "is 8086:1592, not one of nic.pci-ids (15b3:1017)" },
                /* The profile's nic: has no pcie-min-width: head's x4 is not worker's. */
                { "nic.pcie", CHECK_WARN, "fewer lanes than the card has" },
                { "nic.driver", CHECK_FAIL, "enp194s0np0 is driven by ice, not mlx5_core (nic.driver)" },
        };

        run_node(HOSTS "nic-e810-x4", yaml, "head", head, ELEMENTSOF(head));
        run_node(HOSTS "nic-e810-x4", yaml, "worker", worker, ELEMENTSOF(worker));
}

static void test_firmware_evaluate(void) {
        static const struct {
                const char *driver, *fw, *min;
                CheckOutcome outcome;
                const char *summary;
        } cases[] = {
                { "ice",
                  "4.91 0x800214b5 1.3909.0",
                  "4.91",
                  CHECK_PASS,
                  "firmware 4.91 ≥ 4.91 (EETRACK 0x800214b5, combo image 1.3909.0; ethtool)" },
                { "ice",
                  "4.90 0x80020ef2 1.3863.0",
                  "4.91",
                  CHECK_FAIL,
                  "firmware 4.90 < 4.91 (EETRACK 0x80020ef2, combo image 1.3863.0; ethtool): update the E810 NVM "
                  "(Intel's nvmupdate64e)" },
                { "ice", "4.60 0x8001e8b1 1.3682.0", "4.91", CHECK_FAIL, "firmware 4.60 < 4.91" },
                { "ice", "4.40 0x8001c967 1.3534.0", "4.40", CHECK_PASS, "firmware 4.40 ≥ 4.40" },
                { "ice", "2.30 0x80004dd0 1.2839.0", "4.91", CHECK_FAIL, "firmware 2.30 < 4.91" },
                { "ice", "3.10", "3.0", CHECK_PASS, "firmware 3.10 ≥ 3.0 (ethtool)" },
                { "ice", "4.91 0x800214b5 1.3909.0", "4.9", CHECK_WARN, "\"4.9\" is ambiguous" },
                { "ice",
                  "4.91 0x800214b5 1.3909.0",
                  NULL,
                  CHECK_PASS,
                  "firmware 4.91 (EETRACK 0x800214b5, combo image 1.3909.0; ethtool)" },
                { "mlx5_core",
                  "16.35.2000 (MT_0000000012)",
                  "16.35.1012",
                  CHECK_PASS,
                  "firmware 16.35.2000 ≥ 16.35.1012 (PSID MT_0000000012; ethtool)" },
                { "mlx5_core",
                  "16.35.2000 (MT_0000000012)",
                  "22.36.1010",
                  CHECK_FAIL,
                  "update the ConnectX firmware" },
                { "veth", "", "4.91", CHECK_FAIL, "test0 (driver veth) reports no firmware version" },
                { "veth", "", NULL, CHECK_SKIP, "reports no firmware version" },
                { "weird", "N/A", "4.91", CHECK_FAIL, "cannot find a version in test0's firmware string \"N/A\"" },
                /* A ConnectX-6 Dx (PSID MT_0000000359); its minors are not E810's two digits. */
                { "mlx5_core",
                  "22.39.1002 (MT_0000000359)",
                  "22.36.1010",
                  CHECK_PASS,
                  "firmware 22.39.1002 ≥ 22.36.1010 (PSID MT_0000000359; ethtool)" },
                { "mlx5_core",
                  "16.35.2000 (MT_0000000012)",
                  "16.35.2000",
                  CHECK_PASS,
                  "firmware 16.35.2000 ≥ 16.35.2000 (PSID MT_0000000012; ethtool)" },
                { "mlx5_core",
                  "16.32.1010 (MT_0000000012)",
                  "16.35.2000",
                  CHECK_FAIL,
                  "firmware 16.32.1010 < 16.35.2000 (PSID MT_0000000012; ethtool): update the ConnectX firmware "
                  "(mlxfwmanager, or fwupd)" },
                { "mlx5_core", "16.35.2000 (MT_0000000012)", "16.4", CHECK_PASS, "firmware 16.35.2000 ≥ 16.4" },
                /* Neither family: every family's tool. */
                { "bnxt_en",
                  "227.0.131.0",
                  "230.0",
                  CHECK_FAIL,
                  "update the NIC firmware with the vendor's tool (Intel's nvmupdate64e for E810; mlxfwmanager, or "
                  "fwupd for ConnectX)" },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_(port_check_done) PortCheck p = {};

                ASSERT_OK(check_nic_firmware_evaluate("test0", cases[i].driver, cases[i].fw, cases[i].min, &p));
                if (p.outcome != cases[i].outcome || !strstr(p.summary, cases[i].summary)) {
                        fprintf(stderr,
                                "case %zu: got %s \"%s\"\n",
                                i,
                                check_outcome_to_string(p.outcome),
                                p.summary);
                        abort();
                }
                ASSERT_STR_EQ(p.actual, cases[i].fw);
        }
}

static void test_pcie_evaluate(void) {
        static const struct {
                PcieLink current, capable;
                unsigned min_width, nic_gbit;
                CheckOutcome outcome;
                const char *summary;
        } cases[] = {
                { { 16000, 4 },
                  { 16000, 16 },
                  4,
                  100,
                  CHECK_PASS,
                  "PCIe 16 GT/s x4 (capable x16): at most ~63 Gbit/s of the NIC's 100" },
                { { 8000, 4 },
                  { 16000, 16 },
                  4,
                  100,
                  CHECK_WARN,
                  "PCIe 8 GT/s x4 (capable 16 GT/s x16): at most ~32 Gbit/s of the NIC's 100; the link trained below" },
                { { 8000, 16 }, { 16000, 16 }, 0, 100, CHECK_WARN, "PCIe 8 GT/s x16 (capable 16 GT/s): ~126 Gbit/s" },
                { { 16000, 2 }, { 16000, 16 }, 4, 100, CHECK_FAIL, "PCIe 16 GT/s x2 (capable x16): at most ~32 Gbit/s" },
                { { 16000, 16 }, { 16000, 16 }, 4, 0, CHECK_PASS, "PCIe 16 GT/s x16: at most ~252 Gbit/s" },
                { { 2500, 1 },
                  { 5000, 1 },
                  0,
                  25,
                  CHECK_WARN,
                  "PCIe 2.5 GT/s x1 (capable 5 GT/s): at most ~2 Gbit/s of the NIC's 25" },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_(port_check_done) PortCheck p = {};
                PciDevice d = { .address = (char *) "0000:c2:00.0",
                                .link_source = PCIE_LINK_CONFIG,
                                .current = cases[i].current,
                                .capable = cases[i].capable };

                ASSERT_OK(check_nic_pcie_evaluate(&d, cases[i].min_width, cases[i].nic_gbit, &p));
                if (p.outcome != cases[i].outcome || !strstr(p.summary, cases[i].summary)) {
                        fprintf(stderr,
                                "case %zu: got %s \"%s\"\n",
                                i,
                                check_outcome_to_string(p.outcome),
                                p.summary);
                        abort();
                }
        }
        ASSERT_INT_EQ(nic_line_rate_from_id((PciId){ 0x8086, 0x1592 }), 100);
        ASSERT_INT_EQ(nic_line_rate_from_id((PciId){ 0x8086, 0x159b }), 25);
        ASSERT_INT_EQ(nic_line_rate_from_id((PciId){ 0x10ec, 0x8125 }), 0);
        ASSERT_INT_EQ(nic_line_rate_from_id((PciId){ 0x15b3, 0x1017 }), 100);
}

/* Every message ice_main.c logs for the package's outcome (ice_log_pkg_init(), ice_request_fw(),
 * ice_load_pkg()), word for word, with the driver's double spaces and its one lower-case "safe mode". */
static void test_ddp_state(void) {
        static const struct {
                const char *message;
                IceDdpState state;
                IceDdpCause cause;
        } cases[] = {
                { "ice 0000:c2:00.0: The DDP package was successfully loaded: ICE OS Default Package version 1.3.36.0",
                  ICE_DDP_LOADED,
                  ICE_DDP_CAUSE_NONE },
                { "ice 0000:c2:00.1: DDP package already present on device: ICE OS Default Package version 1.3.36.0",
                  ICE_DDP_UNKNOWN,
                  ICE_DDP_CAUSE_NONE },
                { "ice 0000:c2:00.0: DDP package already present on device: ICE OS Default Package version 1.3.36.0",
                  ICE_DDP_LOADED,
                  ICE_DDP_CAUSE_NONE },
                { "ice 0000:c2:00.0: The driver could not load the DDP package file because a compatible DDP package "
                  "is already present on the device.  The device has package 'ICE COMMS Package' version 1.3.40.0.  "
                  "The package file found by the driver: 'ICE OS Default Package' version 1.3.36.0.",
                  ICE_DDP_LOADED,
                  ICE_DDP_CAUSE_NONE },
                /* The NVM too old for the kernel's package: "safe mode", in lower case. */
                { "ice 0000:c2:00.0: The firmware loaded on the device is not compatible with the DDP package.  "
                  "Please update the device's NVM.  Entering safe mode.",
                  ICE_DDP_SAFE_MODE,
                  ICE_DDP_CAUSE_NVM_TOO_OLD },
                { "ice 0000:c2:00.0: The DDP package file was not found or could not be read. Entering Safe Mode",
                  ICE_DDP_SAFE_MODE,
                  ICE_DDP_CAUSE_FILE_MISSING },
                { "ice 0000:c2:00.0: The DDP package file failed to load. Entering Safe Mode.",
                  ICE_DDP_SAFE_MODE,
                  ICE_DDP_CAUSE_FILE_MISSING },
                { "ice 0000:c2:00.0: The DDP package file is invalid. Entering Safe Mode.",
                  ICE_DDP_SAFE_MODE,
                  ICE_DDP_CAUSE_FILE_INVALID },
                { "ice 0000:c2:00.0: The DDP package file version is higher than the driver supports.  Please use an "
                  "updated driver.  Entering Safe Mode.",
                  ICE_DDP_SAFE_MODE,
                  ICE_DDP_CAUSE_FILE_TOO_NEW },
                { "ice 0000:c2:00.0: The DDP package file version is lower than the driver supports.  The driver "
                  "requires version 1.3.x.x.  Please use an updated DDP Package file.  Entering Safe Mode.",
                  ICE_DDP_SAFE_MODE,
                  ICE_DDP_CAUSE_FILE_TOO_OLD },
                { "ice 0000:c2:00.0: The DDP package could not be loaded because its signature is not valid.  Please "
                  "use a valid DDP Package.  Entering Safe Mode.",
                  ICE_DDP_SAFE_MODE,
                  ICE_DDP_CAUSE_SIGNATURE },
                { "ice 0000:c2:00.0: The DDP Package could not be loaded because its security revision is too low.  "
                  "Please use an updated DDP Package.  Entering Safe Mode.",
                  ICE_DDP_SAFE_MODE,
                  ICE_DDP_CAUSE_REVISION_TOO_LOW },
                { "ice 0000:c2:00.0: The device has a DDP package that is not supported by the driver.  The device "
                  "has package 'ICE COMMS Package' version 1.2.x.x.  The driver requires version 1.3.x.x.  Entering "
                  "Safe Mode.",
                  ICE_DDP_SAFE_MODE,
                  ICE_DDP_CAUSE_DEVICE_PACKAGE },
                /* No "Safe Mode" in the words, and yet ice_is_init_pkg_successful() is false: Safe Mode. */
                { "ice 0000:c2:00.0: An error occurred on the device while loading the DDP package.  The device will "
                  "be reset.",
                  ICE_DDP_SAFE_MODE,
                  ICE_DDP_CAUSE_LOAD_ERROR },
                { "ice 0000:c2:00.0: An unknown error occurred when loading the DDP package.  Entering Safe Mode.",
                  ICE_DDP_SAFE_MODE,
                  ICE_DDP_CAUSE_UNKNOWN },
                { "ice 0000:c2:00.0: Fail during requesting FW: -2", ICE_DDP_UNKNOWN, ICE_DDP_CAUSE_NONE },
                { "ice 0000:c2:00.0: Tx scheduling layers switching feature enabled",
                  ICE_DDP_UNKNOWN,
                  ICE_DDP_CAUSE_NONE },
                { "ice 0000:c2:00.00: Entering Safe Mode",
                  ICE_DDP_UNKNOWN,
                  ICE_DDP_CAUSE_UNKNOWN }, /* another address */
                { "i40e 0000:c2:00.0: Safe Mode", ICE_DDP_UNKNOWN, ICE_DDP_CAUSE_UNKNOWN },
                { "ice: Intel(R) Ethernet Connection E800 Series Linux Driver",
                  ICE_DDP_UNKNOWN,
                  ICE_DDP_CAUSE_NONE },
                { "", ICE_DDP_UNKNOWN, ICE_DDP_CAUSE_NONE },
        };
        Host loaded = { .root = HOSTS "nic-e810-x4" }, safe = { .root = HOSTS "nic-e810-safe-mode" },
             old_nvm = { .root = HOSTS "nic-e810-old-nvm" }, missing = { .root = HOSTS "does-not-exist" };
        _cleanup_(freep) char *detail = NULL, *package = NULL;
        IceDdpState s;

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                if (ice_ddp_state_from_message(cases[i].message, "0000:c2:00.0") != cases[i].state ||
                    ice_ddp_cause_from_message(cases[i].message) != cases[i].cause) {
                        fprintf(stderr, "ddp case %zu: \"%s\"\n", i, cases[i].message);
                        abort();
                }
                ASSERT_TRUE(
                        cases[i].cause == ICE_DDP_CAUSE_NONE || !isempty(ice_ddp_cause_fix(cases[i].cause)));
        }
        ASSERT_OK(ice_ddp_package_from_message(cases[3].message, &package));
        ASSERT_STR_EQ(package, "ICE COMMS Package version 1.3.40.0");

        ASSERT_OK(ice_ddp_state_from_kmsg(&loaded, "0000:c2:00.0", &s, &detail));
        ASSERT_INT_EQ(s, ICE_DDP_LOADED);
        ASSERT_TRUE(strstr(detail, "ICE OS Default Package version 1.3.36.0"));
        detail = mfree(detail);
        ASSERT_OK(ice_ddp_state_from_kmsg(&safe, "0000:c2:00.0", &s, &detail));
        ASSERT_INT_EQ(s, ICE_DDP_SAFE_MODE);
        ASSERT_STR_EQ(
                detail,
                "ice 0000:c2:00.0: The DDP package file was not found or could not be read. Entering Safe Mode");
        detail = mfree(detail);
        ASSERT_OK(ice_ddp_state_from_kmsg(&old_nvm, "0000:c2:00.0", &s, &detail));
        ASSERT_INT_EQ(s, ICE_DDP_SAFE_MODE);
        ASSERT_INT_EQ(ice_ddp_cause_from_message(detail), ICE_DDP_CAUSE_NVM_TOO_OLD);
        ASSERT_OK(ice_ddp_state_from_kmsg(&safe, "0000:c3:00.0", &s, NULL));
        ASSERT_INT_EQ(s, ICE_DDP_UNKNOWN);
        ASSERT_INT_EQ(ice_ddp_state_from_kmsg(&missing, "0000:c2:00.0", &s, NULL), -ENOENT);
}

/* A source the checks cannot read is never a pass: they say that they could not look, and what to run. */
static void test_could_not_look(void) {
        static const CheckExpect no_kmsg[] = {
                { "nic.pci", CHECK_PASS, NULL },
                { "nic.driver",
                  CHECK_SKIP,
                  "ice drives enp194s0np0, but could not look at the kernel log (/dev/kmsg: No such file or "
                  "directory), which says whether ice runs it in Safe Mode (no DDP package, no RDMA): `sudo haloctl "
                  "check --only nic.driver` reads it" },
        };
        static const CheckExpect no_link[] = {
                { "nic.pci", CHECK_PASS, NULL },
                { "nic.pcie",
                  CHECK_SKIP,
                  "could not look at the PCIe link of 0000:c2:00.0: config space past byte 64 is root's, and sysfs "
                  "has no current_link_speed: `sudo haloctl check --only nic.pcie` reads it" },
        };
        char *root;
        pid_t pid;
        int status;

        root = copy_tree_without(HOSTS "nic-e810-x4", "dev/kmsg");
        run(root, profile_yaml("{ driver: ice }", "4"), no_kmsg, ELEMENTSOF(no_kmsg));
        remove_tree(root);

        /* Only root reads config space past byte 64; the fixture holds those 64 bytes and, here, no
         * sysfs link attributes. The check runs as a user other than root. */
        root = copy_tree_without(
                HOSTS "nic-e810-config-64",
                "sys/devices/pci0000:c0/0000:c0:01.1/0000:c2:00.0/current_link_speed");
        pid = fork();
        ASSERT_TRUE(pid >= 0);
        if (pid == 0) {
                if (geteuid() == 0)
                        ASSERT_TRUE(
                                setgroups(0, NULL) >= 0 && setresgid(65534, 65534, 65534) >= 0 &&
                                setresuid(65534, 65534, 65534) >= 0);
                run(root, profile_yaml("{ driver: ice }", NULL), no_link, ELEMENTSOF(no_link));
                _exit(EXIT_SUCCESS);
        }
        ASSERT_TRUE(waitpid(pid, &status, 0) == pid);
        ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == EXIT_SUCCESS);
        remove_tree(root);
}

/* A link matched by driver alone, on a machine with two devices of that driver and no netdev (an
 * onboard E810-XXV beside the E810-C): the pci-ids of the node's NIC pick the device, its own nic:'s
 * for a node that has one, the profile's for the others and when no node is selected. */
static void test_node_nic_picks_device(void) {
        static const char yaml[] =
                "cluster: t\n"
                "links: { rdma0: { match: { driver: ice } } }\n"
                "nic: { pci-ids: [\"8086:1592\"] }\n"
                "nodes:\n"
                "  head: { links: { rdma0: 192.168.100.1/30 } }\n"
                "  worker: { links: { rdma0: 192.168.100.2/30 }, nic: { pci-ids: [\"8086:159b\"] } }\n";
        static const char onboard[] = "sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0";
        static const struct {
                const char *node, *pci;
        } cases[] = {
                { "head", "0000:c2:00.0" },
                { "worker", "0000:01:00.0" },
                { NULL, "0000:c2:00.0" },
        };
        _cleanup_(profile_freep) Profile *p = test_profile_load(yaml);
        _cleanup_(freep) char *cmd = NULL;
        char *root;

        /* The reference board without its netdev, and a second ice device: 0000:01:00.0 lists first. */
        root = copy_tree_without(HOSTS "nic-e810-x4", "sys/class/net/enp194s0np0");
        ASSERT_TRUE(
                asprintf(
                        &cmd,
                        "cd '%s' && rm -r sys/devices/pci0000:c0/0000:c0:01.1/0000:c2:00.0/net && mkdir -p %s && "
                        "echo 0x8086 >%s/vendor && echo 0x159b >%s/device && "
                        "ln -s ../../../../bus/pci/drivers/ice %s/driver && "
                        "ln -s ../../../devices/pci0000:00/0000:00:01.0/0000:01:00.0 sys/bus/pci/devices/0000:01:00.0",
                        root,
                        onboard,
                        onboard,
                        onboard,
                        onboard) >= 0);
        ASSERT_INT_EQ(system(cmd), 0);

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                Host h = { .root = root };
                NodeContext c = { .host = &h, .profile = p, .node = profile_find_node(p, cases[i].node) };
                _cleanup_(fabric_ports_done) FabricPorts ports = {};

                ASSERT_TRUE(!cases[i].node || c.node);
                ASSERT_OK(fabric_ports_find(&c, &ports));
                ASSERT_INT_EQ(ports.n, 1);
                ASSERT_STR_EQ(ports.ports[0].pci, cases[i].pci);
                ASSERT_TRUE(!ports.ports[0].ifname);
        }
        remove_tree(root);
}

/* The shipped profile (conf/halod.yaml) on the reference E810-C for QSFP and on its 25 GbE sibling
 * that ice also drives, "E810-C for SFP" in pci.ids: the sibling passes no nic.* check that the
 * reference cluster's 100 GbE needs. A tree cannot carry the negotiated speed (ETHTOOL_GLINKSETTINGS),
 * so nic.speed is judged here as the running host gives it, with the profile's floor. */
static void test_shipped_profile(void) {
        static const CheckExpect qsfp[] = {
                { "nic.pci", CHECK_PASS, "E810-C for QSFP at 0000:c2:00.0" },
                { "nic.driver", CHECK_PASS, "ice drives enp194s0np0" },
        };
        static const CheckExpect sfp[] = {
                { "nic.pci", CHECK_FAIL, "is 8086:1593, not one of nic.pci-ids (8086:1592)" },
        };
        static const struct {
                const char *tree;
                const CheckExpect *expect;
                size_t n;
                PciId id;
                unsigned speed_mbit;
                CheckOutcome speed;
        } cases[] = {
                { HOSTS "nic-e810-x4", qsfp, ELEMENTSOF(qsfp), { 0x8086, 0x1592 }, 100000, CHECK_PASS },
                { HOSTS "nic-e810-sfp-x4", sfp, ELEMENTSOF(sfp), { 0x8086, 0x1593 }, 25000, CHECK_FAIL },
        };
        _cleanup_(profile_freep) Profile *p = NULL;

        ASSERT_OK(profile_load_file(TEST_DATA_DIR "/../../conf/halod.yaml", &p, NULL));
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                EthtoolLinkSettings link = { cases[i].speed_mbit, DUPLEX_FULL, true };
                Host h = { .root = cases[i].tree };
                NodeContext c = { .host = &h, .profile = p, .node = profile_find_node(p, "head") };
                CheckList l = {};
                PortCheck speed = {};

                ASSERT_OK(test_check_group(&c, /* s= */ NULL, check_nic, &l));
                assert_checks(&l, cases[i].expect, cases[i].n, cases[i].tree);
                check_list_done(&l);

                ASSERT_OK(check_nic_speed_evaluate(
                        "rdma0",
                        "enp194s0np0",
                        &link,
                        0,
                        p->nic.speed_min_mbit,
                        nic_line_rate_from_id(cases[i].id),
                        &speed));
                ASSERT_INT_EQ(speed.outcome, cases[i].speed);
                port_check_done(&speed);
        }
}

int main(void) {
        test_shipped_profile();
        test_reference_board();
        test_other_trees();
        test_connectx();
        test_connectx_unbound();
        test_not_a_pci_child();
        test_no_nic_section();
        test_node_own_nic();
        test_firmware_evaluate();
        test_pcie_evaluate();
        test_ddp_state();
        test_could_not_look();
        test_node_nic_picks_device();
        printf("test-check-nic: ok\n");
        return 0;
}
