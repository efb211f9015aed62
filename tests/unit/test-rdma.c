/* SPDX-License-Identifier: MIT */
/* Tests lib/rdma/rdma.c against the libibverbs test double: device lookup, port, GID table and index. */
#include <arpa/inet.h>

#include "basic/rdma-mtu.h"
#include "fake-verbs.h"
#include "rdma/rdma.h"
#include "tests.h"

#define E810_ROOT TEST_DATA_DIR "/hosts/nic-e810-x4"
#define E810_PCI "0000:c2:00.0"
#define E810_IFINDEX 4

static struct in_addr ipv4(const char *s) {
        struct in_addr a;

        ASSERT_TRUE(inet_pton(AF_INET, s, &a) == 1);
        return a;
}

/* What irdma shows on a configured E810 port: the link-local and the IPv4 GID, RoCE v2 only. */
static struct ibv_gid_entry healthy_gids[FAKE_IRDMA_GIDS];

static void setup_tables(void) {
        fake_gids_irdma(healthy_gids, 0x6efe54fffe123456ULL, "192.168.100.1", E810_IFINDEX);
}

static FakeVerbsDevice irdma(void) {
        return fake_device_active("irdma0", healthy_gids, ELEMENTSOF(healthy_gids));
}

static void test_find_healthy(void) {
        Host h = { .root = E810_ROOT };
        struct ibv_gid_entry other[] = { fake_gid_ipv4(0, "10.0.0.1", IBV_GID_TYPE_ROCE_V2, 7) };
        FakeVerbsDevice devices[] = {
                { .name = "mlx5_0",
                  .state = IBV_PORT_ACTIVE,
                  .phys_state = 5,
                  .active_mtu = IBV_MTU_1024,
                  .max_mtu = IBV_MTU_4096,
                  .gids = other,
                  .n_gids = ELEMENTSOF(other) },
                irdma(),
        };
        RdmaDevice *d = NULL;
        RdmaGid g;

        fake_verbs_setup(devices, ELEMENTSOF(devices), 0);
        /* By the GID table's netdev: the second device. */
        ASSERT_OK(rdma_device_find(&h, NULL, E810_IFINDEX, &d));
        ASSERT_TRUE(fake_verbs_called());
        ASSERT_STR_EQ(d->name, "irdma0");
        ASSERT_INT_EQ(d->port, 1);
        ASSERT_INT_EQ(d->state, RDMA_PORT_ACTIVE);
        ASSERT_INT_EQ(d->phys_state, RDMA_PHYS_STATE_LINK_UP);
        ASSERT_INT_EQ(d->active_mtu, 4096);
        ASSERT_INT_EQ(d->n_gids, 2);
        ASSERT_INT_EQ(fake_verbs_open_contexts(), 1); /* ours, kept open; mlx5_0's was closed */

        /* irdma registers RoCE v2 only: one entry for the address, at 1, and no RoCE v1 one. */
        ASSERT_OK(rdma_device_find_gid(d, RDMA_GID_ROCE_V2, ipv4("192.168.100.1"), &g));
        ASSERT_INT_EQ(g.index, 1);
        ASSERT_INT_EQ(g.type, RDMA_GID_ROCE_V2);
        ASSERT_INT_EQ(rdma_device_find_gid(d, RDMA_GID_ROCE_V1, ipv4("192.168.100.1"), &g), -ENOENT);
        ASSERT_INT_EQ(rdma_device_find_gid(d, RDMA_GID_ROCE_V2, ipv4("192.168.100.2"), &g), -ENOENT);

        d = rdma_device_free(d);
        ASSERT_INT_EQ(fake_verbs_open_contexts(), 0);
}

static void test_find_by_pci(void) {
        Host h = { .root = E810_ROOT };
        FakeVerbsDevice devices[] = { irdma() };
        RdmaDevice *d = NULL;

        /* No address on the netdev yet, so no GID points at it: the sysfs PCI parent decides. */
        devices[0].gids = NULL;
        devices[0].n_gids = 0;
        fake_verbs_setup(devices, ELEMENTSOF(devices), 0);
        ASSERT_OK(rdma_device_find(&h, E810_PCI, E810_IFINDEX, &d));
        ASSERT_STR_EQ(d->name, "irdma0");
        ASSERT_INT_EQ(d->n_gids, 0);
        d = rdma_device_free(d);

        /* Another PCI device, another ifindex: nothing. */
        ASSERT_INT_EQ(rdma_device_find(&h, "0000:01:00.0", 9, &d), -ENODEV);
        ASSERT_TRUE(!d);

        /* The matching device cannot be opened: say why rather than "no device". */
        devices[0].open_fails = true;
        ASSERT_INT_EQ(rdma_device_find(&h, E810_PCI, E810_IFINDEX, &d), -EACCES);
        ASSERT_INT_EQ(fake_verbs_open_contexts(), 0);
}

