/* SPDX-License-Identifier: MIT */
/* The "rdma." checks: rdma.device, rdma.port, rdma.gid, rdma.mtu, rdma.memlock. */
#pragma once

#include <sys/resource.h>

#include "check/check-ports.h"
#include "check/checks.h"

int check_rdma(const NodeContext *c, CheckList *out);

/* The RoCE active MTU the kernel derives from a netdev MTU: the largest IB MTU (256 ... 4096) that
 * fits, with (strict) or without the RoCE headers (GRH, UDP, BTH, extended headers, ICRC: 96
 * bytes), because drivers differ (mlx5 subtracts them, irdma does not). 0 when none fits. */
unsigned roce_mtu_for_netdev_mtu(unsigned netdev_mtu, bool strict) _pure_;

/* rdma.mtu from the values; exported for the tests. netdev_mtu 0: unknown. */
int check_rdma_mtu_evaluate(
        const char *device,
        uint32_t port,
        unsigned active_mtu,
        unsigned max_mtu,
        const char *ifname,
        unsigned netdev_mtu,
        unsigned min_active_mtu,
        PortCheck *ret);

/* rdma.memlock: the limit (RLIM_INFINITY for unlimited) against the profile's (UINT64_MAX:
 * unlimited), and the /dev/infiniband/uverbs* devices and "memlock" lines of
 * /etc/security/limits.conf and limits.d below the host root. */
int check_rdma_memlock_evaluate(const Host *h, rlim_t limit, uint64_t want, PortCheck *ret);
