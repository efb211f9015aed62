/* SPDX-License-Identifier: MIT */
/* Tests the name of a QP holder from the kernel's task statistics (lib/rdma/taskstats.h): the parser on
 * a reply this kernel sent (tests/fuzz/corpus/fuzz-taskstats/reply-pid, kernel 6.18, a process named
 * "qp-holder") and on replies built as taskstats.c's mk_reply() frames them; then the real kernel, as
 * root: a child named by prctl(), a pid that is gone, and the case halod's unit makes, /proc mounted
 * with hidepid=invisible (ProtectProc=invisible) and the caller another user with only CAP_NET_ADMIN,
 * where /proc/1/comm is not there and taskstats still names PID 1. */
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/genetlink.h>
#include <linux/taskstats.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "basic/fileio.h"
#include "basic/macro.h"
#include "rdma/rdma-qp-dump.h"
#include "rdma/taskstats.h"
#include "tests.h"

#define CAPTURED_PID 14569U /* the pid the captured reply is for */
#define BUILT_TGID 4242U    /* the thread group of the tasks in built replies */

static void test_captured(void) {
        _cleanup_(freep) char *data = NULL;
        char name[RDMA_QP_NAME_MAX], tiny[4];
        size_t size;

        ASSERT_OK(read_full_file(TEST_DATA_DIR "/../fuzz/corpus/fuzz-taskstats/reply-pid", 4096, &data, &size));
        ASSERT_OK(taskstats_comm_parse((const struct nlmsghdr *) data, CAPTURED_PID, name, sizeof(name), NULL));
        ASSERT_STR_EQ(name, "qp-holder");
        /* cut to the caller's buffer */
        ASSERT_OK(taskstats_comm_parse((const struct nlmsghdr *) data, CAPTURED_PID, tiny, sizeof(tiny), NULL));
        ASSERT_STR_EQ(tiny, "qp-");
        ASSERT_INT_EQ(
                taskstats_comm_parse((const struct nlmsghdr *) data, CAPTURED_PID + 1, name, sizeof(name), NULL),
                -ENODATA);
}

/* A reply as mk_reply() builds it: AGGR_PID { PID, [NULL pad,] STATS }, the stats cut to stats_len. */
static struct nlmsghdr *build(char *buf, uint8_t cmd, uint32_t pid, bool pad, size_t stats_len, const char *comm) {
        struct taskstats st = {};
        struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
        struct genlmsghdr *g;
        struct nlattr *nest;

        nlh->nlmsg_type = 0x1f;
        g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
        g->cmd = cmd;
        g->version = TASKSTATS_GENL_VERSION;
        snprintf(st.ac_comm, sizeof(st.ac_comm), "%s", comm);
        st.ac_pid = pid;
        st.ac_tgid = BUILT_TGID;
        nest = mnl_attr_nest_start(nlh, TASKSTATS_TYPE_AGGR_PID);
        mnl_attr_put_u32(nlh, TASKSTATS_TYPE_PID, pid);
        if (pad)
                mnl_attr_put(nlh, TASKSTATS_TYPE_NULL, 0, NULL);
        mnl_attr_put(nlh, TASKSTATS_TYPE_STATS, stats_len, &st);
        mnl_attr_nest_end(nlh, nest);
        return nlh;
}

