/* SPDX-License-Identifier: MIT */
/* halod_rdma_gid_index: the GID index of each port's address gathered from a fixture host tree and
 * the libibverbs test double, rendered, moved when the table is renumbered, and absent for a port
 * without an RDMA device or without a GID for its address. */
#include "check-test.h"
#include "export/metrics.h"
#include "fake-verbs.h"
#include "tests.h"

#define HOSTS TEST_DATA_DIR "/hosts/"

static const char e810_yaml[] =
        "cluster: test\n"
        "links:\n"
        "  rdma0:\n"
        "    match: { driver: ice }\n"
        "rdma: { required: true, gid: roce-v2 }\n"
        "nodes:\n"
        "  head: { hostname: halo-1, links: { rdma0: 192.168.100.1/30 } }\n";

/* The rendered halod_rdma_gid_index lines of the fixture host with the devices set up. */
static char *gather_and_render(void) {
        _cleanup_(profile_freep) Profile *p = test_profile_load(e810_yaml);
        Host h = { .root = HOSTS "nic-e810-x4" };
        NodeContext c = { .host = &h, .profile = p, .node = profile_find_node(p, "head") };
        MetricsGid *g = NULL;
        size_t n = 0;
        char *text = NULL;

        ASSERT_TRUE(c.node);
        ASSERT_OK(metrics_gids_gather(&c, /* s= */ NULL, &g, &n));
        ASSERT_INT_EQ(fake_verbs_open_contexts(), 0);
        ASSERT_OK(metrics_render(&(MetricsInput){ .health = HEALTH_HEALTHY, .gids = g, .n_gids = n }, &text));
        metrics_gids_free(g, n);
        return text;
}

static struct ibv_gid_entry gids[FAKE_IRDMA_GIDS], moved[FAKE_IRDMA_GIDS + 1];

static void test_gid_index(void) {
        _cleanup_(freep) char *text = NULL;
        FakeVerbsDevice d[1];

        /* irdma, RoCE v2 only: the link-local address at 0, 192.168.100.1 at 1. */
        fake_gids_irdma(gids, 0x6efe54fffe123456ULL, "192.168.100.1", 4);
        d[0] = fake_device_active("irdma0", gids, ELEMENTSOF(gids));
        fake_verbs_setup(d, ELEMENTSOF(d), 0);
        text = gather_and_render();
        ASSERT_TRUE(fake_verbs_called());
        ASSERT_TRUE(strstr(text, "# TYPE halod_rdma_gid_index gauge\n"));
        ASSERT_TRUE(strstr(text, "\nhalod_rdma_gid_index{link=\"rdma0\",device=\"irdma0\",port=\"1\"} 1\n"));

        /* Another address came first: the table is renumbered and the index follows. */
        fake_gids_irdma(moved, 0x6efe54fffe123456ULL, "192.168.200.1", 4);
        moved[2] = fake_gid_ipv4(2, "192.168.100.1", IBV_GID_TYPE_ROCE_V2, 4);
        d[0] = fake_device_active("irdma0", moved, ELEMENTSOF(moved));
        fake_verbs_setup(d, ELEMENTSOF(d), 0);
        free(text);
        text = gather_and_render();
        ASSERT_TRUE(strstr(text, "\nhalod_rdma_gid_index{link=\"rdma0\",device=\"irdma0\",port=\"1\"} 2\n"));

        /* The address not configured yet, only the link-local GID: no index to export (rdma.gid fails
         * and says why). */
        d[0] = fake_device_active("irdma0", gids, 1);
        fake_verbs_setup(d, ELEMENTSOF(d), 0);
        free(text);
        text = gather_and_render();
        ASSERT_TRUE(!strstr(text, "halod_rdma_gid_index"));

        /* No RDMA at all in the kernel: no sample, never a made-up index. */
        fake_verbs_setup(NULL, 0, ENOSYS);
        free(text);
        text = gather_and_render();
        ASSERT_TRUE(!strstr(text, "halod_rdma_gid_index"));
}

int main(void) {
        test_gid_index();
        return EXIT_SUCCESS;
}