static void test_no_devices(void) {
        Host h = { .root = E810_ROOT };
        RdmaDevice *d = NULL;

        fake_verbs_setup(NULL, 0, 0);
        ASSERT_INT_EQ(rdma_device_find(&h, E810_PCI, E810_IFINDEX, &d), -ENODEV);
        /* A kernel without RDMA: ibv_get_device_list() fails with ENOSYS. */
        fake_verbs_setup(NULL, 0, ENOSYS);
        ASSERT_INT_EQ(rdma_device_find(&h, E810_PCI, E810_IFINDEX, &d), -ENOSYS);
        ASSERT_TRUE(!d);
}

static void test_port_down(void) {
        Host h = { .root = E810_ROOT };
        FakeVerbsDevice devices[] = { irdma() };
        char buf[RDMA_STATE_STRING_MAX];
        RdmaDevice *d = NULL;

        devices[0].state = IBV_PORT_DOWN;
        devices[0].phys_state = 3;
        fake_verbs_setup(devices, 1, 0);
        ASSERT_OK(rdma_device_find(&h, E810_PCI, E810_IFINDEX, &d));
        ASSERT_STR_EQ(rdma_port_state_to_string(d->state, buf), "DOWN");
        ASSERT_STR_EQ(rdma_phys_state_to_string(d->phys_state, buf), "DISABLED");
        ASSERT_STR_EQ(rdma_port_state_to_string(17, buf), "UNKNOWN(17)");
        ASSERT_STR_EQ(rdma_phys_state_to_string(0, buf), "UNKNOWN(0)");
        d = rdma_device_free(d);
}

static void test_gid_moves(void) {
        Host h = { .root = E810_ROOT };
        /* The address was removed and added again after another one: its entry now sits at 2, and
         * index 1 (what a stale reader would confirm) holds the other address. */
        struct ibv_gid_entry moved[] = {
                healthy_gids[0],
                fake_gid_ipv4(1, "192.168.101.1", IBV_GID_TYPE_ROCE_V2, E810_IFINDEX),
                fake_gid_ipv4(2, "192.168.100.1", IBV_GID_TYPE_ROCE_V2, E810_IFINDEX),
        };
        FakeVerbsDevice devices[] = { irdma() };
        RdmaDevice *d = NULL;
        RdmaGid g;

        devices[0].gids_after = moved;
        devices[0].n_gids_after = ELEMENTSOF(moved);
        /* rdma_device_find() reads the table twice; the lookup's first read is the third. */
        devices[0].move_after = 3;
        fake_verbs_setup(devices, 1, 0);
        ASSERT_OK(rdma_device_find(&h, E810_PCI, E810_IFINDEX, &d));
        ASSERT_OK(rdma_device_find_gid(d, RDMA_GID_ROCE_V2, ipv4("192.168.100.1"), &g));
        ASSERT_INT_EQ(g.index, 2);
        d = rdma_device_free(d);

        /* A table that changes on every read: give up with -EAGAIN rather than guess. */
        devices[0].move_after = 0;
        devices[0].flip = true;
        fake_verbs_setup(devices, 1, 0);
        ASSERT_OK(rdma_device_find(&h, E810_PCI, E810_IFINDEX, &d));
        ASSERT_INT_EQ(rdma_device_find_gid(d, RDMA_GID_ROCE_V2, ipv4("192.168.100.1"), &g), -EAGAIN);
        d = rdma_device_free(d);
}

static void test_gid_table_unsupported(void) {
        Host h = { .root = E810_ROOT };
        FakeVerbsDevice devices[] = { irdma() };
        RdmaDevice *d = NULL;
        RdmaGid g;

        /* Older kernels: no table query, so every index is read one by one. */
        devices[0].table_unsupported = true;
        fake_verbs_setup(devices, 1, 0);
        ASSERT_OK(rdma_device_find(&h, NULL, E810_IFINDEX, &d));
        ASSERT_INT_EQ(d->n_gids, 2);
        ASSERT_OK(rdma_device_find_gid(d, RDMA_GID_ROCE_V2, ipv4("192.168.100.1"), &g));
        ASSERT_INT_EQ(g.index, 1);
        d = rdma_device_free(d);
}

