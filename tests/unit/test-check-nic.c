/* SPDX-License-Identifier: MIT */
/* Tests the nic. checks on fixture host trees, and their decisions on real-world values. */
#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "basic/strv.h"
#include "check-test.h"
#include "check/check-nic.h"
#include "nic/ice-ddp.h"
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

static void run(const char *tree, const char *yaml, const CheckExpect *expect, size_t n) {
        _cleanup_(profile_freep) Profile *p = test_profile_load(yaml);
        Host h = { .root = tree };
        CheckList l = {};
        NodeContext c = { .host = &h, .profile = p, .node = profile_find_node(p, "head") };

        ASSERT_TRUE(c.node);
        ASSERT_OK(check_nic(&c, /* s= */ NULL, &l));
        ASSERT_INT_EQ(l.n_checks, 4);
        assert_checks(&l, expect, n, tree);
        check_list_done(&l);
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
                { "nic.driver", CHECK_FAIL, "no driver is bound to 0000:c2:00.0: load it (`modprobe ice`)" },
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
                { "nic.firmware", CHECK_SKIP, "the profile has no nic: section" },
        };

        run(HOSTS "nic-e810-x4", yaml, skip, ELEMENTSOF(skip));
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
}

static void test_ddp_state(void) {
        static const struct {
                const char *message;
                IceDdpState state;
        } cases[] = {
                { "ice 0000:c2:00.0: The DDP package was successfully loaded: ICE OS Default Package version 1.3.36.0",
                  ICE_DDP_LOADED },
                { "ice 0000:c2:00.1: DDP package already present on device: ICE OS Default Package version 1.3.36.0",
                  ICE_DDP_UNKNOWN },
                { "ice 0000:c2:00.0: DDP package already present on device: ICE OS Default Package version 1.3.36.0",
                  ICE_DDP_LOADED },
                { "ice 0000:c2:00.0: The DDP package file was not found or could not be read. Entering Safe Mode",
                  ICE_DDP_SAFE_MODE },
                { "ice 0000:c2:00.0: Advanced features are disabled - Device now in Safe Mode",
                  ICE_DDP_SAFE_MODE },
                { "ice 0000:c2:00.00: Entering Safe Mode", ICE_DDP_UNKNOWN }, /* another address */
                { "i40e 0000:c2:00.0: Safe Mode", ICE_DDP_UNKNOWN },
                { "ice: Intel(R) Ethernet Connection E800 Series Linux Driver", ICE_DDP_UNKNOWN },
                { "", ICE_DDP_UNKNOWN },
        };
        Host loaded = { .root = HOSTS "nic-e810-x4" }, safe = { .root = HOSTS "nic-e810-safe-mode" },
             missing = { .root = HOSTS "does-not-exist" };
        _cleanup_(freep) char *detail = NULL;
        IceDdpState s;

        for (size_t i = 0; i < ELEMENTSOF(cases); i++)
                ASSERT_INT_EQ(ice_ddp_state_from_message(cases[i].message, "0000:c2:00.0"), cases[i].state);

        ASSERT_OK(ice_ddp_state_from_kmsg(&loaded, "0000:c2:00.0", &s, &detail));
        ASSERT_INT_EQ(s, ICE_DDP_LOADED);
        ASSERT_TRUE(strstr(detail, "ICE OS Default Package version 1.3.36.0"));
        detail = mfree(detail);
        ASSERT_OK(ice_ddp_state_from_kmsg(&safe, "0000:c2:00.0", &s, &detail));
        ASSERT_INT_EQ(s, ICE_DDP_SAFE_MODE);
        ASSERT_STR_EQ(detail, "ice 0000:c2:00.0: Advanced features are disabled - Device now in Safe Mode");
        ASSERT_OK(ice_ddp_state_from_kmsg(&safe, "0000:c3:00.0", &s, NULL));
        ASSERT_INT_EQ(s, ICE_DDP_UNKNOWN);
        ASSERT_INT_EQ(ice_ddp_state_from_kmsg(&missing, "0000:c2:00.0", &s, NULL), -ENOENT);
}

/* A scratch copy of a fixture tree without one of its paths: what a sandbox or a user without
 * privileges does not see. */
static char *copy_tree_without(const char *tree, const char *hidden) {
        char *root = strdup("/tmp/nic-hidden-XXXXXX");
        _cleanup_(freep) char *cmd = NULL;

        ASSERT_TRUE(root && mkdtemp(root));
        ASSERT_TRUE(chmod(root, 0755) >= 0);
        ASSERT_TRUE(asprintf(&cmd, "cp -a '%s'/. '%s' && rm -r '%s/%s'", tree, root, root, hidden) >= 0);
        ASSERT_INT_EQ(system(cmd), 0);
        return root;
}

static void remove_tree(char *root) {
        _cleanup_(freep) char *cmd = NULL;

        ASSERT_TRUE(asprintf(&cmd, "rm -rf '%s'", root) >= 0);
        ASSERT_INT_EQ(system(cmd), 0);
        free(root);
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

int main(void) {
        test_reference_board();
        test_other_trees();
        test_not_a_pci_child();
        test_no_nic_section();
        test_firmware_evaluate();
        test_pcie_evaluate();
        test_ddp_state();
        test_could_not_look();
        printf("test-check-nic: ok\n");
        return 0;
}
