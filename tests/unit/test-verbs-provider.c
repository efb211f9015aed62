/* SPDX-License-Identifier: MIT */
/* Tests which rdma-core providers halod loads before libibverbs' first device list
 * (lib/rdma/verbs-provider.c), over sysfs trees laid out as the kernel makes them: soft-RoCE (rxe0 in
 * the vm suite's guests: no "device" link, a "parent" file naming the netdev, node_type "1: CA"), a
 * ConnectX-5 (mlx5_0 → its PCI function, bound to mlx5_core) and an E810 (irdma0 → its PCI function,
 * bound to ice, or to the auxiliary device on newer kernels, bound to irdma.gen2). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/macro.h"
#include "rdma/verbs-provider.h"
#include "tests.h"

static char root[] = "/tmp/test-verbs-provider-XXXXXX";

static void put(const char *rel, const char *text) {
        _cleanup_(freep) char *path = NULL;
        FILE *f;

        ASSERT_TRUE(asprintf(&path, "%s/%s", root, rel) > 0);
        f = fopen(path, "we");
        ASSERT_TRUE(f);
        ASSERT_TRUE(fputs(text, f) >= 0);
        ASSERT_OK(fclose(f));
}

static void dir(const char *rel) {
        _cleanup_(freep) char *path = NULL;

        ASSERT_TRUE(asprintf(&path, "%s/%s", root, rel) > 0);
        ASSERT_OK(mkdir(path, 0755));
}

static void link_to(const char *target, const char *rel) {
        _cleanup_(freep) char *path = NULL;

        ASSERT_TRUE(asprintf(&path, "%s/%s", root, rel) > 0);
        ASSERT_OK(symlink(target, path));
}

static void test_names(void) {
        ASSERT_STR_EQ(verbs_provider_for_driver("mlx5_core"), "mlx5");
        ASSERT_STR_EQ(verbs_provider_for_driver("ice"), "irdma");
        ASSERT_STR_EQ(verbs_provider_for_driver("irdma.gen2"), "irdma");
        ASSERT_STR_EQ(verbs_provider_for_driver("bnxt_en"), "bnxt_re");
        ASSERT_TRUE(!verbs_provider_for_driver("mlx5"));
        ASSERT_TRUE(!verbs_provider_for_driver("e1000e"));
        ASSERT_TRUE(!verbs_provider_for_driver(NULL));
        ASSERT_STR_EQ(verbs_provider_for_software("1: CA\n"), "rxe");
        ASSERT_STR_EQ(verbs_provider_for_software("4: RNIC\n"), "siw");
        ASSERT_TRUE(!verbs_provider_for_software("2: switch\n"));
}

static void test_wanted(void) {
        const char *wanted[4];

        ASSERT_TRUE(mkdtemp(root));
        dir("class");
        /* No RDMA in the kernel: no class directory. */
        ASSERT_INT_EQ(verbs_providers_wanted(root, wanted, ELEMENTSOF(wanted)), -ENOENT);

        dir("class/infiniband");
        ASSERT_INT_EQ(verbs_providers_wanted(root, wanted, ELEMENTSOF(wanted)), 0);

        dir("class/infiniband/rxe0");
        put("class/infiniband/rxe0/parent", "enp0s3\n");
        put("class/infiniband/rxe0/node_type", "1: CA\n");
        ASSERT_INT_EQ(verbs_providers_wanted(root, wanted, ELEMENTSOF(wanted)), 1);
        ASSERT_STR_EQ(wanted[0], "rxe");

        dir("bus");
        dir("bus/mlx5_core");
        dir("pci0");
        link_to("../bus/mlx5_core", "pci0/driver");
        dir("class/infiniband/mlx5_0");
        link_to("../../../pci0", "class/infiniband/mlx5_0/device");
        dir("class/infiniband/mlx5_1");
        link_to("../../../pci0", "class/infiniband/mlx5_1/device");
        ASSERT_INT_EQ(verbs_providers_wanted(root, wanted, ELEMENTSOF(wanted)), 2); /* mlx5 once */
        ASSERT_TRUE(streq(wanted[0], "mlx5") || streq(wanted[1], "mlx5"));
        ASSERT_TRUE(streq(wanted[0], "rxe") || streq(wanted[1], "rxe"));
        ASSERT_INT_EQ(verbs_providers_wanted(root, wanted, 1), -E2BIG);

        /* A device whose driver is not known here: libibverbs must look for it itself. */
        dir("bus/foo_rdma");
        dir("pci1");
        link_to("../bus/foo_rdma", "pci1/driver");
        dir("class/infiniband/foo0");
        link_to("../../../pci1", "class/infiniband/foo0/device");
        ASSERT_INT_EQ(verbs_providers_wanted(root, wanted, ELEMENTSOF(wanted)), -ENOENT);

        /* The test double plays libibverbs: nothing is loaded. */
        ASSERT_INT_EQ(verbs_provider_preload(), 0);

        {
                _cleanup_(freep) char *cmd = NULL;

                ASSERT_TRUE(asprintf(&cmd, "rm -rf '%s'", root) > 0);
                ASSERT_INT_EQ(system(cmd), 0);
        }
}

int main(void) {
        test_names();
        test_wanted();
        return 0;
}