#define CX5_ROOT TEST_DATA_DIR "/hosts/nic-cx5-dual-x4"
#define CX5_PCI0 "0000:01:00.0"
#define CX5_PCI1 "0000:01:00.1"
#define CX5_IFINDEX0 4
#define CX5_IFINDEX1 5

/* mlx5 lists a GID of each type its HCA's roce_version_cap reports: firmware that reports RoCE v1
 * only gives one v1 entry per address and no v2 entry at all. */
static void test_gid_roce_v1_only(void) {
        Host h = { .root = CX5_ROOT };
        struct ibv_gid_entry v1[] = {
                fake_gid_link_local(0, 0xbacef6fffe123456ULL, IBV_GID_TYPE_ROCE_V1, CX5_IFINDEX0),
                fake_gid_ipv4(1, "10.0.1.2", IBV_GID_TYPE_ROCE_V1, CX5_IFINDEX0),
        };
        FakeVerbsDevice devices[] = { fake_device_active("mlx5_0", v1, ELEMENTSOF(v1)) };
        RdmaDevice *d = NULL;
        RdmaGid g;

        fake_verbs_setup(devices, 1, 0);
        ASSERT_OK(rdma_device_find(&h, CX5_PCI0, CX5_IFINDEX0, &d));
        ASSERT_INT_EQ(rdma_device_find_gid(d, RDMA_GID_ROCE_V2, ipv4("10.0.1.2"), &g), -ENOENT);
        ASSERT_OK(rdma_device_find_gid(d, RDMA_GID_ROCE_V1, ipv4("10.0.1.2"), &g));
        ASSERT_INT_EQ(g.index, 1);
        d = rdma_device_free(d);
}

/* A dual-port ConnectX-5: mlx5 makes one device per PCI function, each with one port, and lists a
 * RoCE v1 and a v2 GID per address; the device is found per function, the v2 index is the odd one. */
static void test_mlx5_dual_port(void) {
        Host h = { .root = CX5_ROOT };
        FakeConnectX5 x;
        RdmaDevice *d = NULL;
        RdmaGid g;

        fake_connectx5_dual(&x, "10.0.1.2", CX5_IFINDEX0, "10.0.2.2", CX5_IFINDEX1);
        ASSERT_INT_EQ(x.devices[0].n_gids, 4);
        fake_verbs_setup(x.devices, ELEMENTSOF(x.devices), 0);

        /* Port 1 of the card is mlx5_1, though mlx5_0 comes first in the list. */
        ASSERT_OK(rdma_device_find(&h, CX5_PCI1, CX5_IFINDEX1, &d));
        ASSERT_STR_EQ(d->name, "mlx5_1");
        ASSERT_INT_EQ(d->port, 1);
        ASSERT_INT_EQ(d->n_gids, 4);
        ASSERT_OK(rdma_device_find_gid(d, RDMA_GID_ROCE_V2, ipv4("10.0.2.2"), &g));
        ASSERT_INT_EQ(g.index, 3);
        ASSERT_INT_EQ(g.type, RDMA_GID_ROCE_V2);
        ASSERT_OK(rdma_device_find_gid(d, RDMA_GID_ROCE_V1, ipv4("10.0.2.2"), &g));
        ASSERT_INT_EQ(g.index, 2);
        /* The other port's address is not on this device. */
        ASSERT_INT_EQ(rdma_device_find_gid(d, RDMA_GID_ROCE_V2, ipv4("10.0.1.2"), &g), -ENOENT);
        d = rdma_device_free(d);

        ASSERT_OK(rdma_device_find(&h, CX5_PCI0, CX5_IFINDEX0, &d));
        ASSERT_STR_EQ(d->name, "mlx5_0");
        ASSERT_OK(rdma_device_find_gid(d, RDMA_GID_ROCE_V2, ipv4("10.0.1.2"), &g));
        ASSERT_INT_EQ(g.index, 3);
        d = rdma_device_free(d);
        ASSERT_INT_EQ(fake_verbs_open_contexts(), 0);

        /* No address on either port yet, so no GID names a netdev: each PCI function's sysfs link
         * decides (mlx5_0 -> .0, mlx5_1 -> .1). */
        fake_connectx5_dual(&x, NULL, CX5_IFINDEX0, NULL, CX5_IFINDEX1);
        fake_verbs_setup(x.devices, ELEMENTSOF(x.devices), 0);
        ASSERT_OK(rdma_device_find(&h, CX5_PCI1, CX5_IFINDEX1, &d));
        ASSERT_STR_EQ(d->name, "mlx5_1");
        ASSERT_INT_EQ(d->n_gids, 0);
        d = rdma_device_free(d);
        ASSERT_OK(rdma_device_find(&h, CX5_PCI0, CX5_IFINDEX0, &d));
        ASSERT_STR_EQ(d->name, "mlx5_0");
        d = rdma_device_free(d);
        ASSERT_INT_EQ(fake_verbs_open_contexts(), 0);
}

