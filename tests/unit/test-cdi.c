/* SPDX-License-Identifier: MIT */
/* The CDI spec of the fabric: its content for fixture host trees (their sysfs for the uverbs devices,
 * the RDMA devices and GIDs: libibverbs, whose test double has none here, answers for the running
 * kernel only), and the file: written atomically, only when
 * it changes, what was in its place replaced, removed. */
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "basic/fileio.h"
#include "basic/strv.h"
#include "check-test.h"
#include "export/cdi.h"
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

static const char connectx_yaml[] =
        "cluster: test\n"
        "links:\n"
        "  rdma0: { mtu: 9000 }\n"
        "  rdma1: { mtu: 9000 }\n"
        "rdma: { required: true, gid: roce-v2 }\n"
        "nodes:\n"
        "  head:\n"
        "    links:\n"
        "      rdma0: { address: 10.0.1.2/24, match: { pci: \"0000:01:00.0\" } }\n"
        "      rdma1: { address: 10.0.2.2/24, match: { name: enp1s0f1np1 } }\n";

/* The spec's text and its problems (joined with "\n") for tree and yaml. */
static void derive(const char *tree, const char *yaml, char **ret_text, char **ret_problems) {
        _cleanup_(profile_freep) Profile *p = test_profile_load(yaml);
        Host h = { .root = tree };
        NodeContext c = { .host = &h, .profile = p, .node = profile_find_node(p, "head") };
        CdiSpec s = {};

        ASSERT_TRUE(c.node);
        ASSERT_OK(cdi_spec_derive(&c, /* snapshot= */ NULL, &s));
        ASSERT_OK(cdi_spec_render(&s, ret_text));
        *ret_problems = strv_join(s.problems, "\n");
        ASSERT_TRUE(*ret_problems);
        cdi_spec_done(&s);
        ASSERT_INT_EQ(fake_verbs_open_contexts(), 0);
}

/* A scratch copy of tree with /dev/infiniband/rdma_cm (rdma_ucm loaded); remove_tree() removes it. */
static char *tree_with_rdma_cm(const char *tree) {
        char *root = copy_tree_without(tree, "dev/kmsg");
        _cleanup_(freep) char *dir = NULL, *node = NULL;

        ASSERT_TRUE(asprintf(&dir, "%s/dev/infiniband", root) > 0);
        ASSERT_TRUE(mkdir(dir, 0755) == 0);
        ASSERT_TRUE(asprintf(&node, "%s/rdma_cm", dir) > 0);
        ASSERT_OK(write_file_atomic(node, "", 0, 0666));
        return root;
}

