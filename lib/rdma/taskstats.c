/* SPDX-License-Identifier: MIT */
/* A task's name from the kernel's taskstats over generic netlink, for when /proc hides it. */
#include <linux/genetlink.h>
#include <linux/taskstats.h>
#include <stddef.h>
#include <string.h>

#include "basic/untrusted-string.h"
#include "nic/genl.h"
#include "rdma/rdma-qp-dump.h"
#include "rdma/taskstats.h"

struct Taskstats {
        Genl *genl;
        uint16_t family;
};

int taskstats_open(Taskstats **ret) {
        _cleanup_(taskstats_closep) Taskstats *t = NULL;
        int r;

        t = calloc(1, sizeof(Taskstats));
        if (!t)
                return -ENOMEM;
        r = genl_open(&t->genl);
        if (r < 0)
                return r;
        r = genl_resolve_family(t->genl, TASKSTATS_GENL_NAME, &t->family, /* ret_error= */ NULL);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(t);
        return 0;
}

Taskstats *taskstats_close(Taskstats *t) {
        if (!t)
                return NULL;
        genl_close(t->genl);
        return mfree(t);
}

typedef struct Aggregate {
        const struct nlattr *pid, *stats;
} Aggregate;

static int aggregate_cb(const struct nlattr *attr, void *data) {
        Aggregate *a = data;

        /* TASKSTATS_TYPE_NULL pads the statistics to 64 bits; other types are not ours. */
        switch (mnl_attr_get_type(attr)) {
        case TASKSTATS_TYPE_PID:
                if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0)
                        return MNL_CB_ERROR;
                a->pid = attr;
                break;
        case TASKSTATS_TYPE_STATS:
                a->stats = attr;
                break;
        }
        return MNL_CB_OK;
}

static int reply_cb(const struct nlattr *attr, void *data) {
        const struct nlattr **aggr = data;

        if (mnl_attr_get_type(attr) == TASKSTATS_TYPE_AGGR_PID)
                *aggr = attr;
        return MNL_CB_OK;
}

int taskstats_comm_parse(const struct nlmsghdr *nlh, uint32_t pid, char *buf, size_t size, uint32_t *ret_tgid) {
        /* ac_comm sits in the first version's fields, which every later version keeps in place. */
        const size_t need = offsetof(struct taskstats, ac_comm) + TS_COMM_LEN;
        const struct nlattr *aggr = NULL;
        Aggregate a = {};
        const char *comm;
        uint8_t cmd;
        size_t n;

        if (!buf || size == 0)
                return -EINVAL;
        if (nlh->nlmsg_len < sizeof(struct nlmsghdr) || nlh->nlmsg_type < NLMSG_MIN_TYPE)
                return -ENODATA;
        if (genl_message_command(nlh, &cmd) < 0)
                return -EBADMSG;
        if (cmd != TASKSTATS_CMD_NEW)
                return -ENODATA;
        if (mnl_attr_parse(nlh, GENL_HDRLEN, reply_cb, &aggr) < 0)
                return -EBADMSG;
        if (!aggr)
                return -ENODATA;
        if (mnl_attr_parse_nested(aggr, aggregate_cb, &a) < 0 || !a.pid || !a.stats)
                return -EBADMSG;
        if (mnl_attr_get_u32(a.pid) != pid)
                return -ENODATA;
        if (mnl_attr_get_payload_len(a.stats) < need)
                return -EBADMSG;
        comm = (const char *) mnl_attr_get_payload(a.stats) + offsetof(struct taskstats, ac_comm);
        /* The kernel pads the name with NULs; a name that fills the field has none. The name is the
         * process's own choice (prctl(PR_SET_NAME)): escaped before it reaches a terminal. */
        n = strnlen(comm, TS_COMM_LEN);
        (void) untrusted_escape(comm, n, buf, size);
        if (ret_tgid) {
                const size_t tgid_end = offsetof(struct taskstats, ac_tgid) + sizeof(uint32_t);
                uint32_t tgid = 0;

                if (mnl_attr_get_payload_len(a.stats) >= tgid_end)
                        memcpy(&tgid,
                               (const char *) mnl_attr_get_payload(a.stats) +
                                       offsetof(struct taskstats, ac_tgid),
                               sizeof(tgid));
                *ret_tgid = tgid;
        }
        return 0;
}

typedef struct Reply {
        uint32_t pid;
        char *buf;
        size_t size;
        uint32_t tgid;
        bool found;
} Reply;

static int comm_reply(const struct nlmsghdr *nlh, void *userdata) {
        Reply *q = userdata;
        int r = taskstats_comm_parse(nlh, q->pid, q->buf, q->size, &q->tgid);

        if (r == -ENODATA)
                return 0;
        if (r < 0)
                return r;
        q->found = true;
        return 0;
}

static int query(Taskstats *t, uint32_t pid, char *buf, size_t size, uint32_t *ret_tgid) {
        Reply q = { .pid = pid, .buf = buf, .size = size };
        struct nlmsghdr *nlh;
        int r;

        if (!t || !buf || size == 0)
                return -EINVAL;
        nlh = genl_request_new(t->genl, t->family, TASKSTATS_CMD_GET, TASKSTATS_GENL_VERSION, 0);
        mnl_attr_put_u32(nlh, TASKSTATS_CMD_ATTR_PID, pid);
        r = genl_transact(t->genl, nlh, comm_reply, &q, /* ret_error= */ NULL);
        if (r < 0)
                return r;
        if (!q.found)
                return -EBADMSG;
        if (ret_tgid)
                *ret_tgid = q.tgid;
        return 0;
}

int taskstats_comm(Taskstats *t, uint32_t pid, char *buf, size_t size) {
        return query(t, pid, buf, size, NULL);
}

int taskstats_task(Taskstats *t, uint32_t tid, uint32_t *ret_tgid, char *buf, size_t size) {
        uint32_t tgid = 0;
        int r;

        if (!ret_tgid)
                return -EINVAL;
        r = query(t, tid, buf, size, &tgid);
        if (r < 0)
                return r;
        if (tgid == 0) /* statistics from before ac_tgid */
                tgid = tid;
        /* A thread's ac_comm is its own name (NCCL's proxy thread's, say): the process is named by its
         * main thread, whose id is the thread group's. */
        if (tgid != tid) {
                r = query(t, tgid, buf, size, NULL);
                if (r < 0)
                        return r;
        }
        *ret_tgid = tgid;
        return 0;
}

int rdma_task_from_proc_or_taskstats(uint32_t tid, uint32_t *ret_pid, char *buf, size_t size, void *userdata) {
        Taskstats **t = userdata;
        int r;

        r = rdma_task_from_proc(tid, ret_pid, buf, size, NULL);
        /* ProtectProc=invisible: another user's /proc/PID is not there at all. */
        if (r != -ENOENT || !t)
                return r;
        if (!*t) {
                r = taskstats_open(t);
                if (r < 0)
                        return r;
        }
        return taskstats_task(*t, tid, ret_pid, buf, size);
}
