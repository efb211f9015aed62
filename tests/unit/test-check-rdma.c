/* SPDX-License-Identifier: MIT */
/* Tests the rdma. checks: fixture host trees for sysfs, the libibverbs test double for the devices. */
#include <fcntl.h>
#include <sys/stat.h>

#include "basic/fileio.h"
#include "basic/strv.h"
#include "check-test.h"
#include "check/check-rdma.h"
#include "fake-verbs.h"
#include "tests.h"

#define HOSTS TEST_DATA_DIR "/hosts/"
#define IFINDEX 4

static const char *profile_yaml(const char *required, const char *min_mtu) {
        static char buf[1024];

        snprintf(
                buf,
                sizeof(buf),
                "cluster: test\n"
                "links:\n"
                "  rdma0:\n"
                "    match: { driver: ice }\n"
                "nic: { pci-ids: [\"8086:1592\"], driver: ice }\n"
                "rdma: { required: %s, gid: roce-v2, min-active-mtu: %s, memlock: unlimited }\n"
                "nodes:\n"
                "  head: { hostname: halo-1, links: { rdma0: 192.168.100.1/30 } }\n",
                required,
                min_mtu);
        return buf;
}

static void run(const char *tree, const char *yaml, const CheckExpect *expect, size_t n) {
        _cleanup_(profile_freep) Profile *p = test_profile_load(yaml);
        Host h = { .root = tree };
        CheckList l = {};
        NodeContext c = { .host = &h, .profile = p, .node = profile_find_node(p, "head") };

        ASSERT_TRUE(c.node);
        ASSERT_OK(check_rdma(&c, &l));
        ASSERT_INT_EQ(l.n_checks, 5);
        assert_checks(&l, expect, n, tree);
        check_list_done(&l);
        ASSERT_INT_EQ(fake_verbs_open_contexts(), 0);
}

static struct ibv_gid_entry healthy[4];

static FakeVerbsDevice irdma(void) {
        fake_gids_irdma(healthy, 0x6efe54fffe123456ULL, "192.168.100.1", IFINDEX);
        return fake_device_active("irdma0", healthy, ELEMENTSOF(healthy));
}

static void test_healthy(void) {
        FakeVerbsDevice d[] = { irdma() };
        static const CheckExpect e[] = {
                { "rdma.device", CHECK_PASS, "irdma0 port 1 on enp194s0np0" },
                { "rdma.port", CHECK_PASS, "irdma0 port 1 is ACTIVE, LINK_UP" },
                { "rdma.gid", CHECK_PASS, "RoCE v2 GID index 3 for 192.168.100.1" },
                { "rdma.mtu", CHECK_PASS, "active MTU 4096 on irdma0 port 1 (enp194s0np0 MTU 9000)" },
                /* the fixture has no /dev/infiniband */
                { "rdma.memlock", CHECK_FAIL, "no /dev/infiniband/uverbs* device" },
        };

        fake_verbs_setup(d, ELEMENTSOF(d), 0);
        run(HOSTS "nic-e810-x4", profile_yaml("true", "4096"), e, ELEMENTSOF(e));
        ASSERT_TRUE(fake_verbs_called());
}

static void test_port_down(void) {
        FakeVerbsDevice d[] = { irdma() };
        static const CheckExpect fail[] = {
                { "rdma.device", CHECK_PASS, NULL },
                { "rdma.port", CHECK_FAIL, "irdma0 port 1 is DOWN (physical state DISABLED): check the cable" },
        };
        static const CheckExpect warn[] = {
                { "rdma.port", CHECK_WARN, "is DOWN" }, /* rdma.required: false */
                { "rdma.memlock", CHECK_WARN, NULL },
        };

        d[0].state = IBV_PORT_DOWN;
        d[0].phys_state = 3;
        fake_verbs_setup(d, ELEMENTSOF(d), 0);
        run(HOSTS "nic-e810-x4", profile_yaml("true", "4096"), fail, ELEMENTSOF(fail));
        run(HOSTS "nic-e810-x4", profile_yaml("false", "4096"), warn, ELEMENTSOF(warn));
}

