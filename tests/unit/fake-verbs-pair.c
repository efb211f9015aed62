/* SPDX-License-Identifier: MIT */
/* Two fake RoCE devices for the RDMA probe's tests (see fake-verbs-pair.h). */
#include "fake-verbs-pair.h"
#include "tests.h"

struct ibv_gid_entry fake_pair_prober_gids[4], fake_pair_responder_gids[4];
static FakeVerbsDevice devices[2];

/* Two E810 ports as irdma shows them: link-local and IPv4 GIDs, each as RoCE v1 and v2. */
static void fill_gids(struct ibv_gid_entry *gids, uint64_t interface_id, const char *ipv4, uint32_t ifindex) {
        gids[0] = fake_gid_link_local(0, interface_id, IBV_GID_TYPE_ROCE_V1, ifindex);
        gids[1] = fake_gid_link_local(1, interface_id, IBV_GID_TYPE_ROCE_V2, ifindex);
        gids[2] = fake_gid_ipv4(2, ipv4, IBV_GID_TYPE_ROCE_V1, ifindex);
        gids[3] = fake_gid_ipv4(3, ipv4, IBV_GID_TYPE_ROCE_V2, ifindex);
}

void fake_pair_setup(void) {
        fill_gids(fake_pair_prober_gids, 0x6efe54fffe000002ULL, "127.0.0.2", FAKE_PAIR_PROBER_IFINDEX);
        fill_gids(fake_pair_responder_gids, 0x6efe54fffe000001ULL, "127.0.0.1", FAKE_PAIR_RESPONDER_IFINDEX);

        devices[0] = (FakeVerbsDevice){
                .name = "rocep1s0",
                .state = IBV_PORT_ACTIVE,
                .phys_state = 5,
                .active_mtu = IBV_MTU_4096,
                .max_mtu = IBV_MTU_4096,
                .gids = fake_pair_prober_gids,
                .n_gids = 4,
        };
        devices[1] = devices[0];
        devices[1].name = "rocep2s0";
        devices[1].active_mtu = IBV_MTU_1024; /* the path MTU is the smaller of the two */
        devices[1].gids = fake_pair_responder_gids;
        fake_verbs_setup(devices, 2, 0);
}

RdmaDevice *fake_pair_open(int ifindex) {
        Host h = { .root = "" };
        RdmaDevice *d = NULL;

        ASSERT_OK(rdma_device_find(&h, NULL, ifindex, &d));
        return d;
}
