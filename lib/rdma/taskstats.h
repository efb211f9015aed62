/* SPDX-License-Identifier: MIT */
/* A process's name from the kernel's per-task statistics (generic netlink family "TASKSTATS",
 * TASKSTATS_CMD_GET with TASKSTATS_CMD_ATTR_PID: struct taskstats' ac_comm), for when /proc/PID is
 * hidden: halod's unit mounts /proc with ProtectProc=invisible, so the workload's processes, which run
 * as other users, have no /proc entry there. The kernel answers that command to CAP_NET_ADMIN only
 * (GENL_ADMIN_PERM), which halod holds, in any network namespace, and looks the pid up in the caller's
 * pid namespace, as RDMA netlink gives it. A kernel without CONFIG_TASKSTATS has no such family. */
#pragma once

#include <libmnl/libmnl.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/macro.h"

typedef struct Taskstats Taskstats;

/* Opens a generic netlink socket and resolves the family. Returns 0, -ENOENT (no TASKSTATS family: a
 * kernel without CONFIG_TASKSTATS), or socket()'s errno. */
int taskstats_open(Taskstats **ret);
Taskstats *taskstats_close(Taskstats *t);
DEFINE_TRIVIAL_CLEANUP_FUNC(Taskstats *, taskstats_close);

/* The name of task pid (a process or a thread) into buf (size > 0, NUL-terminated, cut to fit).
 * Returns 0, -ESRCH (no such task), -EPERM (no CAP_NET_ADMIN), -EBADMSG for a malformed reply. */
int taskstats_comm(Taskstats *t, uint32_t pid, char *buf, size_t size);

/* The process (thread group) of task tid into *ret_tgid, as struct taskstats' ac_tgid gives it, and
 * that process's name (its main thread's ac_comm) into buf: a second request when tid is another
 * thread. A kernel whose statistics predate ac_tgid (TASKSTATS_VERSION 8 and older) names the task
 * itself as its process. Returns as taskstats_comm(). */
int taskstats_task(Taskstats *t, uint32_t tid, uint32_t *ret_tgid, char *buf, size_t size);

/* The name in one reply message of TASKSTATS_CMD_GET for pid, and the task's thread group id
 * (ac_tgid) into *ret_tgid when not NULL (0 when the statistics are too short to carry it). Returns
 * 0, -ENODATA for a message that is not such a reply (another command, another pid), -EBADMSG for a
 * malformed one. Pure. */
int taskstats_comm_parse(const struct nlmsghdr *nlh, uint32_t pid, char *buf, size_t size, uint32_t *ret_tgid);

/* An RdmaTaskFunc (rdma/rdma-qp-dump.h): /proc (rdma_task_from_proc()), and where /proc hides the
 * process the kernel's task statistics, through *userdata (a Taskstats **, opened on first use, the
 * caller's to close; NULL: /proc only). */
int rdma_task_from_proc_or_taskstats(uint32_t tid, uint32_t *ret_pid, char *buf, size_t size, void *userdata);