static void test_e810(void) {
        _cleanup_(freep) char *text = NULL, *problems = NULL, *expected = NULL;
        char *root;

        fake_verbs_setup(NULL, 0, ENOSYS);
        root = tree_with_rdma_cm(HOSTS "nic-e810-x4");
        derive(root, e810_yaml, &text, &problems);
        ASSERT_TRUE(!fake_verbs_called());
        ASSERT_TRUE(
                asprintf(
                        &expected,
                        "{\n"
                        "  \"cdiVersion\": \"0.5.0\",\n"
                        "  \"kind\": \"halod.io/fabric\",\n"
                        "  \"devices\": [\n"
                        "    {\n"
                        "      \"name\": \"rdma0\",\n"
                        "      \"containerEdits\": {\n"
                        "        \"env\": [\n"
                        "          \"NCCL_SOCKET_IFNAME=enp194s0np0\",\n"
                        "          \"NCCL_IB_HCA=irdma0\",\n"
                        "          \"NCCL_IB_GID_INDEX=1\",\n"
                        "          \"GLOO_SOCKET_IFNAME=enp194s0np0\",\n"
                        "          \"VLLM_HOST_IP=192.168.100.1\"\n"
                        "        ],\n"
                        "        \"deviceNodes\": [\n"
                        "          {\n"
                        "            \"path\": \"/dev/infiniband/uverbs0\",\n"
                        "            \"hostPath\": \"%1$s/dev/infiniband/uverbs0\"\n"
                        "          },\n"
                        "          {\n"
                        "            \"path\": \"/dev/infiniband/rdma_cm\",\n"
                        "            \"hostPath\": \"%1$s/dev/infiniband/rdma_cm\"\n"
                        "          }\n"
                        "        ]\n"
                        "      }\n"
                        "    },\n"
                        "    {\n"
                        "      \"name\": \"all\",\n"
                        "      \"containerEdits\": {\n"
                        "        \"env\": [\n"
                        "          \"NCCL_SOCKET_IFNAME=enp194s0np0\",\n"
                        "          \"NCCL_IB_HCA=irdma0\",\n"
                        "          \"NCCL_IB_GID_INDEX=1\",\n"
                        "          \"GLOO_SOCKET_IFNAME=enp194s0np0\",\n"
                        "          \"VLLM_HOST_IP=192.168.100.1\"\n"
                        "        ],\n"
                        "        \"deviceNodes\": [\n"
                        "          {\n"
                        "            \"path\": \"/dev/infiniband/uverbs0\",\n"
                        "            \"hostPath\": \"%1$s/dev/infiniband/uverbs0\"\n"
                        "          },\n"
                        "          {\n"
                        "            \"path\": \"/dev/infiniband/rdma_cm\",\n"
                        "            \"hostPath\": \"%1$s/dev/infiniband/rdma_cm\"\n"
                        "          }\n"
                        "        ]\n"
                        "      }\n"
                        "    }\n"
                        "  ]\n"
                        "}\n",
                        root) > 0);
        ASSERT_STR_EQ(text, expected);
        ASSERT_STR_EQ(problems, "");
        remove_tree(root);

        /* Without rdma_cm it is left out, saying why: a runtime refuses a node that does not exist. */
        free(text);
        free(problems);
        derive(HOSTS "nic-e810-x4", e810_yaml, &text, &problems);
        ASSERT_TRUE(strstr(text, "/dev/infiniband/uverbs0"));
        ASSERT_TRUE(!strstr(text, "rdma_cm"));
        ASSERT_TRUE(strstr(problems, "no /dev/infiniband/rdma_cm"));
        ASSERT_TRUE(strstr(problems, "modprobe rdma_ucm"));
}

/* The device cgroup that systemd's DevicePolicy= sets up (PrivateDevices=yes; DeviceAllow=
 * char-infiniband_verbs in halod.service and halod-helper.service) answers access() on a device node it
 * does not allow, such as rdma_cm (misc, major 10), with EPERM: the kernel's inode_permission() asks it
 * even for F_OK. stat() does not ask it. This seccomp filter answers access() the same way, for every
 * path (a filter cannot read the path), and leaves stat() alone. No architecture check: the test makes
 * only native system calls. */
static void refuse_access_as_device_cgroup(void) {
#define REFUSE(nr) \
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM)
        struct sock_filter insns[] = {
                BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
#ifdef __NR_access
                REFUSE(__NR_access),
#endif
                REFUSE(__NR_faccessat),
#ifdef __NR_faccessat2
                REFUSE(__NR_faccessat2),
#endif
                BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        };
#undef REFUSE
        struct sock_fprog prog = { .len = ELEMENTSOF(insns), .filter = insns };

        ASSERT_TRUE(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0);
        ASSERT_TRUE(prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0);
}

/* halod and the helper derive the spec inside their units: rdma_cm is there for them too, and the spec
 * is the one derived outside (the vm suite found it left out, "no /dev/infiniband/rdma_cm", on rxe). */
