/* SPDX-License-Identifier: MIT */
/* Tests which running processes may be services that started before DefaultLimitMEMLOCK was raised: a
 * /proc tree as fs/proc/array.c (status) and fs/proc/base.c (limits) write it. */
#include <stdio.h>

#include "basic/fileio.h"
#include "limits/memlock-sources.h"
#include "tests.h"

#define MIB (1024ULL * 1024ULL)

/* The rows fs/proc/base.c's proc_pid_limits() prints before and at "Max locked memory". */
#define LIMITS_HEAD                                                                        \
        "Limit                     Soft Limit           Hard Limit           Units     \n" \
        "Max cpu time              unlimited            unlimited            seconds   \n" \
        "Max open files            1024                 524288               files     \n"
#define LIMITS_8M \
        LIMITS_HEAD "Max locked memory         8388608              8388608              bytes     \n"
#define LIMITS_UNLIMITED \
        LIMITS_HEAD "Max locked memory         unlimited            unlimited            bytes     \n"
/* systemd's own: an eighth of the guest's RAM (bump_rlimit_memlock()). */
#define LIMITS_PID1 \
        LIMITS_HEAD "Max locked memory         191520768            191520768            bytes     \n"

/* A process below root as fs/proc/array.c (status) and fs/proc/base.c (limits) show it; limits NULL:
 * gone between the two reads. */
static void process(const char *root, const char *name, int pid, int ppid, const char *limits) {
        _cleanup_(freep) char *dir = NULL, *p = NULL, *status = NULL;

        ASSERT_TRUE(
                asprintf(
                        &status,
                        "Name:\t%s\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t%d\nNgid:\t0\nPid:\t%d\n"
                        "PPid:\t%d\nTracerPid:\t0\nUid:\t0\t0\t0\t0\n",
                        name,
                        pid,
                        pid,
                        ppid) >= 0);
        ASSERT_TRUE(asprintf(&dir, "mkdir -p %s/proc/%d", root, pid) >= 0);
        ASSERT_INT_EQ(system(dir), 0);
        ASSERT_TRUE(asprintf(&p, "%s/proc/%d/status", root, pid) >= 0);
        ASSERT_OK(write_file_atomic(p, status, strlen(status), 0644));
        if (!limits)
                return;
        p = mfree(p);
        ASSERT_TRUE(asprintf(&p, "%s/proc/%d/limits", root, pid) >= 0);
        ASSERT_OK(write_file_atomic(p, limits, strlen(limits), 0644));
}

static void test_ppid(void) {
        static const struct {
                const char *text;
                pid_t ppid;
        } cases[] = {
                { "Name:\tsshd\nPid:\t812\nPPid:\t1\nTracerPid:\t0\n", 1 },
                { "Name:\tbash\nPid:\t900\nPPid:\t812\n", 812 },
                { "Name:\tsystemd\nPid:\t1\nPPid:\t0\n", 0 },
                { "Name:\tx\nPPid:\t1", 1 },
                { "Name:\tx\nPPid:\t-1\n", -1 },
                { "Name:\tx\nPPid:\t1x\n", -1 },
                { "Name:\tx\nPPid:\t99999999999999999999\n", -1 },
                { "Name:\tx\nPid:\t1\n", -1 },
                { "PPid:\t1\n", -1 }, /* never the first row */
                { "", -1 },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++)
                ASSERT_INT_EQ(proc_status_ppid(cases[i].text), cases[i].ppid);
}

/* After DefaultLimitMEMLOCK=infinity and a daemon-reexec: sshd (a child of PID 1) still has 8 MiB; its
 * session's bash (a child of sshd) does not count; a service restarted since has unlimited. */
static void test_candidates(void) {
        char root[] = "/tmp/memlock-stale-XXXXXX", buf[512];
        _cleanup_(freep) MemlockProcess *procs = NULL;
        size_t n = 0;
        Host h;

        ASSERT_TRUE(mkdtemp(root));
        h = (Host){ .root = root };
        process(root, "systemd", 1, 0, LIMITS_PID1);
        process(root, "sshd", 812, 1, LIMITS_8M);
        process(root, "bash", 900, 812, LIMITS_8M);
        process(root, "vllm", 4242, 1, LIMITS_UNLIMITED);
        process(root, "gone", 5000, 1, NULL);
        ASSERT_TRUE(snprintf(buf, sizeof(buf), "mkdir -p %s/proc/self", root) > 0);
        ASSERT_INT_EQ(system(buf), 0);

        ASSERT_OK(memlock_stale_candidates(&h, MEMLOCK_UNLIMITED, &procs, &n));
        ASSERT_INT_EQ(n, 1);
        ASSERT_INT_EQ(procs[0].pid, 812);
        ASSERT_TRUE(procs[0].soft == 8 * MIB);
        procs = mfree(procs);

        /* Below 8 MiB nothing is short. */
        ASSERT_OK(memlock_stale_candidates(&h, 8 * MIB, &procs, &n));
        ASSERT_INT_EQ(n, 0);
        procs = mfree(procs);

        ASSERT_TRUE(snprintf(buf, sizeof(buf), "rm -rf %s", root) > 0);
        ASSERT_INT_EQ(system(buf), 0);
        h = (Host){ .root = "/nonexistent-memlock-tree" };
        ASSERT_INT_EQ(memlock_stale_candidates(&h, MEMLOCK_UNLIMITED, &procs, &n), -ENOENT);
}

int main(void) {
        test_ppid();
        test_candidates();
        return 0;
}