/* A second address on the same netdev: mlx5 adds its v1 and v2 entries after the first pair. */
static void test_mlx5_two_addresses(void) {
        static const char *const addresses[] = { "10.0.1.2", "10.0.9.2" };
        Host h = { .root = CX5_ROOT };
        struct ibv_gid_entry gids[FAKE_MLX5_GIDS_MAX];
        FakeVerbsDevice devices[1];
        RdmaDevice *d = NULL;
        RdmaGid g;
        size_t n;

        n = fake_gids_mlx5(gids, 0xbacef6fffe123456ULL, addresses, ELEMENTSOF(addresses), CX5_IFINDEX0);
        ASSERT_INT_EQ(n, 6);
        devices[0] = fake_device_active("mlx5_0", gids, n);
        fake_verbs_setup(devices, ELEMENTSOF(devices), 0);
        ASSERT_OK(rdma_device_find(&h, CX5_PCI0, CX5_IFINDEX0, &d));
        ASSERT_OK(rdma_device_find_gid(d, RDMA_GID_ROCE_V2, ipv4("10.0.1.2"), &g));
        ASSERT_INT_EQ(g.index, 3);
        ASSERT_OK(rdma_device_find_gid(d, RDMA_GID_ROCE_V2, ipv4("10.0.9.2"), &g));
        ASSERT_INT_EQ(g.index, 5);
        ASSERT_OK(rdma_device_find_gid(d, RDMA_GID_ROCE_V1, ipv4("10.0.9.2"), &g));
        ASSERT_INT_EQ(g.index, 4);
        d = rdma_device_free(d);
}

static void test_helpers(void) {
        struct in6_addr m = rdma_ipv4_mapped(ipv4("192.168.100.1"));
        char s[INET6_ADDRSTRLEN];

        ASSERT_STR_EQ(inet_ntop(AF_INET6, &m, s, sizeof(s)), "::ffff:192.168.100.1");
}

/* basic/rdma-mtu.h's codes are libibverbs' enum ibv_mtu. */
static void test_mtus(void) {
        static const struct {
                int code;
                unsigned bytes;
        } valid[] = {
                { IBV_MTU_256, 256 },   { IBV_MTU_512, 512 },   { IBV_MTU_1024, 1024 },
                { IBV_MTU_2048, 2048 }, { IBV_MTU_4096, 4096 },
        };
        static const struct {
                unsigned bytes;
                unsigned fitting;
        } fits[] = {
                { 0, 0 },       { 255, 0 },     { 256, 256 },   { 1023, 512 },
                { 1404, 1024 }, { 4096, 4096 }, { 9000, 4096 },
        };

        for (size_t i = 0; i < ELEMENTSOF(valid); i++) {
                ASSERT_INT_EQ(rdma_mtu_to_bytes(valid[i].code), valid[i].bytes);
                ASSERT_INT_EQ(rdma_mtu_from_bytes(valid[i].bytes), valid[i].code);
                ASSERT_TRUE(rdma_mtu_is_valid(valid[i].bytes));
        }
        ASSERT_INT_EQ(rdma_mtu_to_bytes(0), 0);
        ASSERT_INT_EQ(rdma_mtu_to_bytes(6), 0);
        ASSERT_INT_EQ(rdma_mtu_from_bytes(1500), 0);
        ASSERT_TRUE(!rdma_mtu_is_valid(0));
        ASSERT_TRUE(!rdma_mtu_is_valid(768));
        ASSERT_TRUE(!rdma_mtu_is_valid(8192));
        for (size_t i = 0; i < ELEMENTSOF(fits); i++)
                ASSERT_INT_EQ(rdma_mtu_fitting(fits[i].bytes), fits[i].fitting);
}

int main(void) {
        setup_tables();
        test_find_healthy();
        test_find_by_pci();
        test_no_devices();
        test_port_down();
        test_gid_roce_v1_only();
        test_gid_moves();
        test_gid_table_unsupported();
        test_mlx5_dual_port();
        test_mlx5_two_addresses();
        test_helpers();
        test_mtus();
        printf("test-rdma: ok\n");
        return 0;
}
