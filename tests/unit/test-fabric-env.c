/* SPDX-License-Identifier: MIT */
/* The fabric environment's text forms, and the env file written only when it changes. */
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "basic/fileio.h"
#include "basic/macro.h"
#include "basic/strv.h"
#include "export/fabric-env.h"
#include "tests.h"

static void fill(FabricEnv *e, bool with_rdma) {
        *e = (FabricEnv){};
        e->values[FABRIC_ENV_NCCL_SOCKET_IFNAME] = strdup("enp194s0np0");
        e->values[FABRIC_ENV_GLOO_SOCKET_IFNAME] = strdup("enp194s0np0");
        e->values[FABRIC_ENV_VLLM_HOST_IP] = strdup("192.168.100.1");
        if (with_rdma) {
                e->values[FABRIC_ENV_NCCL_IB_HCA] = strdup("irdma0");
                e->values[FABRIC_ENV_NCCL_IB_GID_INDEX] = strdup(
                        "1"); /* irdma: RoCE v2 only, the IPv4 GID at 1 */
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
                "export NCCL_IB_GID_INDEX=1\n"
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
        ASSERT_TRUE(strstr(data, "\nNCCL_IB_GID_INDEX=1\n"));
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

/* The traffic class and service level appear in the file and the shell text where they apply, in
 * their place beside the other NCCL_IB_ variables; where they do not, nowhere, not even as missing. */
static void test_render_qos(void) {
        _cleanup_(freep) char *shell = NULL, *file = NULL, *json = NULL;
        size_t size = 0;
        JsonWriter w;
        FabricEnv e;
        FILE *f;

        fill(&e, true);
        ASSERT_TRUE(!fabric_env_applies(&e, FABRIC_ENV_NCCL_IB_TC));
        ASSERT_TRUE(!fabric_env_applies(&e, FABRIC_ENV_NCCL_IB_SL));
        ASSERT_TRUE(fabric_env_applies(&e, FABRIC_ENV_NCCL_IB_HCA));
        e.values[FABRIC_ENV_NCCL_IB_TC] = strdup("106");
        e.values[FABRIC_ENV_NCCL_IB_SL] = strdup("3");
        ASSERT_TRUE(fabric_env_complete(&e));
        ASSERT_OK(fabric_env_render(&e, FABRIC_ENV_FORMAT_SHELL, &shell));
        ASSERT_STR_EQ(
                shell,
                "export NCCL_SOCKET_IFNAME=enp194s0np0\n"
                "export NCCL_IB_HCA=irdma0\n"
                "export NCCL_IB_GID_INDEX=1\n"
                "export NCCL_IB_TC=106\n"
                "export NCCL_IB_SL=3\n"
                "export GLOO_SOCKET_IFNAME=enp194s0np0\n"
                "export VLLM_HOST_IP=192.168.100.1\n");

        /* Asked for and not derived: missing, with the reason, like any other. */
        e.values[FABRIC_ENV_NCCL_IB_SL] = mfree(e.values[FABRIC_ENV_NCCL_IB_SL]);
        e.reasons[FABRIC_ENV_NCCL_IB_SL] = strdup("the links differ");
        ASSERT_TRUE(fabric_env_applies(&e, FABRIC_ENV_NCCL_IB_SL));
        ASSERT_TRUE(!fabric_env_complete(&e));
        ASSERT_OK(fabric_env_render(&e, FABRIC_ENV_FORMAT_FILE, &file));
        ASSERT_TRUE(strstr(
                file, "\nNCCL_IB_TC=106\n# NCCL_IB_SL not set: the links differ\nGLOO_SOCKET_IFNAME="));
        fabric_env_done(&e);

        /* Not asked for: not in the JSON's missing either. */
        fill(&e, false);
        f = open_memstream(&json, &size);
        ASSERT_TRUE(f);
        json_writer_init(&w, f, false);
        fabric_env_dump_json(&e, &w);
        json_writer_finish(&w);
        ASSERT_INT_EQ(fclose(f), 0);
        ASSERT_TRUE(strstr(json, "\"NCCL_IB_HCA\":"));
        ASSERT_TRUE(!strstr(json, "NCCL_IB_TC"));
        ASSERT_TRUE(!strstr(json, "NCCL_IB_SL"));
        fabric_env_done(&e);
}

/* NCCL_IB_TC and NCCL_IB_SL come from the profile alone: a root without any interface still gives
 * them, and they follow the node's links. */
static void test_derive_qos(void) {
        static const char text[] =
                "cluster: c\n"
                "links:\n"
                "  rdma0: { match: { name: fab0 }, qos: { pfc: [3], trust: dscp, dscp-priority: { 26: 3 }, ecn: true, roce-tos: 106 } }\n"
                "  rdma1: { match: { name: fab1 }, qos: { pfc: [4], trust: pcp, roce-tos: 106 } }\n"
                "  rdma2: { match: { name: fab2 }, qos: { pfc: [3], trust: dscp, dscp-priority: { 24: 3 }, roce-tos: 98 } }\n"
                "  rdma3: { match: { name: fab3 } }\n"
                "  rdma4: { match: { name: fab4 }, qos: { ecn: true, roce-tos: 106 } }\n"
                "nodes:\n"
                "  one: { links: { rdma0: 10.0.0.1/24 } }\n"
                "  same: { links: { rdma0: 10.0.0.2/24, rdma2: 10.2.0.2/24 } }\n"
                "  prio: { links: { rdma0: 10.0.0.3/24, rdma1: 10.1.0.3/24 } }\n"
                "  mixed: { links: { rdma0: 10.0.0.4/24, rdma3: 10.3.0.4/24 } }\n"
                "  plain: { links: { rdma3: 10.3.0.5/24 } }\n"
                "  lossy: { links: { rdma4: 10.4.0.6/24 } }\n";
        static const struct {
                const char *node, *tc, *sl, *tc_reason, *sl_reason;
        } cases[] = {
                { "one", "106", "3", NULL, NULL },
                /* Two ToS on one priority: the service level is one, the traffic class is not. */
                { "same",
                  NULL,
                  "3",
                  "the links differ in qos.roce-tos (rdma0 106, rdma2 98), and NCCL takes only one for every HCA",
                  NULL },
                { "prio",
                  "106",
                  NULL,
                  NULL,
                  "the links differ in the priority of their qos.roce-tos (rdma0 3, rdma1 4), and NCCL takes only one for every HCA" },
                { "mixed",
                  NULL,
                  NULL,
                  "the links differ in qos.roce-tos (rdma0 106, rdma3 none), and NCCL takes only one for every HCA",
                  "the links differ in the priority of their qos.roce-tos (rdma0 3, rdma3 none), and NCCL takes only one for every HCA" },
                { "plain", NULL, NULL, NULL, NULL },
                /* A ToS without a priority (ECN only, no PFC): the class, and no service level to ask for. */
                { "lossy", "106", NULL, NULL, NULL },
        };
        char root[] = "/tmp/halod-test-fabric-env-XXXXXX";
        _cleanup_(profile_freep) Profile *p = NULL;
        _cleanup_(strv_freep) char **errors = NULL;
        Host host = { .root = root };

        ASSERT_TRUE(mkdtemp(root));
        ASSERT_OK(profile_load_string("q.yaml", text, strlen(text), &p, &errors));
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                NodeContext c = { .host = &host, .profile = p, .node = profile_find_node(p, cases[i].node) };
                FabricEnv e;

                ASSERT_TRUE(c.node);
                ASSERT_OK(fabric_env_derive(&c, /* snapshot= */ NULL, &e));
                ASSERT_STR_EQ(strna(e.values[FABRIC_ENV_NCCL_IB_TC]), strna(cases[i].tc));
                ASSERT_STR_EQ(strna(e.values[FABRIC_ENV_NCCL_IB_SL]), strna(cases[i].sl));
                ASSERT_STR_EQ(strna(e.reasons[FABRIC_ENV_NCCL_IB_TC]), strna(cases[i].tc_reason));
                ASSERT_STR_EQ(strna(e.reasons[FABRIC_ENV_NCCL_IB_SL]), strna(cases[i].sl_reason));
                ASSERT_INT_EQ(fabric_env_applies(&e, FABRIC_ENV_NCCL_IB_TC), cases[i].tc || cases[i].tc_reason);
                /* The host part is missing on this empty root, whatever the profile says. */
                ASSERT_TRUE(
                        !e.values[FABRIC_ENV_NCCL_SOCKET_IFNAME] && e.reasons[FABRIC_ENV_NCCL_SOCKET_IFNAME]);
                ASSERT_TRUE(e.values[FABRIC_ENV_VLLM_HOST_IP]);
                fabric_env_done(&e);
        }
        ASSERT_TRUE(rmdir(root) == 0);
}

/* A name the user halod gives the fabric link (CAP_NET_ADMIN) that NCCL or Gloo would read as a
 * pattern or a list stays out of their variables, with the link and the character said (issue 31):
 * "^lo" would be "every interface but lo". The link is matched by mac:, so any name resolves. */
static void test_derive_refuses_names(void) {
        static const struct {
                const char *ifname, *reason;
        } cases[] = {
                { "fab0", NULL },
                { "^lo", "link rdma0: '^lo' holds '^', a leading '^' makes NCCL's list exclude the interface" },
                { "=fab0", "link rdma0: '=fab0' holds '=', a leading '=' changes how NCCL matches its list" },
                { "a,lo", "link rdma0: 'a,lo' holds ',', the separator of NCCL's and Gloo's interface lists" },
        };
        static const char text[] =
                "cluster: c\n"
                "links:\n"
                "  rdma0: { match: { mac: \"02:00:00:00:00:01\" } }\n"
                "nodes:\n"
                "  one: { links: { rdma0: 10.0.0.1/24 } }\n";
        _cleanup_(profile_freep) Profile *p = NULL;
        _cleanup_(strv_freep) char **errors = NULL;

        ASSERT_OK(profile_load_string("n.yaml", text, strlen(text), &p, &errors));
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                char root[] = "/tmp/halod-test-fabric-env-XXXXXX";
                _cleanup_(freep) char *address = NULL, *cmd = NULL;
                Host host = { .root = root };
                NodeContext c = { .host = &host, .profile = p, .node = profile_find_node(p, "one") };
                FabricEnv e;

                ASSERT_TRUE(mkdtemp(root));
                ASSERT_TRUE(asprintf(&address, "%s/sys/class/net/%s/address", root, cases[i].ifname) >= 0);
                ASSERT_TRUE(asprintf(&cmd, "mkdir -p \"$(dirname '%s')\"", address) >= 0);
                ASSERT_TRUE(system(cmd) == 0);
                ASSERT_OK(write_file_atomic(address, "02:00:00:00:00:01\n", 18, 0644));
                cmd = mfree(cmd);

                ASSERT_OK(fabric_env_derive(&c, /* snapshot= */ NULL, &e));
                for (FabricEnvVar v = FABRIC_ENV_NCCL_SOCKET_IFNAME; v <= FABRIC_ENV_GLOO_SOCKET_IFNAME;
                     v += FABRIC_ENV_GLOO_SOCKET_IFNAME - FABRIC_ENV_NCCL_SOCKET_IFNAME)
                        if (cases[i].reason) {
                                ASSERT_TRUE(!e.values[v]);
                                ASSERT_TRUE(e.reasons[v] && strstr(e.reasons[v], cases[i].reason));
                        } else
                                ASSERT_STR_EQ(e.values[v], cases[i].ifname);
                fabric_env_done(&e);
                ASSERT_TRUE(asprintf(&cmd, "rm -rf '%s'", root) >= 0);
                ASSERT_TRUE(system(cmd) == 0);
        }
}

static void test_strings(void) {
        for (int v = 0; v < _FABRIC_ENV_VAR_MAX; v++)
                ASSERT_INT_EQ(fabric_env_var_from_string(fabric_env_var_to_string(v)), v);
        ASSERT_INT_EQ(fabric_env_var_from_string("NCCL_DEBUG"), _FABRIC_ENV_VAR_INVALID);
}

int main(void) {
        test_render();
        test_render_qos();
        test_derive_qos();
        test_derive_refuses_names();
        test_quoting();
        test_write();
        test_replace_others();
        test_strings();
        return 0;
}
