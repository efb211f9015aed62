/* SPDX-License-Identifier: MIT */
/* Tests lib/nic/nic-family.c: E810 and ConnectX told apart by driver, PCI id, RDMA device name and
 * fixture host trees, and what is said to the user for each. */
#include <stdio.h>
#include <stdlib.h>

#include "basic/macro.h"
#include "nic/nic-facts.h"
#include "nic/nic-family.h"
#include "tests.h"

#define HOSTS TEST_DATA_DIR "/hosts/"

static void test_from_driver_and_name(void) {
        ASSERT_INT_EQ(nic_family_from_driver("ice"), NIC_FAMILY_E810);
        ASSERT_INT_EQ(nic_family_from_driver("mlx5_core"), NIC_FAMILY_CONNECTX);
        ASSERT_INT_EQ(
                nic_family_from_driver("mlx5_ib"), NIC_FAMILY_UNKNOWN); /* the RDMA module, not a netdev's */
        ASSERT_INT_EQ(nic_family_from_driver("r8169"), NIC_FAMILY_UNKNOWN);
        ASSERT_INT_EQ(nic_family_from_driver(NULL), NIC_FAMILY_UNKNOWN);

        ASSERT_INT_EQ(nic_family_from_rdma_device("irdma0"), NIC_FAMILY_E810);
        ASSERT_INT_EQ(nic_family_from_rdma_device("mlx5_0"), NIC_FAMILY_CONNECTX);
        ASSERT_INT_EQ(nic_family_from_rdma_device("mlx5_1"), NIC_FAMILY_CONNECTX);
        ASSERT_INT_EQ(nic_family_from_rdma_device("mlx4_0"), NIC_FAMILY_UNKNOWN);
        ASSERT_INT_EQ(nic_family_from_rdma_device("rxe0"), NIC_FAMILY_UNKNOWN);
        ASSERT_INT_EQ(nic_family_from_rdma_device(NULL), NIC_FAMILY_UNKNOWN);

        ASSERT_STR_EQ(nic_family_to_string(NIC_FAMILY_CONNECTX), "connectx");
        ASSERT_INT_EQ(nic_family_from_string("e810"), NIC_FAMILY_E810);
        ASSERT_INT_EQ(nic_family_from_string("bluefield"), _NIC_FAMILY_INVALID);
        ASSERT_TRUE(!nic_family_to_string(_NIC_FAMILY_MAX));
}

static void test_pci_ids(void) {
        static const struct {
                PciId id;
                NicFamily family;
                unsigned gbit;
        } cases[] = {
                { { 0x8086, 0x1592 }, NIC_FAMILY_E810, 100 },     /* E810-C for QSFP */
                { { 0x8086, 0x1593 }, NIC_FAMILY_E810, 25 },      /* E810-C for SFP */
                { { 0x8086, 0x159b }, NIC_FAMILY_E810, 25 },      /* E810-XXV for SFP */
                { { 0x8086, 0x1572 }, NIC_FAMILY_UNKNOWN, 0 },    /* X710: i40e */
                { { 0x15b3, 0x1017 }, NIC_FAMILY_CONNECTX, 100 }, /* ConnectX-5 */
                { { 0x15b3, 0x1019 }, NIC_FAMILY_CONNECTX, 100 }, /* ConnectX-5 Ex */
                { { 0x15b3, 0x101b }, NIC_FAMILY_CONNECTX, 200 }, /* ConnectX-6 */
                { { 0x15b3, 0x101d }, NIC_FAMILY_CONNECTX, 200 }, /* ConnectX-6 Dx: its largest port */
                { { 0x15b3, 0x1021 }, NIC_FAMILY_CONNECTX, 400 }, /* ConnectX-7 */
                { { 0x15b3, 0x1015 }, NIC_FAMILY_CONNECTX, 0 },   /* ConnectX-4 Lx: the family, no rate */
                { { 0x10ec, 0x8125 }, NIC_FAMILY_UNKNOWN, 0 },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                ASSERT_INT_EQ(nic_family_from_pci_id(cases[i].id), cases[i].family);
                ASSERT_INT_EQ(nic_line_rate_from_id(cases[i].id), cases[i].gbit);
        }
}