static void test_rdma_cm_device_cgroup(void) {
        _cleanup_(freep) char *text = NULL, *problems = NULL, *node = NULL;
        int status;
        char *root;
        pid_t pid;

        fake_verbs_setup(NULL, 0, ENOSYS);
        root = tree_with_rdma_cm(HOSTS "nic-e810-x4");
        ASSERT_TRUE(asprintf(&node, "%s/dev/infiniband/rdma_cm", root) > 0);
        derive(root, e810_yaml, &text, &problems);
        ASSERT_TRUE(strstr(text, "\"path\": \"/dev/infiniband/rdma_cm\""));

        pid = fork();
        ASSERT_TRUE(pid >= 0);
        if (pid == 0) {
                _cleanup_(freep) char *sandboxed = NULL, *sandboxed_problems = NULL;
                struct stat st;

                refuse_access_as_device_cgroup();
                /* The double does what the device cgroup does. */
                ASSERT_TRUE(access(node, F_OK) < 0 && errno == EPERM);
                ASSERT_TRUE(stat(node, &st) == 0);
                derive(root, e810_yaml, &sandboxed, &sandboxed_problems);
                ASSERT_STR_EQ(sandboxed, text);
                ASSERT_STR_EQ(sandboxed_problems, problems);
                exit(EXIT_SUCCESS);
        }
        ASSERT_TRUE(waitpid(pid, &status, 0) == pid);
        ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == EXIT_SUCCESS);

        /* A node that cannot be looked at is not called missing: it says why it is left out. */
        free(text);
        free(problems);
        ASSERT_TRUE(unlink(node) == 0);
        ASSERT_TRUE(symlink("rdma_cm", node) == 0);
        derive(root, e810_yaml, &text, &problems);
        ASSERT_TRUE(!strstr(text, "rdma_cm"));
        ASSERT_TRUE(strstr(problems, "cannot tell whether /dev/infiniband/rdma_cm exists"));
        ASSERT_TRUE(!strstr(problems, "modprobe rdma_ucm"));
        remove_tree(root);
}

/* Two links, two RDMA devices whose uverbs numbers are not their functions' (mlx5_1 is uverbs0): each
 * link gets its own node and variables, "all" both nodes and fabric.env's variables. */
static void test_connectx_dual(void) {
        _cleanup_(freep) char *text = NULL, *problems = NULL;

        fake_verbs_setup(NULL, 0, ENOSYS);
        derive(HOSTS "nic-cx5-dual-x4", connectx_yaml, &text, &problems);
        ASSERT_TRUE(
                strstr(text,
                       "      \"name\": \"rdma0\",\n"
                       "      \"containerEdits\": {\n"
                       "        \"env\": [\n"
                       "          \"NCCL_SOCKET_IFNAME=enp1s0f0np0\",\n"
                       "          \"NCCL_IB_HCA=mlx5_0\",\n"
                       "          \"NCCL_IB_GID_INDEX=3\",\n"
                       "          \"GLOO_SOCKET_IFNAME=enp1s0f0np0\",\n"
                       "          \"VLLM_HOST_IP=10.0.1.2\"\n"
                       "        ],\n"
                       "        \"deviceNodes\": [\n"
                       "          {\n"
                       "            \"path\": \"/dev/infiniband/uverbs1\",\n"));
        ASSERT_TRUE(
                strstr(text,
                       "      \"name\": \"rdma1\",\n"
                       "      \"containerEdits\": {\n"
                       "        \"env\": [\n"
                       "          \"NCCL_SOCKET_IFNAME=enp1s0f1np1\",\n"
                       "          \"NCCL_IB_HCA=mlx5_1\",\n"
                       "          \"NCCL_IB_GID_INDEX=3\",\n"
                       "          \"GLOO_SOCKET_IFNAME=enp1s0f1np1\",\n"
                       "          \"VLLM_HOST_IP=10.0.2.2\"\n"
                       "        ],\n"
                       "        \"deviceNodes\": [\n"
                       "          {\n"
                       "            \"path\": \"/dev/infiniband/uverbs0\",\n"));
        ASSERT_TRUE(
                strstr(text,
                       "      \"name\": \"all\",\n"
                       "      \"containerEdits\": {\n"
                       "        \"env\": [\n"
                       "          \"NCCL_SOCKET_IFNAME=enp1s0f0np0,enp1s0f1np1\",\n"
                       "          \"NCCL_IB_HCA=mlx5_0,mlx5_1\",\n"
                       "          \"NCCL_IB_GID_INDEX=3\",\n"
                       "          \"GLOO_SOCKET_IFNAME=enp1s0f0np0,enp1s0f1np1\",\n"
                       "          \"VLLM_HOST_IP=10.0.1.2\"\n"
                       "        ],\n"
                       "        \"deviceNodes\": [\n"
                       "          {\n"
                       "            \"path\": \"/dev/infiniband/uverbs1\",\n"));
        ASSERT_TRUE(
                strstr(text,
                       "/dev/infiniband/uverbs1\",\n            \"hostPath\": \"" HOSTS
                       "nic-cx5-dual-x4/dev/infiniband/uverbs1\"\n          },\n          {\n"
                       "            \"path\": \"/dev/infiniband/uverbs0\""));
}

