/* SPDX-License-Identifier: MIT */
/* Tests what the rdma. checks say when libibverbs cannot be loaded: built like the other RDMA tests
 * (the test double linked in), then made to load a library that is not there. libibverbs is the source
 * on the running system only (here its loopback link stands in for a fabric port); a host tree's RDMA
 * facts come from its sysfs, and need no libibverbs. */
#include "check-read.h"
#include "check-test.h"
#include "check/check-rdma.h"
#include "fake-verbs.h"
#include "rdma/dlopen-verbs.h"
#include "tests.h"

#define MISSING_SONAME "libibverbs-halod-test-missing.so.1"

static void run(const char *root, const char *link, const char *required, const CheckExpect *expect, size_t n) {
        static char yaml[1024];
        _cleanup_(profile_freep) Profile *p = NULL;
        Host h = { .root = root };
        CheckList l = {};
        NodeContext c = {};

        snprintf(
                yaml,
                sizeof(yaml),
                "cluster: test\n"
                "links: { rdma0: { match: { %s } } }\n"
                "rdma: { required: %s, gid: roce-v2, min-active-mtu: 4096, memlock: unlimited }\n"
                "nodes: { head: { hostname: halo-1, links: { rdma0: 192.168.100.1/30 } } }\n",
                link,
                required);
        p = test_profile_load(yaml);
        c = (NodeContext){ .host = &h, .profile = p, .node = profile_find_node(p, "head") };
        ASSERT_OK(test_check_group(&c, NULL, check_rdma, &l));
        assert_checks(&l, expect, n, root);
        check_list_done(&l);
}

int main(void) {
        static const CheckExpect required[] = {
                { "rdma.device",
                  CHECK_FAIL,
                  MISSING_SONAME " could not be loaded (cannot open shared object file" },
                { "rdma.device",
                  CHECK_FAIL,
                  "): install libibverbs (rdma-core; Debian: libibverbs1, Fedora: libibverbs)" },
                { "rdma.port", CHECK_SKIP, "no RDMA device (see rdma.device)" },
                { "rdma.gid", CHECK_SKIP, "no RDMA device (see rdma.device)" },
        };
        static const CheckExpect optional[] = {
                { "rdma.device", CHECK_WARN, MISSING_SONAME " could not be loaded" },
        };
        static const CheckExpect tree[] = {
                { "rdma.device", CHECK_PASS, "irdma0 port 1 on enp194s0np0" },
                { "rdma.gid", CHECK_PASS, "RoCE v2 GID index 1 for 192.168.100.1" },
        };

        /* The double is linked in; make the next use load a library instead, one that is missing. */
        ASSERT_TRUE(dlopen_verbs_library.linked);
        dlopen_verbs_library.linked = false;
        dlopen_verbs_library.soname = MISSING_SONAME;
        fake_verbs_setup(NULL, 0, 0);

        run("", "name: lo", "true", required, ELEMENTSOF(required));
        run("", "name: lo", "false", optional, ELEMENTSOF(optional));
        run(TEST_DATA_DIR "/hosts/nic-e810-x4", "driver: ice", "true", tree, ELEMENTSOF(tree));
        ASSERT_TRUE(!fake_verbs_called());
        ASSERT_INT_EQ(fake_verbs_open_contexts(), 0);
        return 0;
}