/* check_rdma's family per port, from the snapshot's NIC facts (nic_facts_family()): the driver they
 * read, else the PCI ids, as nic_family_of_pci() says from sysfs. */
static void test_facts_family(void) {
        PciDevice vfio = { .id = { 0x8086, 0x1592 }, .driver = (char *) "vfio-pci" };
        PciDevice unbound = { .id = { 0x15b3, 0x1017 } };
        PciDevice ice = { .id = { 0x8086, 0x1592 }, .driver = (char *) "ice" };
        PciDevice other = { .id = { 0x10ec, 0x8125 }, .driver = (char *) "r8169" };
        static const int not_asked = -ENOMEDIUM;
        const struct {
                NicFacts facts;
                NicFamily family;
        } cases[] = {
                /* The driver libpci names. */
                { { .device = &ice, .info_error = not_asked, .devlink_error = not_asked }, NIC_FAMILY_E810 },
                /* Bound to vfio-pci, or to nothing: the ids still say. */
                { { .device = &vfio, .info_error = not_asked, .devlink_error = not_asked }, NIC_FAMILY_E810 },
                { { .device = &unbound, .info_error = not_asked, .devlink_error = not_asked },
                  NIC_FAMILY_CONNECTX },
                /* ethtool's driver first, as nic_facts_driver() says. */
                { { .device = &unbound,
                    .info = { .driver = "mlx5_core" },
                    .info_error = 0,
                    .devlink_error = not_asked },
                  NIC_FAMILY_CONNECTX },
                /* Without libpci: the driver sysfs names. */
                { { .sysfs_driver = (char *) "mlx5_core",
                    .device_error = -ELIBACC,
                    .info_error = not_asked,
                    .devlink_error = not_asked },
                  NIC_FAMILY_CONNECTX },
                { { .device = &other, .info_error = not_asked, .devlink_error = not_asked },
                  NIC_FAMILY_UNKNOWN },
                /* No PCI device for the port (a veth). */
                { { .device_error = -ENODEV, .info_error = not_asked, .devlink_error = not_asked },
                  NIC_FAMILY_UNKNOWN },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++)
                ASSERT_INT_EQ(nic_facts_family(&cases[i].facts), cases[i].family);
}

static void test_what_is_said(void) {
        static const struct {
                NicFamily family;
                const char *name, *driver, *rdma, *prefix, *firmware, *tool;
        } cases[] = {
                { NIC_FAMILY_E810, "E810", "ice", "irdma", "irdma", "E810 NVM", "Intel's nvmupdate64e" },
                { NIC_FAMILY_CONNECTX,
                  "ConnectX",
                  "mlx5_core",
                  "mlx5_ib",
                  "mlx5_",
                  "ConnectX firmware",
                  "mlxfwmanager, or fwupd" },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                ASSERT_STR_EQ(nic_family_display_name(cases[i].family), cases[i].name);
                ASSERT_STR_EQ(nic_family_driver(cases[i].family), cases[i].driver);
                ASSERT_STR_EQ(nic_family_rdma_module(cases[i].family), cases[i].rdma);
                ASSERT_STR_EQ(nic_family_rdma_prefix(cases[i].family), cases[i].prefix);
                ASSERT_STR_EQ(nic_family_firmware_name(cases[i].family), cases[i].firmware);
                ASSERT_STR_EQ(nic_family_firmware_tool(cases[i].family), cases[i].tool);
        }
        ASSERT_TRUE(!nic_family_rdma_module(NIC_FAMILY_UNKNOWN));
        ASSERT_TRUE(!nic_family_display_name(_NIC_FAMILY_INVALID));

        {
                _cleanup_(freep) char *s = nic_family_modprobe(NIC_FAMILY_CONNECTX, NIC_MODULE_RDMA);
                ASSERT_STR_EQ(s, "`modprobe mlx5_ib` for ConnectX");
        }
        {
                _cleanup_(freep) char *s = nic_family_modprobe(NIC_FAMILY_E810, NIC_MODULE_DRIVER);
                ASSERT_STR_EQ(s, "`modprobe ice` for E810");
        }
        {
                _cleanup_(freep) char *s = nic_family_modprobe(NIC_FAMILY_UNKNOWN, NIC_MODULE_RDMA);
                ASSERT_STR_EQ(s, "`modprobe irdma` for E810, `modprobe mlx5_ib` for ConnectX");
        }
}