static void test_gid_v1_and_link_local_only(void) {
        struct ibv_gid_entry v1[] = {
                fake_gid_link_local(0, 0x6efe54fffe123456ULL, IBV_GID_TYPE_ROCE_V1, IFINDEX),
                fake_gid_link_local(1, 0x6efe54fffe123456ULL, IBV_GID_TYPE_ROCE_V2, IFINDEX),
                fake_gid_ipv4(2, "192.168.100.1", IBV_GID_TYPE_ROCE_V1, IFINDEX),
        };
        struct ibv_gid_entry link_local[] = {
                fake_gid_link_local(0, 0x6efe54fffe123456ULL, IBV_GID_TYPE_ROCE_V1, IFINDEX),
                fake_gid_link_local(1, 0x6efe54fffe123456ULL, IBV_GID_TYPE_ROCE_V2, IFINDEX),
        };
        FakeVerbsDevice d[] = { irdma() };
        static const CheckExpect only_v1[] = {
                { "rdma.gid",
                  CHECK_FAIL,
                  "irdma0 has a RoCE v1 GID (index 2) for 192.168.100.1 but no RoCE v2 one" },
        };
        static const CheckExpect no_address[] = {
                { "rdma.device", CHECK_PASS, NULL },
                { "rdma.gid",
                  CHECK_FAIL,
                  "no RoCE v2 GID for 192.168.100.1 on irdma0 port 1 (table: 0 fe80::6efe:54ff:fe12:3456 RoCE v1, "
                  "1 fe80::6efe:54ff:fe12:3456 RoCE v2): is 192.168.100.1 configured on enp194s0np0?" },
        };

        d[0].gids = v1;
        d[0].n_gids = ELEMENTSOF(v1);
        fake_verbs_setup(d, ELEMENTSOF(d), 0);
        run(HOSTS "nic-e810-x4", profile_yaml("true", "4096"), only_v1, ELEMENTSOF(only_v1));
        d[0].gids = link_local;
        d[0].n_gids = ELEMENTSOF(link_local);
        fake_verbs_setup(d, ELEMENTSOF(d), 0);
        run(HOSTS "nic-e810-x4", profile_yaml("true", "4096"), no_address, ELEMENTSOF(no_address));
}

static void test_gid_moves(void) {
        struct ibv_gid_entry moved[6];
        FakeVerbsDevice d[] = { irdma() };
        static const CheckExpect e[] = {
                { "rdma.gid", CHECK_PASS, "RoCE v2 GID index 5 for 192.168.100.1" },
        };

        memcpy(moved, healthy, sizeof(healthy));
        moved[2] = fake_gid_ipv4(2, "192.168.101.1", IBV_GID_TYPE_ROCE_V1, IFINDEX);
        moved[3] = fake_gid_ipv4(3, "192.168.101.1", IBV_GID_TYPE_ROCE_V2, IFINDEX);
        moved[4] = fake_gid_ipv4(4, "192.168.100.1", IBV_GID_TYPE_ROCE_V1, IFINDEX);
        moved[5] = fake_gid_ipv4(5, "192.168.100.1", IBV_GID_TYPE_ROCE_V2, IFINDEX);
        d[0].gids_after = moved;
        d[0].n_gids_after = ELEMENTSOF(moved);
        d[0].move_after = 3; /* after the device lookup's two reads and the index lookup's first */
        fake_verbs_setup(d, ELEMENTSOF(d), 0);
        run(HOSTS "nic-e810-x4", profile_yaml("true", "4096"), e, ELEMENTSOF(e));
}

static void test_mtu(void) {
        FakeVerbsDevice d[] = { irdma() };
        static const CheckExpect small[] = {
                { "rdma.mtu",
                  CHECK_FAIL,
                  "active MTU 1024 < 4096 (rdma.min-active-mtu) on irdma0 port 1: enp194s0np0's MTU is 9000" },
        };
        static const CheckExpect stale[] = {
                { "rdma.mtu",
                  CHECK_WARN,
                  "active MTU 1024 of irdma0 port 1 does not follow enp194s0np0's MTU 9000 (expected 4096)" },
        };

        d[0].active_mtu = IBV_MTU_1024;
        fake_verbs_setup(d, ELEMENTSOF(d), 0);
        run(HOSTS "nic-e810-x4", profile_yaml("true", "4096"), small, ELEMENTSOF(small));
        run(HOSTS "nic-e810-x4", profile_yaml("true", "1024"), stale, ELEMENTSOF(stale));
}

