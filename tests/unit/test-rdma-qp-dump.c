/* SPDX-License-Identifier: MIT */
/* Tests the RDMA netlink QP parser and the grouping by holder against real dumps: the vm suite's
 * guests (kernel 6.1.0-56, soft-RoCE rxe0) while ib_write_bw ran between them, recorded byte for byte
 * by tests/vm/capture-rdma-qp.sh (tests/data/rdma/res-qp-rxe-6.1.0-56/README). `rdma res show qp`
 * of the same moment says what the kernel held: in vm1 (the client) ib_write_bw's RC QP 17 in RTS,
 * in vm2 (the server) its RC QP 17 in RTR, and in both ib_core's GSI QP 1. */
#include <stdio.h>

#include "../fuzz/netlink-walk.h"
#include "basic/fileio.h"
#include "basic/macro.h"
#include "basic/proc-status.h"
#include "rdma/rdma-qp-dump.h"
#include "tests.h"

#define CAPTURE TEST_DATA_DIR "/rdma/res-qp-rxe-6.1.0-56"

static RdmaQp *qps;
static size_t n_qps;
static int n_errors;
static uint32_t dev_index = UINT32_MAX;
static char dev_name[RDMA_QP_NAME_MAX];

static void parse_qp(const struct nlmsghdr *nlh) {
        int r = rdma_qp_parse(nlh, &qps, &n_qps);

        if (r < 0 && r != -ENODATA)
                n_errors++;
}

static void parse_dev(const struct nlmsghdr *nlh) {
        int r = rdma_dev_parse(nlh, &dev_index, dev_name);

        if (r < 0 && r != -ENODATA)
                n_errors++;
}

static void walk(const char *path, void (*parse_one)(const struct nlmsghdr *nlh)) {
        _cleanup_(freep) char *data = NULL;
        size_t size;

        ASSERT_OK(read_full_file(path, 1024 * 1024, &data, &size));
        fuzz_netlink_walk((const uint8_t *) data, size, parse_one);
}

/* comm.txt as the capture read /proc: "PID COMM" lines, each a process's main thread */
static int task_from_capture(uint32_t pid, uint32_t *ret_pid, char *buf, size_t size, void *userdata) {
        _cleanup_(fclosep) FILE *f = fopen(userdata, "re");
        unsigned p;
        char name[64];

        ASSERT_TRUE(f);
        while (fscanf(f, "%u %63s", &p, name) == 2)
                if (p == pid) {
                        snprintf(buf, size, "%s", name);
                        *ret_pid = pid;
                        return 0;
                }
        return -ESRCH;
}

static void test_guest(const char *vm, uint32_t pid, uint8_t state) {
        _cleanup_(freep) char *path = NULL, *comm = NULL;
        _cleanup_(freep) RdmaQpHolder *holders = NULL;
        size_t n_holders;

        qps = mfree(qps);
        n_qps = 0;
        n_errors = 0;
        ASSERT_TRUE(asprintf(&path, CAPTURE "/%s/res-qp.bin", vm) > 0);
        ASSERT_TRUE(asprintf(&comm, CAPTURE "/%s/comm.txt", vm) > 0);
        walk(path, parse_qp);
        ASSERT_INT_EQ(n_errors, 0);
        ASSERT_INT_EQ(n_qps, 2);

        /* in the kernel's order (its restrack xarray), as `rdma res show qp` printed it: QP 17 first */
        ASSERT_STR_EQ(qps[1].dev_name, "rxe0");
        ASSERT_INT_EQ(qps[1].dev_index, 0);
        ASSERT_INT_EQ(qps[1].port, 1);
        ASSERT_INT_EQ(qps[1].lqpn, 1);
        ASSERT_STR_EQ(rdma_res_qp_type_to_string(qps[1].type), "GSI");
        ASSERT_STR_EQ(rdma_res_qp_state_to_string(qps[1].state), "RTS");
        ASSERT_TRUE(!qps[1].has_pid);
        ASSERT_STR_EQ(qps[1].kern_name, "ib_core");

        ASSERT_STR_EQ(qps[0].dev_name, "rxe0");
        ASSERT_INT_EQ(qps[0].port, 1);
        ASSERT_INT_EQ(qps[0].lqpn, 17);
        ASSERT_STR_EQ(rdma_res_qp_type_to_string(qps[0].type), "RC");
        ASSERT_INT_EQ(qps[0].state, state);
        ASSERT_TRUE(qps[0].has_pid);
        ASSERT_INT_EQ(qps[0].pid, pid);
        ASSERT_STR_EQ(qps[0].kern_name, "");

        ASSERT_OK(rdma_qp_holders(qps, n_qps, task_from_capture, comm, &holders, &n_holders));
        ASSERT_INT_EQ(n_holders, 2);
        ASSERT_TRUE(holders[1].kernel);
        ASSERT_STR_EQ(holders[1].name, "ib_core");
        ASSERT_INT_EQ(holders[1].n_qps, 1);
        ASSERT_TRUE(!holders[0].kernel);
        ASSERT_INT_EQ(holders[0].pid, pid);
        ASSERT_STR_EQ(holders[0].name, "ib_write_bw");
        ASSERT_INT_EQ(holders[0].n_qps, 1);
        ASSERT_INT_EQ(holders[0].by_state[state], 1);
}

static void test_devices(void) {
        n_errors = 0;
        walk(CAPTURE "/vm1/dev-get.bin", parse_dev);
        ASSERT_INT_EQ(n_errors, 0);
        ASSERT_INT_EQ(dev_index, 0);
        ASSERT_STR_EQ(dev_name, "rxe0");
}