static void test_built(void) {
        static char buf[8192] __attribute__((aligned(8)));
        const size_t comm_end = offsetof(struct taskstats, ac_comm) + TS_COMM_LEN;
        char name[RDMA_QP_NAME_MAX];

        ASSERT_OK(taskstats_comm_parse(
                build(buf, TASKSTATS_CMD_NEW, 42, true, sizeof(struct taskstats), "python3"),
                42,
                name,
                sizeof(name),
                NULL));
        ASSERT_STR_EQ(name, "python3");
        /* The task's process (fill_stats(): ac_tgid = task_tgid_nr_ns()), where the statistics carry it;
         * 0 where they predate it. */
        {
                uint32_t tgid = 1;

                ASSERT_OK(taskstats_comm_parse(
                        build(buf, TASKSTATS_CMD_NEW, 42, true, sizeof(struct taskstats), "nccl-proxy"),
                        42,
                        name,
                        sizeof(name),
                        &tgid));
                ASSERT_INT_EQ(tgid, BUILT_TGID);
                ASSERT_OK(taskstats_comm_parse(
                        build(buf, TASKSTATS_CMD_NEW, 42, false, comm_end, "nccl-proxy"),
                        42,
                        name,
                        sizeof(name),
                        &tgid));
                ASSERT_INT_EQ(tgid, 0);
        }
        /* The first version's length holds the name: an old kernel's reply is fine. */
        ASSERT_OK(taskstats_comm_parse(
                build(buf, TASKSTATS_CMD_NEW, 42, false, comm_end, "ib_write_bw"), 42, name, sizeof(name), NULL));
        ASSERT_STR_EQ(name, "ib_write_bw");
        /* A process names itself: an escape sequence in its 15 bytes is escaped by the reader (issue 31). */
        ASSERT_OK(taskstats_comm_parse(
                build(buf, TASKSTATS_CMD_NEW, 42, false, comm_end, "\x1b]2;x\x07\x1b[2J"),
                42,
                name,
                sizeof(name),
                NULL));
        ASSERT_STR_EQ(name, "\\x1b]2;x\\x07\\x1b[2J");
        ASSERT_INT_EQ(
                taskstats_comm_parse(
                        build(buf, TASKSTATS_CMD_NEW, 42, false, comm_end - 1, "x"), 42, name, sizeof(name), NULL),
                -EBADMSG);
        ASSERT_INT_EQ(
                taskstats_comm_parse(
                        build(buf, TASKSTATS_CMD_GET, 42, false, comm_end, "x"), 42, name, sizeof(name), NULL),
                -ENODATA);
        ASSERT_INT_EQ(
                taskstats_comm_parse(
                        build(buf, TASKSTATS_CMD_NEW, 43, false, comm_end, "x"), 42, name, sizeof(name), NULL),
                -ENODATA);
}

/* A child that names itself and waits for the end of the test; its pid. */
static pid_t named_child(const char *name) {
        int p[2];
        char c;
        pid_t pid;

        ASSERT_TRUE(pipe2(p, O_CLOEXEC) == 0);
        pid = fork();
        ASSERT_TRUE(pid >= 0);
        if (pid == 0) {
                (void) prctl(PR_SET_NAME, name);
                (void) write(p[1], "x", 1);
                pause();
                _exit(0);
        }
        ASSERT_TRUE(read(p[0], &c, 1) == 1);
        close(p[0]);
        close(p[1]);
        return pid;
}

/* In a child: /proc as ProtectProc=invisible mounts it, the user nobody with CAP_NET_ADMIN alone (as
 * halod's AmbientCapabilities=), then PID 1's name both ways. Exit 0 when taskstats named it where
 * /proc did not. */
static int hidden_proc_child(const char *pid1_comm) {
        struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
        struct __user_cap_data_struct d[2] = {};
        _cleanup_(taskstats_closep) Taskstats *t = NULL;
        char name[RDMA_QP_NAME_MAX];
        uint32_t pid = 0;

        if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
            mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, "hidepid=invisible") < 0)
                return 77;
        if (prctl(PR_SET_KEEPCAPS, 1) < 0 || setgroups(0, NULL) < 0 || setresgid(65534, 65534, 65534) < 0 ||
            setresuid(65534, 65534, 65534) < 0)
                return 10;
        d[CAP_NET_ADMIN / 32].effective = d[CAP_NET_ADMIN / 32].permitted = 1U << (CAP_NET_ADMIN % 32);
        if (syscall(SYS_capset, &h, d) < 0)
                return 11;
        if (rdma_comm_from_proc(1, name, sizeof(name), NULL) != -ENOENT)
                return 12; /* /proc/1 must be invisible here, as in halod's unit */
        if (rdma_task_from_proc_or_taskstats(1, &pid, name, sizeof(name), &t) < 0)
                return 13;
        return streq(name, pid1_comm) && pid == 1 ? 0 : 14;
}

typedef struct Thread {
        pthread_mutex_t lock;
        pthread_cond_t cond;
        pid_t tid;
        bool done;
} Thread;

/* A thread named as NCCL names its proxy thread, that lives until told. */
static void *proxy_thread(void *userdata) {
        Thread *th = userdata;

        (void) prctl(PR_SET_NAME, "nccl-proxy");
        pthread_mutex_lock(&th->lock);
        th->tid = (pid_t) syscall(SYS_gettid);
        pthread_cond_broadcast(&th->cond);
        while (!th->done)
                pthread_cond_wait(&th->cond, &th->lock);
        pthread_mutex_unlock(&th->lock);
        return NULL;
}

/* RDMA netlink names a QP by the task that made it: a thread's id when a thread made it. Both ways
 * of naming a task give this process (its thread group) and its main thread's name, never the
 * thread's id or name. */