/* Without the ports of the RDMA devices (a tree that left them out) the variables that need them are
 * left out, and the device node still comes from sysfs: the link's PCI device, its RDMA device, its
 * uverbs. */
static void test_sysfs_only(void) {
        static const TreeEdit no_ports[] = {
                { "sys/class/infiniband/mlx5_0/ports", NULL },
                { "sys/class/infiniband/mlx5_1/ports", NULL },
        };
        _cleanup_(freep) char *text = NULL, *problems = NULL;
        char *root;

        fake_verbs_setup(NULL, 0, ENOSYS);
        root = copy_tree_edited(HOSTS "nic-cx5-dual-x4", no_ports, ELEMENTSOF(no_ports));
        derive(root, connectx_yaml, &text, &problems);
        remove_tree(root);
        ASSERT_TRUE(!strstr(text, "NCCL_IB_HCA"));
        ASSERT_TRUE(
                strstr(text,
                       "\"NCCL_SOCKET_IFNAME=enp1s0f1np1\",\n          \"GLOO_SOCKET_IFNAME=enp1s0f1np1\","
                       "\n          \"VLLM_HOST_IP=10.0.2.2\"\n        ],\n        \"deviceNodes\": [\n"
                       "          {\n            \"path\": \"/dev/infiniband/uverbs0\""));

        /* ib_uverbs not loaded: no node, and what to do. */
        free(text);
        free(problems);
        root = copy_tree_without(HOSTS "nic-e810-x4", "sys/class/infiniband_verbs");
        derive(root, e810_yaml, &text, &problems);
        ASSERT_TRUE(!strstr(text, "deviceNodes"));
        ASSERT_TRUE(strstr(text, "\"VLLM_HOST_IP=192.168.100.1\""));
        ASSERT_TRUE(
                strstr(problems,
                       "rdma0: irdma0 has no uverbs device in /sys/class/infiniband_verbs: is "
                       "ib_uverbs loaded (modprobe ib_uverbs)?"));
        remove_tree(root);

        /* No RDMA device on the link's PCI device at all. */
        free(text);
        free(problems);
        root = copy_tree_without(HOSTS "nic-e810-x4", "sys/class/infiniband");
        derive(root, e810_yaml, &text, &problems);
        ASSERT_TRUE(!strstr(text, "deviceNodes"));
        ASSERT_TRUE(
                strstr(problems,
                       "rdma0: no RDMA device on 0000:c2:00.0 (no /sys/class/infiniband: no RDMA driver "
                       "is loaded), so no /dev/infiniband/uverbs* for it"));
        remove_tree(root);
}