static void test_no_device(void) {
        FakeVerbsDevice d[] = { irdma() };
        static const CheckExpect none[] = {
                { "rdma.device",
                  CHECK_FAIL,
                  "no RDMA device on enp194s0np0: load the RDMA driver (`modprobe irdma` for E810)" },
                { "rdma.port", CHECK_SKIP, "see rdma.device" },
                { "rdma.gid", CHECK_SKIP, NULL },
                { "rdma.mtu", CHECK_SKIP, NULL },
        };
        static const CheckExpect no_kernel[] = {
                { "rdma.device", CHECK_FAIL, "(the kernel offers no RDMA devices at all)" },
        };
        static const CheckExpect safe_mode[] = {
                { "rdma.device", CHECK_FAIL, "ice runs 0000:c2:00.0 in Safe Mode (no DDP package)" },
        };
        static const CheckExpect absent[] = {
                { "rdma.device", CHECK_FAIL, "no RDMA device: no fabric NIC found for link rdma0 (see nic.pci)" },
                { "rdma.gid", CHECK_SKIP, NULL },
        };

        fake_verbs_setup(NULL, 0, 0);
        run(HOSTS "nic-e810-x4", profile_yaml("true", "4096"), none, ELEMENTSOF(none));
        fake_verbs_setup(NULL, 0, ENOSYS);
        run(HOSTS "nic-e810-x4", profile_yaml("true", "4096"), no_kernel, ELEMENTSOF(no_kernel));
        /* No RDMA device because ice runs the NIC in Safe Mode: the kernel log says so. */
        fake_verbs_setup(NULL, 0, 0);
        run(HOSTS "nic-e810-safe-mode", profile_yaml("true", "4096"), safe_mode, ELEMENTSOF(safe_mode));
        fake_verbs_setup(d, ELEMENTSOF(d), 0);
        run(HOSTS "nic-absent", profile_yaml("true", "4096"), absent, ELEMENTSOF(absent));
}

static void test_no_rdma_section(void) {
        static const char yaml[] =
                "cluster: t\nlinks:\n  rdma0:\n    match: { driver: ice }\n"
                "nodes:\n  head: { links: { rdma0: 192.168.100.1/30 } }\n";
        static const CheckExpect e[] = {
                { "rdma.device", CHECK_SKIP, "the profile has no rdma: section" },
                { "rdma.memlock", CHECK_SKIP, "the profile has no rdma: section" },
        };

        run(HOSTS "nic-e810-x4", yaml, e, ELEMENTSOF(e));
}

static void test_mtu_evaluate(void) {
        static const struct {
                unsigned active, max, netdev, min;
                CheckOutcome outcome;
        } cases[] = {
                { 4096, 4096, 9000, 4096, CHECK_PASS },
                { 4096, 4096, 4200, 4096, CHECK_PASS }, /* 4200 - 96 = 4104: room for 4096 */
                { 2048, 4096, 4150, 0, CHECK_PASS },    /* mlx5 subtracts the headers */
                { 4096, 4096, 4150, 0, CHECK_PASS },    /* irdma does not */
                { 1024, 4096, 1500, 0, CHECK_PASS },
                { 1024, 4096, 1500, 4096, CHECK_FAIL },
                { 1024, 4096, 9000, 0, CHECK_WARN },
                { 4096, 4096, 1500, 0, CHECK_WARN },    /* more than the netdev can carry */
                { 2048, 2048, 9000, 2048, CHECK_PASS }, /* the port's maximum caps it */
                { 4096, 4096, 0, 4096, CHECK_PASS },    /* netdev MTU unknown */
                { 0, 4096, 9000, 0, CHECK_FAIL },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_(port_check_done) PortCheck p = {};

                ASSERT_OK(check_rdma_mtu_evaluate(
                        "irdma0",
                        1,
                        cases[i].active,
                        cases[i].max,
                        "enp194s0np0",
                        cases[i].netdev,
                        cases[i].min,
                        &p));
                if (p.outcome != cases[i].outcome) {
                        fprintf(stderr,
                                "case %zu: got %s \"%s\"\n",
                                i,
                                check_outcome_to_string(p.outcome),
                                p.summary);
                        abort();
                }
        }
        ASSERT_INT_EQ(roce_mtu_for_netdev_mtu(9000, true), 4096);
        ASSERT_INT_EQ(roce_mtu_for_netdev_mtu(1500, true), 1024);
        ASSERT_INT_EQ(roce_mtu_for_netdev_mtu(4150, true), 2048);
        ASSERT_INT_EQ(roce_mtu_for_netdev_mtu(4150, false), 4096);
        ASSERT_INT_EQ(roce_mtu_for_netdev_mtu(300, true), 0);
}

