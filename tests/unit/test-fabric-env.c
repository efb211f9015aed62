/* SPDX-License-Identifier: MIT */
/* The fabric environment's text forms, and the env file written only when it changes. */
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

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

/* What someone else may have put at the path before halod (re)started: a FIFO must neither stall the
 * write (opened for reading the ordinary way it waits for a writer) nor survive it; a symlink is
 * replaced, not followed, even when its target holds the same text. Runs in a child, so that a
 * write that blocks ends by the alarm and fails the test instead of hanging it. */
static void test_replace_others(void) {
        char dir[] = "/tmp/halod-test-fabric-env-XXXXXX";
        _cleanup_(freep) char *path = NULL, *target = NULL, *text = NULL, *data = NULL;
        struct stat st;
        FabricEnv e;
        int status;
        pid_t pid;

        ASSERT_TRUE(mkdtemp(dir));
        ASSERT_TRUE(asprintf(&path, "%s/fabric.env", dir) > 0);
        fill(&e, true);

        ASSERT_TRUE(mkfifo(path, 0644) == 0);
        pid = fork();
        ASSERT_TRUE(pid >= 0);
        if (pid == 0) {
                alarm(10);
                _exit(fabric_env_write(&e, path) == 1 ? 0 : 1);
        }
        ASSERT_TRUE(waitpid(pid, &status, 0) == pid);
        if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
                fprintf(stderr, "fabric_env_write() blocked on a FIFO for 10 s\n");
        ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        ASSERT_TRUE(lstat(path, &st) == 0 && S_ISREG(st.st_mode));

        /* A symlink to a file that holds exactly the text: replaced all the same, the target untouched. */
        ASSERT_OK(fabric_env_render(&e, FABRIC_ENV_FORMAT_FILE, &text));
        ASSERT_TRUE(asprintf(&target, "%s/elsewhere", dir) > 0);
        ASSERT_OK(write_file_atomic(target, text, strlen(text), 0644));
        ASSERT_TRUE(unlink(path) == 0 && symlink(target, path) == 0);
        ASSERT_INT_EQ(fabric_env_write(&e, path), 1);
        ASSERT_TRUE(lstat(path, &st) == 0 && S_ISREG(st.st_mode));
        ASSERT_OK(read_full_file(path, 65536, &data, NULL));
        ASSERT_STR_EQ(data, text);
        ASSERT_INT_EQ(fabric_env_write(&e, path), 0);
        fabric_env_done(&e);

        ASSERT_TRUE(unlink(path) == 0 && unlink(target) == 0 && rmdir(dir) == 0);
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
        test_replace_others();
        test_strings();
        return 0;
}
