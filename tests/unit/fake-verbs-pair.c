/* SPDX-License-Identifier: MIT */
/* Two fake RoCE devices for the RDMA probe's tests (see fake-verbs-pair.h). */
#include "fake-verbs-pair.h"
#include "tests.h"

struct ibv_gid_entry fake_pair_prober_gids[FAKE_IRDMA_GIDS], fake_pair_responder_gids[FAKE_IRDMA_GIDS];
struct ibv_gid_entry fake_pair_mixed_responder_gids[6];
static FakeVerbsDevice devices[2];

void fake_pair_setup(void) {
        /* Two E810 ports as irdma shows them. */
        fake_gids_irdma(fake_pair_prober_gids, 0x6efe54fffe000002ULL, "127.0.0.2", FAKE_PAIR_PROBER_IFINDEX);
        fake_gids_irdma(
                fake_pair_responder_gids, 0x6efe54fffe000001ULL, "127.0.0.1", FAKE_PAIR_RESPONDER_IFINDEX);

        devices[0] = fake_device_active("rocep1s0", fake_pair_prober_gids, FAKE_IRDMA_GIDS);
        devices[1] = fake_device_active("rocep2s0", fake_pair_responder_gids, FAKE_IRDMA_GIDS);
        devices[1].active_mtu = IBV_MTU_1024; /* the path MTU is the smaller of the two */
        fake_verbs_setup(devices, 2, 0);
}

void fake_pair_setup_mixed(void) {
        fake_gids_irdma(fake_pair_prober_gids, 0x6efe54fffe000002ULL, "127.0.0.2", FAKE_PAIR_PROBER_IFINDEX);
        /* mlx5 lists a GID pair for each address in the order they came: the link-local one, an IPv6
         * address's, then the IPv4 one's, so its RoCE v2 IPv4 GID is at 5. */
        fake_pair_mixed_responder_gids[0] = fake_gid_link_local(
                0, 0x0c42a1fffe000001ULL, IBV_GID_TYPE_ROCE_V1, FAKE_PAIR_RESPONDER_IFINDEX);
        fake_pair_mixed_responder_gids[1] = fake_gid_link_local(
                1, 0x0c42a1fffe000001ULL, IBV_GID_TYPE_ROCE_V2, FAKE_PAIR_RESPONDER_IFINDEX);
        fake_pair_mixed_responder_gids[2] = fake_gid_link_local(
                2, 0x0c42a1fffe0000ffULL, IBV_GID_TYPE_ROCE_V1, FAKE_PAIR_RESPONDER_IFINDEX);
        fake_pair_mixed_responder_gids[3] = fake_gid_link_local(
                3, 0x0c42a1fffe0000ffULL, IBV_GID_TYPE_ROCE_V2, FAKE_PAIR_RESPONDER_IFINDEX);
        fake_pair_mixed_responder_gids[4] = fake_gid_ipv4(
                4, "127.0.0.1", IBV_GID_TYPE_ROCE_V1, FAKE_PAIR_RESPONDER_IFINDEX);
        fake_pair_mixed_responder_gids[5] = fake_gid_ipv4(
                5, "127.0.0.1", IBV_GID_TYPE_ROCE_V2, FAKE_PAIR_RESPONDER_IFINDEX);

        devices[0] = fake_device_active("rocep194s0", fake_pair_prober_gids, FAKE_IRDMA_GIDS);
        devices[1] = fake_device_active("mlx5_0", fake_pair_mixed_responder_gids, 6);
        /* netdev MTU 4096: irdma runs 4096, mlx5 takes the RoCE headers off first and runs 2048. */
        devices[1].active_mtu = IBV_MTU_2048;
        fake_verbs_setup(devices, 2, 0);
}

RdmaDevice *fake_pair_open(int ifindex) {
        Host h = { .root = "" };
        RdmaDevice *d = NULL;

        ASSERT_OK(rdma_device_find(&h, NULL, ifindex, &d));
        return d;
}
