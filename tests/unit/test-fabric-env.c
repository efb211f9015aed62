/* SPDX-License-Identifier: MIT */
/* The fabric environment's text forms, and the env file written only when it changes. */
#include <sys/stat.h>

#include "basic/fileio.h"
#include "basic/macro.h"
#include "export/fabric-env.h"
#include "tests.h"

static void fill(FabricEnv *e, bool with_rdma) {
        *e = (FabricEnv){};
        e->values[FABRIC_ENV_NCCL_SOCKET_IFNAME] = strdup("enp194s0np0");
        e->values[FABRIC_ENV_GLOO_SOCKET_IFNAME] = strdup("enp194s0np0");
        e->values[FABRIC_ENV_VLLM_HOST_IP] = strdup("192.168.100.1");
        if (with_rdma) {
                e->values[FABRIC_ENV_NCCL_IB_HCA] = strdup("irdma0");
                e->values[FABRIC_ENV_NCCL_IB_GID_INDEX] = strdup("3");
        } else {
                e->reasons[FABRIC_ENV_NCCL_IB_HCA] = strdup("enp194s0np0 (rdma0): no RDMA device");
                e->reasons[FABRIC_ENV_NCCL_IB_GID_INDEX] = strdup("enp194s0np0 (rdma0): no RDMA device");
        }
}

static void test_render(void) {
        _cleanup_(freep) char *shell = NULL, *file = NULL;
        FabricEnv e;

        fill(&e, true);
        ASSERT_TRUE(fabric_env_complete(&e));
        ASSERT_OK(fabric_env_render(&e, FABRIC_ENV_FORMAT_SHELL, &shell));
        ASSERT_STR_EQ(
                shell,
                "export NCCL_SOCKET_IFNAME=enp194s0np0\n"
                "export NCCL_IB_HCA=irdma0\n"
                "export NCCL_IB_GID_INDEX=3\n"
                "export GLOO_SOCKET_IFNAME=enp194s0np0\n"
                "export VLLM_HOST_IP=192.168.100.1\n");
        fabric_env_done(&e);

        fill(&e, false);
        ASSERT_TRUE(!fabric_env_complete(&e));
        ASSERT_OK(fabric_env_render(&e, FABRIC_ENV_FORMAT_FILE, &file));
        ASSERT_TRUE(startswith(file, "# The fabric environment of this node"));
        ASSERT_TRUE(strstr(
                file,
                "\nNCCL_SOCKET_IFNAME=enp194s0np0\n# NCCL_IB_HCA not set: enp194s0np0 (rdma0): no RDMA device\n"));
        ASSERT_TRUE(strstr(file, "\nVLLM_HOST_IP=192.168.100.1\n"));
        ASSERT_TRUE(!strstr(file, "export"));
        fabric_env_done(&e);
}

/* A value a shell would split or expand is single-quoted. */
static void test_quoting(void) {
        _cleanup_(freep) char *shell = NULL;
        FabricEnv e;

        fill(&e, true);
        free(e.values[FABRIC_ENV_NCCL_SOCKET_IFNAME]);
        e.values[FABRIC_ENV_NCCL_SOCKET_IFNAME] = strdup("we'ird $x");
        ASSERT_OK(fabric_env_render(&e, FABRIC_ENV_FORMAT_SHELL, &shell));
        ASSERT_TRUE(startswith(shell, "export NCCL_SOCKET_IFNAME='we'\\''ird $x'\n"));
        fabric_env_done(&e);
}

static void test_write(void) {
        char dir[] = "/tmp/halod-test-fabric-env-XXXXXX";
        _cleanup_(freep) char *path = NULL, *data = NULL;
        FabricEnv e;

        ASSERT_TRUE(mkdtemp(dir));
        ASSERT_TRUE(asprintf(&path, "%s/halod/fabric.env", dir) > 0);

        fill(&e, true);
        /* Creates the directory, then leaves an unchanged file alone. */
        ASSERT_INT_EQ(fabric_env_write(&e, path), 1);
        ASSERT_INT_EQ(fabric_env_write(&e, path), 0);
        ASSERT_OK(read_full_file(path, 65536, &data, NULL));
        ASSERT_TRUE(strstr(data, "\nNCCL_IB_GID_INDEX=3\n"));
        fabric_env_done(&e);

        /* A GID index that moved is written. */
        fill(&e, true);
        free(e.values[FABRIC_ENV_NCCL_IB_GID_INDEX]);
        e.values[FABRIC_ENV_NCCL_IB_GID_INDEX] = strdup("5");
        ASSERT_INT_EQ(fabric_env_write(&e, path), 1);
        free(data);
        ASSERT_OK(read_full_file(path, 65536, &data, NULL));
        ASSERT_TRUE(strstr(data, "\nNCCL_IB_GID_INDEX=5\n"));
        fabric_env_done(&e);

        ASSERT_TRUE(unlink(path) == 0);
        *strrchr(path, '/') = '\0';
        ASSERT_TRUE(rmdir(path) == 0 && rmdir(dir) == 0);
}

static void test_strings(void) {
        for (int v = 0; v < _FABRIC_ENV_VAR_MAX; v++)
                ASSERT_INT_EQ(fabric_env_var_from_string(fabric_env_var_to_string(v)), v);
        ASSERT_INT_EQ(fabric_env_var_from_string("NCCL_DEBUG"), _FABRIC_ENV_VAR_INVALID);
}

int main(void) {
        test_render();
        test_quoting();
        test_write();
        test_strings();
        return 0;
}