/* Grouping beyond the capture: several QPs of one process, an unknown name, a state past ERR. */
static void test_holders(void) {
        const RdmaQp many[] = {
                { .lqpn = 20, .state = 3, .has_pid = true, .pid = 812 },
                { .lqpn = 21, .state = 3, .has_pid = true, .pid = 812 },
                { .lqpn = 22, .state = 6, .has_pid = true, .pid = 812 },
                { .lqpn = 23, .state = 99, .has_pid = true, .pid = 900 },
                { .lqpn = 1, .state = 3, .kern_name = "ib_core" },
        };
        _cleanup_(freep) RdmaQpHolder *holders = NULL;
        size_t n;

        ASSERT_OK(rdma_qp_holders(many, ELEMENTSOF(many), NULL, NULL, &holders, &n));
        ASSERT_INT_EQ(n, 3);
        ASSERT_INT_EQ(holders[0].pid, 812);
        ASSERT_INT_EQ(holders[0].n_qps, 3);
        ASSERT_INT_EQ(holders[0].by_state[3], 2);
        ASSERT_INT_EQ(holders[0].by_state[6], 1);
        ASSERT_STR_EQ(holders[0].name, "");
        ASSERT_INT_EQ(holders[1].other_state, 1);
        ASSERT_TRUE(holders[2].kernel);

        holders = mfree(holders);
        ASSERT_OK(rdma_qp_holders(NULL, 0, NULL, NULL, &holders, &n));
        ASSERT_INT_EQ(n, 0);
        ASSERT_TRUE(rdma_res_qp_state_to_string(7) == NULL);
        ASSERT_TRUE(rdma_res_qp_type_to_string(7) == NULL);
}

/* The tasks of a node as procfs shows them (fs/proc/array.c, task_state(): "Name:\t%s", "Tgid:\t%d",
 * "Pid:\t%d"), for the threads RDMA netlink names: halod (pid 472) made QPs in two peer rounds'
 * threads (478, 481), a vLLM worker (python3, pid 900) in NCCL's proxy thread (913). */
static const struct {
        uint32_t tid;
        const char *status;
} proc_status[] = {
        { 472,
          "Name:\thalod\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t472\nNgid:\t0\nPid:\t472\nPPid:\t1\n" },
        { 478,
          "Name:\thalod-peer\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t472\nNgid:\t0\nPid:\t478\nPPid:\t1\n" },
        { 481,
          "Name:\thalod-peer\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t472\nNgid:\t0\nPid:\t481\nPPid:\t1\n" },
        { 913,
          "Name:\tnccl-proxy\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t900\nNgid:\t0\nPid:\t913\nPPid:\t850\n" },
        { 900,
          "Name:\tpython3\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t900\nNgid:\t0\nPid:\t900\nPPid:\t850\n" },
};

/* rdma_task_from_proc() over proc_status: Tgid of the task's status, the name of the group leader's. */
static int task_from_status(uint32_t tid, uint32_t *ret_pid, char *buf, size_t size, void *userdata) {
        uint32_t tgid = 0;

        for (size_t i = 0; i < ELEMENTSOF(proc_status); i++)
                if (proc_status[i].tid == tid)
                        ASSERT_OK(proc_status_tgid(proc_status[i].status, &tgid));
        if (tgid == 0)
                return -ENOENT;
        for (size_t i = 0; i < ELEMENTSOF(proc_status); i++)
                if (proc_status[i].tid == tgid) {
                        const char *name = proc_status[i].status + strlen("Name:\t");

                        snprintf(buf, size, "%.*s", (int) strcspn(name, "\n"), name);
                        *ret_pid = tgid;
                        return 0;
                }
        return -ENOENT;
}

/* Held by processes, not threads: one holder (and metric series) per process, named and numbered as
 * ps and kill know it, however many threads made its QPs. */
static void test_holders_by_process(void) {
        const RdmaQp threads[] = {
                { .lqpn = 30, .state = 3, .has_pid = true, .pid = 478 },
                { .lqpn = 31, .state = 3, .has_pid = true, .pid = 913 },
                { .lqpn = 32, .state = 3, .has_pid = true, .pid = 481 },
                { .lqpn = 33, .state = 3, .has_pid = true, .pid = 900 },
                { .lqpn = 34, .state = 3, .has_pid = true, .pid = 472 },
                { .lqpn = 35, .state = 3, .has_pid = true, .pid = 4711 }, /* gone: itself, unnamed */
                { .lqpn = 1, .state = 3, .kern_name = "ib_core" },
        };
        static const struct {
                bool kernel;
                uint32_t pid;
                const char *name;
                unsigned n_qps;
        } want[] = {
                { false, 472, "halod", 3 },
                { false, 900, "python3", 2 },
                { false, 4711, "", 1 },
                { true, 0, "ib_core", 1 },
        };
        _cleanup_(freep) RdmaQpHolder *holders = NULL;
        size_t n;

        ASSERT_OK(rdma_qp_holders(threads, ELEMENTSOF(threads), task_from_status, NULL, &holders, &n));
        ASSERT_INT_EQ(n, ELEMENTSOF(want));
        for (size_t i = 0; i < n; i++) {
                ASSERT_TRUE(holders[i].kernel == want[i].kernel);
                ASSERT_INT_EQ(holders[i].pid, want[i].pid);
                ASSERT_STR_EQ(holders[i].name, want[i].name);
                ASSERT_INT_EQ(holders[i].n_qps, want[i].n_qps);
        }
}

int main(void) {
        test_guest("vm1", 377, 3 /* RTS */);
        test_guest("vm2", 388, 2 /* RTR */);
        test_devices();
        test_holders();
        test_holders_by_process();
        qps = mfree(qps);
        return 0;
}
