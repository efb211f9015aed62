/* SPDX-License-Identifier: MIT */
/* The queue pairs open on the RDMA devices, from the kernel's resource tracking over RDMA netlink
 * (NETLINK_RDMA, RDMA_NLDEV_CMD_RES_QP_GET, as iproute2's `rdma res show qp`): per QP its device,
 * port, number, type, state, and who holds it. The kernel names a kernel holder (kern-name, e.g.
 * ib_core's GSI QP) and gives a user holder's pid only, in the pid namespace of the socket's opener:
 * its name is /proc/PID/comm's, which a caller in another pid namespace, or with /proc hidden
 * (ProtectProc=, ProcSubset=pid), cannot read. The kernel shows a user QP only to a reader in whose
 * pid namespace its process has a pid, and kernel QPs only to the initial pid namespace (restrack.c's
 * rdma_is_visible_in_pid_ns): halod in the host's pid namespace sees the QPs of containers' processes,
 * under their host pids. rdma_qp_holders() groups the QPs by holder.
 * The parsers are pure; rdma_qp_dump() talks to the kernel. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/netlink.h"

#define RDMA_QP_STATE_MAX 6 /* enum ib_qp_state: RESET, INIT, RTR, RTS, SQD, SQE, ERR */
#define RDMA_QP_NAME_MAX 64

typedef struct RdmaQp {
        uint32_t dev_index;
        char dev_name[RDMA_QP_NAME_MAX]; /* "" when the message did not name it */
        uint32_t port;                   /* 0: none (a QP not yet bound to a port) */
        uint32_t lqpn;
        uint8_t type;  /* enum ib_qp_type */
        uint8_t state; /* enum ib_qp_state */
        bool has_pid;
        uint32_t pid;                     /* user QPs */
        char kern_name[RDMA_QP_NAME_MAX]; /* kernel QPs; "" for user ones */
} RdmaQp;

/* Appends the QPs of one RDMA_NLDEV_CMD_RES_QP_GET reply message to *qps (*n_qps of them; start from
 * NULL and 0, the array grows as only this function knows). Returns 0,
 * -ENODATA for a message that is not such a reply, -EBADMSG for a malformed one (what it appended
 * before stays), -ENOMEM. */
int rdma_qp_parse(const struct nlmsghdr *nlh, RdmaQp **qps, size_t *n_qps);

/* The device index and name of one RDMA_NLDEV_CMD_GET reply. Returns 0, -ENODATA, -EBADMSG. */
int rdma_dev_parse(const struct nlmsghdr *nlh, uint32_t *ret_index, char ret_name[RDMA_QP_NAME_MAX]);

/* Every QP of every RDMA device, through s (netlink_socket_open(NETLINK_RDMA, ...)): the device dump,
 * then each device's QP dump (the kernel wants a device index for it). Returns 0, the kernel's errno
 * (-EOPNOTSUPP without CONFIG_INFINIBAND; no devices is 0 QPs), -EBADMSG, -ENOMEM. */
int rdma_qp_dump(NetlinkSocket *s, RdmaQp **ret, size_t *ret_n);

/* A holder of QPs: a process (pid, its comm when known) or a kernel module (kern_name). */
typedef struct RdmaQpHolder {
        bool kernel;
        uint32_t pid;                /* the process (thread group) holding the QPs */
        char name[RDMA_QP_NAME_MAX]; /* its comm (its main thread's) or kern-name; "" when unknown */
        unsigned n_qps;
        unsigned by_state[RDMA_QP_STATE_MAX + 1];
        unsigned other_state; /* states past RDMA_QP_STATE_MAX */
} RdmaQpHolder;

/* The process of task tid (RDMA netlink's RDMA_NLDEV_ATTR_RES_PID is the pid of the task that made the
 * QP, task_pid_vnr(): a thread id when a thread made it) into *ret_pid (its thread group id) and that
 * process's name into buf: 0 or negative errno (then the task is taken as its own process, unnamed). */
typedef int (*RdmaTaskFunc)(uint32_t tid, uint32_t *ret_pid, char *buf, size_t size, void *userdata);

/* Groups qps by holder, a process or a kernel module, in the order of their first QP; task (may be
 * NULL: each task its own process, unnamed) finds the process of each QP's task, so that the QPs of a
 * process's threads are one holder. Returns 0 or -ENOMEM. */
int rdma_qp_holders(
        const RdmaQp *qps, size_t n, RdmaTaskFunc task, void *userdata, RdmaQpHolder **ret, size_t *ret_n);

/* /proc/PID/comm: the name of task pid. */
int rdma_comm_from_proc(uint32_t pid, char *buf, size_t size, void *userdata);
/* An RdmaTaskFunc: Tgid of /proc/TID/status, then /proc/TGID/comm. */
int rdma_task_from_proc(uint32_t tid, uint32_t *ret_pid, char *buf, size_t size, void *userdata);

/* Named for the kernel's resource tracking (res-qp), apart from rdma/'s libibverbs names. */
const char *rdma_res_qp_state_to_string(uint8_t state);
const char *rdma_res_qp_type_to_string(uint8_t type);