static void test_write_and_remove(void) {
        char dir[] = "/tmp/halod-test-cdi-XXXXXX";
        _cleanup_(freep) char *path = NULL, *data = NULL, *target = NULL, *text = NULL;
        _cleanup_(profile_freep) Profile *p = test_profile_load(e810_yaml);
        char *tree = copy_tree_edited(HOSTS "nic-e810-x4", NULL, 0);
        Host h = { .root = tree };
        NodeContext c = { .host = &h, .profile = p, .node = profile_find_node(p, "head") };
        struct stat st, st2;
        CdiSpec s = {};

        fake_verbs_setup(NULL, 0, ENOSYS);

        ASSERT_TRUE(mkdtemp(dir));
        ASSERT_TRUE(asprintf(&path, "%s/cdi/" CDI_SPEC_FILE, dir) > 0);
        ASSERT_OK(cdi_spec_derive(&c, /* snapshot= */ NULL, &s));
        ASSERT_OK(cdi_spec_render(&s, &text));

        /* Creates the directory; a second write of the same spec leaves the file alone (same inode). */
        ASSERT_INT_EQ(cdi_spec_write(&s, path), 1);
        ASSERT_TRUE(stat(path, &st) == 0 && (st.st_mode & 07777) == 0644);
        ASSERT_INT_EQ(cdi_spec_write(&s, path), 0);
        ASSERT_TRUE(stat(path, &st2) == 0 && st2.st_ino == st.st_ino);
        ASSERT_OK(read_full_file(path, 65536, &data, NULL));
        ASSERT_STR_EQ(data, text);
        cdi_spec_done(&s);

        /* The GID index moved: a new file, renamed into place (a new inode), no temporary left. */
        /* 192.168.100.9 came first and took index 1; the node's own address got the next free one. */
        {
                static const TreeEdit renumbered[] = {
                        { "gids/1", "0000:0000:0000:0000:0000:ffff:c0a8:6409\n" },
                        { "gids/2", "0000:0000:0000:0000:0000:ffff:c0a8:6401\n" },
                        { "gid_attrs/types/2", "RoCE v2\n" },
                        { "gid_attrs/ndevs/2", "enp194s0np0\n" },
                };

                for (size_t i = 0; i < ELEMENTSOF(renumbered); i++) {
                        _cleanup_(freep) char *f = NULL;

                        ASSERT_TRUE(
                                asprintf(&f, "%s/sys/class/infiniband/irdma0/ports/1/%s", tree, renumbered[i].path) >
                                0);
                        ASSERT_OK(write_file_atomic(f, renumbered[i].text, strlen(renumbered[i].text), 0444));
                }
        }
        ASSERT_OK(cdi_spec_derive(&c, /* snapshot= */ NULL, &s));
        ASSERT_INT_EQ(cdi_spec_write(&s, path), 1);
        ASSERT_TRUE(stat(path, &st2) == 0 && st2.st_ino != st.st_ino);
        free(data);
        ASSERT_OK(read_full_file(path, 65536, &data, NULL));
        ASSERT_TRUE(strstr(data, "\"NCCL_IB_GID_INDEX=2\""));
        {
                _cleanup_(strv_freep) char **entries = NULL;
                _cleanup_(freep) char *cdi_dir = NULL;
                Host any = { .root = "" };

                ASSERT_TRUE(asprintf(&cdi_dir, "%s/cdi", dir) > 0);
                ASSERT_OK(host_list_directory(&any, cdi_dir, &entries));
                ASSERT_INT_EQ(strv_length(entries), 1);
        }

        /* A symlink in its place, to a file with exactly the spec: replaced, its target untouched. */
        ASSERT_TRUE(asprintf(&target, "%s/elsewhere.json", dir) > 0);
        ASSERT_OK(write_file_atomic(target, data, strlen(data), 0644));
        ASSERT_TRUE(unlink(path) == 0 && symlink(target, path) == 0);
        ASSERT_INT_EQ(cdi_spec_write(&s, path), 1);
        ASSERT_TRUE(lstat(path, &st) == 0 && S_ISREG(st.st_mode));
        ASSERT_TRUE(lstat(target, &st) == 0 && S_ISREG(st.st_mode));
        cdi_spec_done(&s);

        /* Removed once; then there is nothing to remove. */
        ASSERT_INT_EQ(cdi_spec_remove(path), 1);
        ASSERT_TRUE(access(path, F_OK) < 0 && errno == ENOENT);
        ASSERT_INT_EQ(cdi_spec_remove(path), 0);

        ASSERT_TRUE(unlink(target) == 0);
        *strrchr(path, '/') = '\0';
        ASSERT_TRUE(rmdir(path) == 0 && rmdir(dir) == 0);
        remove_tree(tree);
}

