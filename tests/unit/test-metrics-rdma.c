/* SPDX-License-Identifier: MIT */
/* halod_rdma_gid_index: the GID index of each port's address gathered from a fixture host tree (its
 * sysfs: a tree's RDMA facts never come from libibverbs), rendered, moved when the table is renumbered,
 * and absent for a port without an RDMA device or without a GID for its address. */
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

#define PORT "sys/class/infiniband/irdma0/ports/1"

/* The rendered halod_rdma_gid_index lines of the fixture host with edits. */
static char *gather_and_render(const TreeEdit *edits, size_t n_edits) {
        _cleanup_(profile_freep) Profile *p = test_profile_load(e810_yaml);
        char *root = copy_tree_edited(HOSTS "nic-e810-x4", edits, n_edits);
        Host h = { .root = root };
        NodeContext c = { .host = &h, .profile = p, .node = profile_find_node(p, "head") };
        MetricsGid *g = NULL;
        size_t n = 0;
        char *text = NULL;

        ASSERT_TRUE(c.node);
        fake_verbs_setup(NULL, 0, ENOSYS); /* the running kernel's devices must not count */
        ASSERT_OK(metrics_gids_gather(&c, /* s= */ NULL, &g, &n));
        ASSERT_TRUE(!fake_verbs_called());
        ASSERT_OK(metrics_render(&(MetricsInput){ .health = HEALTH_HEALTHY, .gids = g, .n_gids = n }, &text));
        metrics_gids_free(g, n);
        remove_tree(root);
        return text;
}

static void test_gid_index(void) {
        /* Another address came first: the table is renumbered and the index follows. */
        static const TreeEdit renumbered[] = {
                { PORT "/gids/1", "0000:0000:0000:0000:0000:ffff:c0a8:c801\n" },
                { PORT "/gids/2", "0000:0000:0000:0000:0000:ffff:c0a8:6401\n" },
                { PORT "/gid_attrs/types/2", "RoCE v2\n" },
                { PORT "/gid_attrs/ndevs/2", "enp194s0np0\n" },
        };
        /* The address not configured yet, only the link-local GID. */
        static const TreeEdit link_local[] = {
                { PORT "/gids/1", "0000:0000:0000:0000:0000:0000:0000:0000\n" },
                { PORT "/gid_attrs/types/1", NULL },
                { PORT "/gid_attrs/ndevs/1", NULL },
        };
        static const TreeEdit no_rdma[] = { { "sys/class/infiniband", NULL } };
        _cleanup_(freep) char *text = NULL;

        /* irdma, RoCE v2 only: the link-local address at 0, 192.168.100.1 at 1. */
        text = gather_and_render(NULL, 0);
        ASSERT_TRUE(strstr(text, "# TYPE halod_rdma_gid_index gauge\n"));
        ASSERT_TRUE(strstr(text, "\nhalod_rdma_gid_index{link=\"rdma0\",device=\"irdma0\",port=\"1\"} 1\n"));

        free(text);
        text = gather_and_render(renumbered, ELEMENTSOF(renumbered));
        ASSERT_TRUE(strstr(text, "\nhalod_rdma_gid_index{link=\"rdma0\",device=\"irdma0\",port=\"1\"} 2\n"));

        /* No index to export (rdma.gid fails and says why). */
        free(text);
        text = gather_and_render(link_local, ELEMENTSOF(link_local));
        ASSERT_TRUE(!strstr(text, "halod_rdma_gid_index"));

        /* No RDMA at all in the kernel: no sample, never a made-up index. */
        free(text);
        text = gather_and_render(no_rdma, ELEMENTSOF(no_rdma));
        ASSERT_TRUE(!strstr(text, "halod_rdma_gid_index"));
}

int main(void) {
        test_gid_index();
        return EXIT_SUCCESS;
}
