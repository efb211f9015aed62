/* SPDX-License-Identifier: MIT */
/* QPs grouped by who holds them: a process (the thread group of the task that made them, named from
 * /proc) or a kernel module by name. */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/fileio.h"
#include "basic/proc-status.h"
#include "basic/untrusted-string.h"
#include "rdma/rdma-qp-dump.h"

static bool same_holder(const RdmaQpHolder *h, const RdmaQp *qp, uint32_t pid) {
        if (qp->has_pid)
                return !h->kernel && h->pid == pid;
        return h->kernel && streq(h->name, qp->kern_name);
}

/* The process of a task, asked once per task: the QPs of one thread are usually many. */
typedef struct TaskSeen {
        uint32_t tid, pid;
        char name[RDMA_QP_NAME_MAX];
} TaskSeen;

static const TaskSeen *
        task_process(TaskSeen *seen, size_t *n_seen, uint32_t tid, RdmaTaskFunc task, void *userdata) {
        TaskSeen *t;

        for (size_t i = 0; i < *n_seen; i++)
                if (seen[i].tid == tid)
                        return &seen[i];
        t = &seen[(*n_seen)++];
        *t = (TaskSeen){ .tid = tid, .pid = tid };
        if (task && task(tid, &t->pid, t->name, sizeof(t->name), userdata) < 0) {
                t->pid = tid;
                t->name[0] = 0;
        }
        return t;
}

int rdma_qp_holders(
        const RdmaQp *qps, size_t n, RdmaTaskFunc task, void *userdata, RdmaQpHolder **ret, size_t *ret_n) {
        _cleanup_(freep) RdmaQpHolder *holders = NULL;
        _cleanup_(freep) TaskSeen *seen = NULL;
        size_t n_holders = 0, n_seen = 0;

        if ((n > 0 && !qps) || !ret || !ret_n)
                return -EINVAL;
        if (n > 0) {
                holders = calloc(n, sizeof(RdmaQpHolder)); /* at most one holder per QP */
                seen = calloc(n, sizeof(TaskSeen));
                if (!holders || !seen)
                        return -ENOMEM;
        }

        for (size_t i = 0; i < n; i++) {
                const TaskSeen *t = qps[i].has_pid ? task_process(seen, &n_seen, qps[i].pid, task, userdata)
                                                   : NULL;
                uint32_t pid = t ? t->pid : qps[i].pid;
                RdmaQpHolder *h = NULL;

                for (size_t j = 0; j < n_holders && !h; j++)
                        if (same_holder(&holders[j], &qps[i], pid))
                                h = &holders[j];
                if (!h) {
                        h = &holders[n_holders++];
                        h->kernel = !qps[i].has_pid;
                        h->pid = pid;
                        memcpy(h->name, t ? t->name : qps[i].kern_name, sizeof(h->name));
                }
                h->n_qps++;
                if (qps[i].state <= RDMA_QP_STATE_MAX)
                        h->by_state[qps[i].state]++;
                else
                        h->other_state++;
        }
        *ret = TAKE_PTR(holders);
        *ret_n = n_holders;
        return 0;
}

int rdma_comm_from_proc(uint32_t pid, char *buf, size_t size, void *userdata) {
        _cleanup_(closep) int fd = -EBADF;
        char path[32];
        ssize_t k;

        if (!buf || size == 0)
                return -EINVAL;
        snprintf(path, sizeof(path), "/proc/%u/comm", pid);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        k = read(fd, buf, size - 1);
        if (k < 0)
                return -errno;
        buf[k] = 0;
        buf[strcspn(buf, "\n")] = 0;
        /* Any process names itself (prctl(PR_SET_NAME)): its name is escaped before it is shown. */
        untrusted_escape_in_place(buf, size);
        return 0;
}

int rdma_task_from_proc(uint32_t tid, uint32_t *ret_pid, char *buf, size_t size, void *userdata) {
        _cleanup_(freep) char *status = NULL;
        char path[40];
        uint32_t pid;
        int r;

        if (!ret_pid || !buf || size == 0)
                return -EINVAL;
        /* /proc/TID is there for every thread, though only the processes are listed. */
        snprintf(path, sizeof(path), "/proc/%" PRIu32 "/status", tid);
        r = read_full_file(path, 64 * 1024, &status, NULL);
        if (r < 0)
                return r;
        r = proc_status_tgid(status, &pid);
        if (r < 0)
                return r;
        r = rdma_comm_from_proc(pid, buf, size, NULL);
        if (r < 0)
                return r;
        *ret_pid = pid;
        return 0;
}
