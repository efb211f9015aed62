/* SPDX-License-Identifier: MIT */
/* Two fake RoCE devices for the RDMA probe's tests (see fake-verbs-pair.h). */
#include "fake-verbs-pair.h"
#include "tests.h"

struct ibv_gid_entry fake_pair_prober_gids[4], fake_pair_responder_gids[4];
static FakeVerbsDevice devices[2];

void fake_pair_setup(void) {
        /* Two E810 ports as irdma shows them. */
        fake_gids_irdma(fake_pair_prober_gids, 0x6efe54fffe000002ULL, "127.0.0.2", FAKE_PAIR_PROBER_IFINDEX);
        fake_gids_irdma(
                fake_pair_responder_gids, 0x6efe54fffe000001ULL, "127.0.0.1", FAKE_PAIR_RESPONDER_IFINDEX);

        devices[0] = fake_device_active("rocep1s0", fake_pair_prober_gids, 4);
        devices[1] = fake_device_active("rocep2s0", fake_pair_responder_gids, 4);
        devices[1].active_mtu = IBV_MTU_1024; /* the path MTU is the smaller of the two */
        fake_verbs_setup(devices, 2, 0);
}

RdmaDevice *fake_pair_open(int ifindex) {
        Host h = { .root = "" };
        RdmaDevice *d = NULL;

        ASSERT_OK(rdma_device_find(&h, NULL, ifindex, &d));
        return d;
}