/* A scratch host tree for rdma.memlock: /dev/infiniband with real modes and owners. */
static char *make_tree(mode_t mode, gid_t gid, const char *limits) {
        char *root = strdup("/tmp/nic-memlock-XXXXXX");
        _cleanup_(freep) char *p = NULL;

        ASSERT_TRUE(root && mkdtemp(root));
        ASSERT_TRUE(asprintf(&p, "mkdir -p %s/dev/infiniband %s/etc/security/limits.d", root, root) >= 0);
        ASSERT_INT_EQ(system(p), 0);
        p = mfree(p);
        ASSERT_TRUE(asprintf(&p, "%s/etc/group", root) >= 0);
        ASSERT_OK(write_file_atomic(p, "root:x:0:\nrdma:x:985:\n", 22, 0644));
        p = mfree(p);
        if (limits) {
                ASSERT_TRUE(asprintf(&p, "%s/etc/security/limits.d/90-rdma.conf", root) >= 0);
                ASSERT_OK(write_file_atomic(p, limits, strlen(limits), 0644));
                p = mfree(p);
        }
        if (mode != 0) {
                ASSERT_TRUE(asprintf(&p, "%s/dev/infiniband/uverbs0", root) >= 0);
                ASSERT_OK(write_file_atomic(p, "", 0, 0600));
                ASSERT_TRUE(chmod(p, mode) >= 0);
                if (gid != (gid_t) -1 && chown(p, (uid_t) -1, gid) < 0) {
                        /* Only root can give a file away; the group case needs it. */
                        free(root);
                        return NULL;
                }
        }
        return root;
}

static void remove_tree(char *root) {
        _cleanup_(freep) char *cmd = NULL;

        ASSERT_TRUE(asprintf(&cmd, "rm -rf '%s'", root) >= 0);
        ASSERT_INT_EQ(system(cmd), 0);
        free(root);
}

static void memlock_case(
        mode_t mode,
        gid_t gid,
        const char *limits,
        rlim_t limit,
        uint64_t want,
        CheckOutcome outcome,
        const char *summary_has) {
        _cleanup_(port_check_done) PortCheck p = {};
        char *root = make_tree(mode, gid, limits);
        Host h;

        if (!root) {
                fprintf(stderr, "test-check-rdma: cannot chown (not root), skipping a group case\n");
                return;
        }
        h = (Host){ .root = root };
        ASSERT_OK(check_rdma_memlock_evaluate(&h, limit, want, &p));
        if (p.outcome != outcome || !strstr(p.summary, summary_has)) {
                fprintf(stderr,
                        "memlock: got %s \"%s\", expected \"%s\"\n",
                        check_outcome_to_string(p.outcome),
                        p.summary,
                        summary_has);
                abort();
        }
        remove_tree(root);
}

static void test_memlock(void) {
        const char *limits = "# RDMA\n*   -   memlock   unlimited\n@rdma hard memlock 1048576 # KiB\n";

        memlock_case(
                0666,
                (gid_t) -1,
                limits,
                RLIM_INFINITY,
                UINT64_MAX,
                CHECK_PASS,
                "RLIMIT_MEMLOCK unlimited; /dev/infiniband/uverbs0 usable by everyone");
        memlock_case(
                0660,
                985,
                limits,
                RLIM_INFINITY,
                UINT64_MAX,
                CHECK_PASS,
                "/dev/infiniband/uverbs0 usable by group rdma");
        memlock_case(
                0600,
                (gid_t) -1,
                limits,
                RLIM_INFINITY,
                UINT64_MAX,
                CHECK_FAIL,
                "/dev/infiniband/uverbs0 (mode 0600, gid 0) is not read-writable by group rdma");
        memlock_case(
                0, (gid_t) -1, limits, RLIM_INFINITY, UINT64_MAX, CHECK_FAIL, "no /dev/infiniband/uverbs* device");
        memlock_case(
                0666,
                (gid_t) -1,
                limits,
                8 * 1024 * 1024,
                UINT64_MAX,
                CHECK_FAIL,
                "RLIMIT_MEMLOCK is 8 MiB < unlimited (rdma.memlock): set \"* - memlock unlimited\"");
        memlock_case(
                0666,
                (gid_t) -1,
                limits,
                8 * 1024 * 1024,
                UINT64_MAX,
                CHECK_FAIL,
                "/etc/security/limits.d/90-rdma.conf: * - unlimited; /etc/security/limits.d/90-rdma.conf: @rdma hard 1048576");
        memlock_case(
                0666,
                (gid_t) -1,
                NULL,
                65536,
                UINT64_MAX,
                CHECK_FAIL,
                "no memlock line in /etc/security/limits.conf");
        memlock_case(0666, (gid_t) -1, NULL, 64ULL << 30, 32ULL << 30, CHECK_PASS, "RLIMIT_MEMLOCK 64 GiB");
        memlock_case(0666, (gid_t) -1, NULL, 65536, 0, CHECK_PASS, "RLIMIT_MEMLOCK 64 KiB");
}

int main(void) {
        test_healthy();
        test_port_down();
        test_gid_v1_and_link_local_only();
        test_gid_moves();
        test_mtu();
        test_no_device();
        test_no_rdma_section();
        test_mtu_evaluate();
        test_memlock();
        printf("test-check-rdma: ok\n");
        return 0;
}
