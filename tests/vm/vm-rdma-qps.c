/* SPDX-License-Identifier: MIT */
/* vm-rdma-qps: what halod's QP reader (lib/rdma/rdma-qp-dump.h) gets from the running kernel, for the
 * vm suite to compare with iproute2's `rdma res show qp`:
 *   qp DEV/PORT LQPN TYPE STATE pid PID | kern NAME
 *   holder NAME PID|kernel QPS
 *   error ERRNO-NAME (and exit status 1) */
#include <rdma/rdma_netlink.h>
#include <stdio.h>
#include <string.h>

#include "basic/macro.h"
#include "rdma/rdma-qp-dump.h"

int main(void) {
        _cleanup_(netlink_socket_closep) NetlinkSocket *s = NULL;
        _cleanup_(freep) RdmaQp *qps = NULL;
        _cleanup_(freep) RdmaQpHolder *holders = NULL;
        size_t n, n_holders;
        int r;

        r = netlink_socket_open(NETLINK_RDMA, &s);
        if (r >= 0)
                r = rdma_qp_dump(s, &qps, &n);
        if (r >= 0)
                r = rdma_qp_holders(qps, n, rdma_task_from_proc, NULL, &holders, &n_holders);
        if (r < 0) {
                printf("error %s\n", strerrorname_np(-r) ?: "?");
                return 1;
        }
        for (size_t i = 0; i < n; i++) {
                const char *type = rdma_res_qp_type_to_string(qps[i].type),
                           *state = rdma_res_qp_state_to_string(qps[i].state);

                printf("qp %s/%u %u %s %s ", qps[i].dev_name, qps[i].port, qps[i].lqpn, type ?: "?", state ?: "?");
                if (qps[i].has_pid)
                        printf("pid %u\n", qps[i].pid);
                else
                        printf("kern %s\n", qps[i].kern_name);
        }
        for (size_t i = 0; i < n_holders; i++)
                if (holders[i].kernel)
                        printf("holder %s kernel %u\n", holders[i].name, holders[i].n_qps);
                else
                        printf("holder %s %u %u\n",
                               holders[i].name[0] ? holders[i].name : "?",
                               holders[i].pid,
                               holders[i].n_qps);
        return 0;
}
