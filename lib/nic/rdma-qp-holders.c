/* SPDX-License-Identifier: MIT */
/* QPs grouped by who holds them: a process by pid (named from /proc) or a kernel module by name. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/untrusted-string.h"
#include "nic/rdma-qp-dump.h"

static bool same_holder(const RdmaQpHolder *h, const RdmaQp *qp) {
        if (qp->has_pid)
                return !h->kernel && h->pid == qp->pid;
        return h->kernel && streq(h->name, qp->kern_name);
}

int rdma_qp_holders(
        const RdmaQp *qps, size_t n, RdmaCommFunc comm, void *userdata, RdmaQpHolder **ret, size_t *ret_n) {
        _cleanup_(freep) RdmaQpHolder *holders = NULL;
        size_t n_holders = 0;

        if ((n > 0 && !qps) || !ret || !ret_n)
                return -EINVAL;
        if (n > 0) {
                holders = calloc(n, sizeof(RdmaQpHolder)); /* at most one holder per QP */
                if (!holders)
                        return -ENOMEM;
        }

        for (size_t i = 0; i < n; i++) {
                RdmaQpHolder *h = NULL;

                for (size_t j = 0; j < n_holders && !h; j++)
                        if (same_holder(&holders[j], &qps[i]))
                                h = &holders[j];
                if (!h) {
                        h = &holders[n_holders++];
                        h->kernel = !qps[i].has_pid;
                        h->pid = qps[i].pid;
                        if (h->kernel)
                                memcpy(h->name, qps[i].kern_name, sizeof(h->name));
                        else if (comm && comm(h->pid, h->name, sizeof(h->name), userdata) < 0)
                                h->name[0] = 0;
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