static void test_thread(Taskstats *t, const char *self) {
        Thread th = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };
        char name[RDMA_QP_NAME_MAX];
        uint32_t pid = 0;
        pthread_t thread;

        ASSERT_INT_EQ(pthread_create(&thread, NULL, proxy_thread, &th), 0);
        pthread_mutex_lock(&th.lock);
        while (th.tid == 0)
                pthread_cond_wait(&th.cond, &th.lock);
        pthread_mutex_unlock(&th.lock);
        ASSERT_TRUE(th.tid != getpid());

        ASSERT_OK(taskstats_comm(t, (uint32_t) th.tid, name, sizeof(name)));
        ASSERT_STR_EQ(name, "nccl-proxy"); /* the thread's own name: not the process's */
        ASSERT_OK(taskstats_task(t, (uint32_t) th.tid, &pid, name, sizeof(name)));
        ASSERT_INT_EQ(pid, (uint32_t) getpid());
        ASSERT_STR_EQ(name, self);
        pid = 0;
        ASSERT_OK(rdma_task_from_proc((uint32_t) th.tid, &pid, name, sizeof(name), NULL));
        ASSERT_INT_EQ(pid, (uint32_t) getpid());
        ASSERT_STR_EQ(name, self);
        /* the main thread is its own process */
        ASSERT_OK(taskstats_task(t, (uint32_t) getpid(), &pid, name, sizeof(name)));
        ASSERT_INT_EQ(pid, (uint32_t) getpid());

        pthread_mutex_lock(&th.lock);
        th.done = true;
        pthread_cond_broadcast(&th.cond);
        pthread_mutex_unlock(&th.lock);
        ASSERT_INT_EQ(pthread_join(thread, NULL), 0);
}

static int test_kernel(void) {
        _cleanup_(taskstats_closep) Taskstats *t = NULL;
        _cleanup_(freep) char *self = NULL, *pid1 = NULL;
        char name[RDMA_QP_NAME_MAX];
        int status, r;
        pid_t child;

        if (geteuid() != 0) {
                ASSERT_TRUE(!getenv("CI")); /* CI runs the suite as root */
                fprintf(stderr, "skipping the kernel's taskstats: not root (CAP_NET_ADMIN)\n");
                return 77;
        }
        r = taskstats_open(&t);
        if (r == -ENOENT && !getenv("CI")) {
                /* a kernel without CONFIG_TASKSTATS */
                fprintf(stderr, "skipping the kernel's taskstats: no TASKSTATS family here\n");
                return 77;
        }
        ASSERT_OK(r);

        ASSERT_OK(read_full_file("/proc/self/comm", 64, &self, NULL));
        self[strcspn(self, "\n")] = 0;
        ASSERT_OK(taskstats_comm(t, (uint32_t) getpid(), name, sizeof(name)));
        ASSERT_STR_EQ(name, self);

        child = named_child("qp-holder-test");
        ASSERT_OK(taskstats_comm(t, (uint32_t) child, name, sizeof(name)));
        ASSERT_STR_EQ(name, "qp-holder-test");
        ASSERT_TRUE(kill(child, SIGKILL) == 0);
        ASSERT_TRUE(waitpid(child, NULL, 0) == child);
        ASSERT_INT_EQ(taskstats_comm(t, (uint32_t) child, name, sizeof(name)), -ESRCH);

        test_thread(t, self);

        /* /proc visible: /proc's name, no socket opened */
        ASSERT_OK(read_full_file("/proc/1/comm", 64, &pid1, NULL));
        pid1[strcspn(pid1, "\n")] = 0;
        {
                Taskstats *lazy = NULL;

                uint32_t pid = 0;

                ASSERT_OK(rdma_task_from_proc_or_taskstats(1, &pid, name, sizeof(name), &lazy));
                ASSERT_STR_EQ(name, pid1);
                ASSERT_INT_EQ(pid, 1);
                ASSERT_TRUE(!lazy);
        }

        child = fork();
        ASSERT_TRUE(child >= 0);
        if (child == 0)
                _exit(hidden_proc_child(pid1));
        ASSERT_TRUE(waitpid(child, &status, 0) == child);
        ASSERT_TRUE(WIFEXITED(status));
        if (WEXITSTATUS(status) == 77) {
                ASSERT_TRUE(!getenv("CI"));
                fprintf(stderr, "skipping the hidden /proc case: cannot mount /proc with hidepid here\n");
                return 0;
        }
        ASSERT_INT_EQ(WEXITSTATUS(status), 0);
        return 0;
}

int main(void) {
        test_captured();
        test_built();
        return test_kernel();
}