static void test_host_trees(void) {
        Host e810 = { .root = HOSTS "nic-e810-x4" }, cx5 = { .root = HOSTS "nic-cx5-dual-x4" },
             unbound = { .root = HOSTS "nic-no-netdev" }, realtek = { .root = HOSTS "nic-absent" },
             none = { .root = HOSTS "does-not-exist" };

        ASSERT_INT_EQ(nic_family_of_pci(&e810, "0000:c2:00.0"), NIC_FAMILY_E810);
        ASSERT_INT_EQ(nic_family_of_pci(&cx5, "0000:01:00.0"), NIC_FAMILY_CONNECTX);
        ASSERT_INT_EQ(nic_family_of_pci(&cx5, "0000:01:00.1"), NIC_FAMILY_CONNECTX);
        /* No driver bound: the PCI id still says. */
        ASSERT_INT_EQ(nic_family_of_pci(&unbound, "0000:c2:00.0"), NIC_FAMILY_E810);
        ASSERT_INT_EQ(nic_family_of_pci(&realtek, "0000:01:00.0"), NIC_FAMILY_UNKNOWN);
        ASSERT_INT_EQ(nic_family_of_pci(&cx5, "0000:02:00.0"), NIC_FAMILY_UNKNOWN);
        ASSERT_INT_EQ(nic_family_of_pci(&cx5, NULL), NIC_FAMILY_UNKNOWN);

        ASSERT_INT_EQ(nic_family_on_host(&e810), NIC_FAMILY_E810);
        ASSERT_INT_EQ(nic_family_on_host(&cx5), NIC_FAMILY_CONNECTX);
        ASSERT_INT_EQ(nic_family_on_host(&realtek), NIC_FAMILY_UNKNOWN);
        ASSERT_INT_EQ(nic_family_on_host(&none), NIC_FAMILY_UNKNOWN);
}

/* A host with both an E810 and a ConnectX: no one family is the host's. */
static void test_host_with_both(void) {
        char root[] = "/tmp/nic-family-XXXXXX";
        _cleanup_(freep) char *cmd = NULL;
        Host h = { .root = root };

        ASSERT_TRUE(mkdtemp(root));
        ASSERT_TRUE(
                asprintf(
                        &cmd,
                        "set -e; d=%s/sys/bus/pci/devices; mkdir -p $d/0000:c2:00.0 $d/0000:01:00.0; "
                        "echo 0x8086 >$d/0000:c2:00.0/vendor; echo 0x1592 >$d/0000:c2:00.0/device; "
                        "echo 0x15b3 >$d/0000:01:00.0/vendor; echo 0x1017 >$d/0000:01:00.0/device",
                        root) >= 0);
        ASSERT_INT_EQ(system(cmd), 0);
        ASSERT_INT_EQ(nic_family_of_pci(&h, "0000:01:00.0"), NIC_FAMILY_CONNECTX);
        ASSERT_INT_EQ(nic_family_on_host(&h), NIC_FAMILY_UNKNOWN);
        cmd = mfree(cmd);
        ASSERT_TRUE(asprintf(&cmd, "rm -rf '%s'", root) >= 0);
        ASSERT_INT_EQ(system(cmd), 0);
}

int main(void) {
        test_from_driver_and_name();
        test_pci_ids();
        test_facts_family();
        test_what_is_said();
        test_host_trees();
        test_host_with_both();
        printf("test-nic-family: ok\n");
        return 0;
}