/* What the root helper refuses to write: a node that sysfs could name outside /dev/infiniband (a
 * uverbs name with a slash, "..", another directory), or a device name CDI does not allow. */
static void test_check_safe(void) {
        static const struct {
                const char *name, *node;
                bool safe;
        } cases[] = {
                { "rdma0", "/dev/infiniband/uverbs0", true },
                { "all", "/dev/infiniband/rdma_cm", true },
                { "rdma0", "/dev/infiniband/../sda", false },
                { "rdma0", "/dev/infiniband/..", false },
                { "rdma0", "/dev/infiniband/", false },
                { "rdma0", "/dev/infiniband/x/uverbs0", false },
                { "rdma0", "/dev/sda", false },
                { "rdma0", "/dev/infinibandx/uverbs0", false },
                { "rdma0", "uverbs0", false },
                { "../x", "/dev/infiniband/uverbs0", false },
                { "", "/dev/infiniband/uverbs0", false },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_(freep) char *reason = NULL;
                char *nodes[] = { (char *) cases[i].node, NULL };
                CdiDevice d = { .name = (char *) cases[i].name, .nodes = nodes };
                CdiSpec s = { .devices = &d, .n_devices = 1 };

                ASSERT_INT_EQ(cdi_spec_check_safe(&s, &reason), cases[i].safe ? 0 : -EPERM);
                ASSERT_TRUE(cases[i].safe == !reason);
                if (reason)
                        ASSERT_TRUE(strstr(reason, cases[i].safe ? "" : "'"));
        }
}

/* Whether haloctl env --cdi may exit 0: NCCL_IB_TC and NCCL_IB_SL do not count on a profile without a
 * qos.roce-tos (the reference profile), as they are neither set nor missing there; a device node left
 * out or an RDMA device not found does. */
static void test_complete(void) {
        static const struct {
                bool rdma_cm, verbs;
                bool complete;
        } cases[] = {
                { .rdma_cm = true, .verbs = true, .complete = true },
                { .rdma_cm = false, .verbs = true, .complete = false },
                { .rdma_cm = true, .verbs = false, .complete = false },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_(profile_freep) Profile *p = test_profile_load(e810_yaml);
                char *root = cases[i].rdma_cm ? tree_with_rdma_cm(HOSTS "nic-e810-x4")
                                              : copy_tree_without(HOSTS "nic-e810-x4", "dev/kmsg");
                Host h = { .root = root };
                NodeContext c = { .host = &h, .profile = p, .node = profile_find_node(p, "head") };
                CdiSpec s = {};

                /* Without the RDMA device in the tree's sysfs: irdma not loaded. */
                if (!cases[i].verbs) {
                        _cleanup_(freep) char *cmd = NULL;

                        ASSERT_TRUE(asprintf(&cmd, "rm -r '%s/sys/class/infiniband'", root) > 0);
                        ASSERT_INT_EQ(system(cmd), 0);
                }
                ASSERT_OK(cdi_spec_derive(&c, /* snapshot= */ NULL, &s));
                ASSERT_TRUE(cdi_spec_complete(&s) == cases[i].complete);
                for (size_t j = 0; j < s.n_devices; j++) {
                        ASSERT_TRUE(!fabric_env_applies(&s.devices[j].env, FABRIC_ENV_NCCL_IB_TC));
                        ASSERT_TRUE(!fabric_env_applies(&s.devices[j].env, FABRIC_ENV_NCCL_IB_SL));
                }
                cdi_spec_done(&s);
                remove_tree(root);
        }
}

int main(void) {
        test_check_safe();
        test_complete();
        test_e810();
        test_rdma_cm_device_cgroup();
        test_connectx_dual();
        test_sysfs_only();
        test_write_and_remove();
        return 0;
}
