/* SPDX-License-Identifier: MIT */
/* Tests lib/nic/pci.c through the real libpci on fixture sysfs trees (sysfs.path below the host root). */
#include "basic/strv.h"
#include "nic/pci.h"
#include "tests.h"

#define HOSTS TEST_DATA_DIR "/hosts/"
#define E810_PCI "0000:c2:00.0"

static void test_e810(const char *tree, unsigned width, PcieLinkSource source) {
        Host h = { .root = tree };
        _cleanup_(pci_device_freep) PciDevice *d = NULL;

        ASSERT_OK(pci_device_get(&h, E810_PCI, &d));
        ASSERT_STR_EQ(d->address, E810_PCI);
        ASSERT_INT_EQ(d->id.vendor, 0x8086);
        ASSERT_INT_EQ(d->id.device, 0x1592);
        ASSERT_INT_EQ(d->class_id, 0x0200);
        ASSERT_STR_EQ(d->name, "Intel Corporation Ethernet Controller E810-C for QSFP");
        ASSERT_STR_EQ(d->driver, "ice");
        ASSERT_INT_EQ(d->link_source, source);
        ASSERT_INT_EQ(d->current.speed_mts, source == PCIE_LINK_SYSFS ? 16000 : 16000);
        ASSERT_INT_EQ(d->current.width, width);
        ASSERT_INT_EQ(d->capable.speed_mts, 16000);
        ASSERT_INT_EQ(d->capable.width, 16);
}

static void test_devices(void) {
        _cleanup_(pci_device_freep) PciDevice *d = NULL;
        Host absent = { .root = HOSTS "nic-absent" }, unbound = { .root = HOSTS "nic-no-netdev" };

        /* PCIe capability in config space: 16 GT/s x4 negotiated, x16 capable. */
        test_e810(HOSTS "nic-e810-x4", 4, PCIE_LINK_CONFIG);
        test_e810(HOSTS "nic-e810-x16", 16, PCIE_LINK_CONFIG);
        /* Only 64 bytes of config space (a non-root reader): the link comes from sysfs. */
        test_e810(HOSTS "nic-e810-config-64", 8, PCIE_LINK_SYSFS);

        ASSERT_INT_EQ(pci_device_get(&absent, E810_PCI, &d), -ENODEV);
        ASSERT_TRUE(!d);
        ASSERT_OK(pci_device_get(&absent, "0000:01:00.0", &d));
        ASSERT_STR_EQ(d->name, "Realtek Semiconductor Co., Ltd. RTL8125 2.5GbE Controller");
        ASSERT_STR_EQ(d->driver, "r8169");
        d = pci_device_free(d);

        /* Present but unbound: no driver, still named. */
        ASSERT_OK(pci_device_get(&unbound, E810_PCI, &d));
        ASSERT_TRUE(!d->driver);
        ASSERT_STR_EQ(d->name, "Intel Corporation Ethernet Controller E810-C for QSFP");
}

static void test_libpci_errors(void) {
        /* libpci's own error path: it cannot open the devices directory. Its default handler would
         * exit the process; ours turns it into -EIO, twice in a row (the jump target is reset). */
        Host missing = { .root = HOSTS "does-not-exist" };
        PciDevice *d = NULL;
        char **l = NULL;

        ASSERT_INT_EQ(pci_device_get(&missing, E810_PCI, &d), -EIO);
        ASSERT_INT_EQ(pci_device_get(&missing, E810_PCI, &d), -EIO);
        ASSERT_INT_EQ(pci_devices_find_ids(&missing, &(PciId){ 0x8086, 0x1592 }, 1, &l), -EIO);
        ASSERT_TRUE(!d && !l);
        ASSERT_INT_EQ(pci_device_get(&missing, NULL, &d), -EINVAL);
}

static void test_find_ids(void) {
        static const PciId e810[] = { { 0x8086, 0x1592 }, { 0x8086, 0x1593 } };
        Host x4 = { .root = HOSTS "nic-e810-x4" }, absent = { .root = HOSTS "nic-absent" };
        _cleanup_(strv_freep) char **l = NULL;

        ASSERT_OK(pci_devices_find_ids(&x4, e810, ELEMENTSOF(e810), &l));
        ASSERT_INT_EQ(strv_length(l), 1);
        ASSERT_STR_EQ(l[0], E810_PCI);
        l = strv_free(l);
        ASSERT_OK(pci_devices_find_ids(&absent, e810, ELEMENTSOF(e810), &l));
        ASSERT_TRUE(!l);
}

static void test_bandwidth(void) {
        static const struct {
                unsigned speed, width;
                double gbit;
        } cases[] = {
                { 16000, 4, 63.015 },   /* the reference board: Gen4 x4 */
                { 16000, 16, 252.062 }, /* what the card can do */
                { 8000, 16, 126.031 },
                { 8000, 4, 31.508 },
                { 5000, 8, 32.0 }, /* 8b/10b */
                { 2500, 1, 2.0 },
                { 32000, 16, 504.123 },
                { 64000, 16, 968.0 }, /* FLIT mode */
                { 0, 4, 0 },
                { 16000, 0, 0 },
        };
        char buf[PCIE_SPEED_STRING_MAX];
        unsigned mts;

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                double g = pcie_link_gbit(&(PcieLink){ cases[i].speed, cases[i].width });
                ASSERT_TRUE(g > cases[i].gbit - 0.01 && g < cases[i].gbit + 0.01);
        }
        ASSERT_STR_EQ(pcie_speed_to_string(2500, buf), "2.5");
        ASSERT_STR_EQ(pcie_speed_to_string(16000, buf), "16");
        ASSERT_INT_EQ(pcie_generation(16000), 4);
        ASSERT_INT_EQ(pcie_generation(2500), 1);
        ASSERT_INT_EQ(pcie_generation(1234), 0);

        ASSERT_OK(pcie_speed_from_sysfs("16.0 GT/s PCIe", &mts));
        ASSERT_INT_EQ(mts, 16000);
        ASSERT_OK(pcie_speed_from_sysfs("2.5 GT/s PCIe", &mts));
        ASSERT_INT_EQ(mts, 2500);
        ASSERT_OK(pcie_speed_from_sysfs("8.0 GT/s", &mts)); /* older kernels */
        ASSERT_INT_EQ(mts, 8000);
        ASSERT_INT_EQ(pcie_speed_from_sysfs("Unknown", &mts), -EBADMSG);
        ASSERT_INT_EQ(pcie_speed_from_sysfs("Unknown speed", &mts), -EBADMSG);
        ASSERT_INT_EQ(pcie_speed_from_sysfs("16.0", &mts), -EBADMSG);
        ASSERT_INT_EQ(pcie_speed_from_sysfs(NULL, &mts), -EINVAL);
}

int main(void) {
        test_devices();
        test_libpci_errors();
        test_find_ids();
        test_bandwidth();
        printf("test-pci: ok\n");
        return 0;
}
