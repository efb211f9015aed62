/* SPDX-License-Identifier: MIT */
/* The snapshot's MTU part and the one reader of a netdev's PCI function, below the fixture trees of
 * tests/data/hosts (made by make-nic-fixtures.py as sysfs lays them out). The RDMA part is tested
 * with the libibverbs double in test-check-rdma, test-cdi and test-metrics-rdma. */
#include <stdlib.h>

#include "basic/macro.h"
#include "check-test.h"
#include "nic/netdev-pci.h"
#include "snapshot/snapshot-rdma.h"
#include "tests.h"

#define HOSTS TEST_DATA_DIR "/hosts/"

static const char yaml[] =
        "cluster: test\n"
        "links:\n"
        "  rdma0: { match: { name: enp1s0f0np0 } }\n"
        "  rdma1: { match: { name: enp9s0 } }\n"
        "nodes:\n"
        "  head: { links: { rdma0: 192.168.100.1/30, rdma1: 192.168.101.1/30 } }\n";

static void test_mtu(void) {
        _cleanup_(profile_freep) Profile *p = test_profile_load(yaml);
        Host h = { .root = HOSTS "nic-cx5-x4" };
        NodeContext c = { .host = &h, .profile = p, .node = profile_find_node(p, "head") };
        _cleanup_(snapshot_done) Snapshot s = {};
        size_t i = SIZE_MAX;

        snapshot_init(&s, &c);
        /* Not read yet: nothing known, nothing found. */
        ASSERT_INT_EQ(snapshot_port_mtu(&s, 0), 0);
        ASSERT_INT_EQ(snapshot_port_by_link(&s, "rdma0", &i), -ENOENT);

        ASSERT_OK(snapshot_read(&s, SNAPSHOT_MTU));
        ASSERT_TRUE(s.parts & SNAPSHOT_PORTS);
        /* Below --root the tree's sysfs says it: the fixture's 9000. */
        ASSERT_OK(snapshot_port_by_link(&s, "rdma0", &i));
        ASSERT_INT_EQ(i, 0);
        ASSERT_INT_EQ(snapshot_port_mtu(&s, 0), 9000);
        /* A link without a netdev in the tree has no MTU to say. */
        ASSERT_OK(snapshot_port_by_link(&s, "rdma1", &i));
        ASSERT_INT_EQ(i, 1);
        ASSERT_INT_EQ(snapshot_port_mtu(&s, 1), 0);
        ASSERT_INT_EQ(snapshot_port_by_link(&s, "rdma7", &i), -ENOENT);
        ASSERT_INT_EQ(snapshot_port_mtu(&s, 2), 0);

        /* The MTUs are the kernel's link state: an apply (forgetting the links) forgets them. */
        snapshot_forget(&s, SNAPSHOT_LINKS);
        ASSERT_TRUE(!(s.parts & SNAPSHOT_MTU));
        ASSERT_INT_EQ(snapshot_port_mtu(&s, 0), 0);
        ASSERT_OK(snapshot_read(&s, SNAPSHOT_MTU));
        ASSERT_INT_EQ(snapshot_port_mtu(&s, 0), 9000);
}

static void test_netdev_pci_address(void) {
        Host cx5 = { .root = HOSTS "nic-cx5-x4" }, virtio = { .root = HOSTS "nic-virtio" };
        _cleanup_(freep) char *pci = NULL, *device = NULL, *bus = NULL;

        ASSERT_OK(netdev_pci_address(&cx5, "enp1s0f0np0", &pci, &device, &bus));
        ASSERT_STR_EQ(pci, "0000:01:00.0");
        ASSERT_TRUE(!device && !bus);
        pci = mfree(pci);

        /* A virtio NIC: the PCI device its virtio device hangs off. */
        ASSERT_OK(netdev_pci_address(&virtio, "enp0s3", &pci, NULL, NULL));
        ASSERT_STR_EQ(pci, "0000:00:03.0");
        pci = mfree(pci);

        /* lo has no device: a virtual interface. */
        ASSERT_INT_EQ(netdev_pci_address(&cx5, "lo", &pci, &device, &bus), -ENODEV);
        ASSERT_INT_EQ(netdev_pci_address(&cx5, "enp9s0", &pci, &device, &bus), -ENODEV);
        ASSERT_INT_EQ(netdev_pci_address(&cx5, "../x", &pci, &device, &bus), -EINVAL);
        ASSERT_INT_EQ(netdev_pci_address(&cx5, "", &pci, &device, &bus), -EINVAL);
        ASSERT_TRUE(!pci && !device && !bus);

        /* A USB NIC: its device and bus, for the message that says what it is instead. */
        {
                _cleanup_(freep) char *root = strdup("/tmp/halod-netdev-pci-XXXXXX"), *cmd = NULL;

                ASSERT_TRUE(root && mkdtemp(root));
                ASSERT_TRUE(
                        asprintf(
                                &cmd,
                                "cd '%s' && mkdir -p sys/bus/usb sys/devices/usb1/1-1/1-1:1.0/net/usb0 "
                                "sys/class/net && ln -s ../../../bus/usb sys/devices/usb1/1-1/1-1:1.0/subsystem && "
                                "ln -s ../../../1-1:1.0 sys/devices/usb1/1-1/1-1:1.0/net/usb0/device && "
                                "ln -s ../../devices/usb1/1-1/1-1:1.0/net/usb0 sys/class/net/usb0",
                                root) > 0);
                ASSERT_INT_EQ(system(cmd), 0);
                Host usb = { .root = root };
                ASSERT_INT_EQ(netdev_pci_address(&usb, "usb0", &pci, &device, &bus), -EXDEV);
                ASSERT_TRUE(!pci);
                ASSERT_STR_EQ(device, "1-1:1.0");
                ASSERT_STR_EQ(bus, "usb");
                device = mfree(device);
                bus = mfree(bus);
                cmd = mfree(cmd);
                ASSERT_TRUE(asprintf(&cmd, "rm -rf '%s'", root) > 0);
                ASSERT_INT_EQ(system(cmd), 0);
        }

        ASSERT_TRUE(pci_address_is_valid("0000:c2:00.0"));
        ASSERT_TRUE(!pci_address_is_valid("0000:c2:00.8"));
        ASSERT_TRUE(!pci_address_is_valid("virtio2"));
        ASSERT_TRUE(!pci_address_is_valid("0000:c2:00.0x"));
        ASSERT_TRUE(!pci_address_is_valid(NULL));
}

int main(void) {
        test_mtu();
        test_netdev_pci_address();
        return 0;
}
