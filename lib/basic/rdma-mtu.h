/* SPDX-License-Identifier: MIT */
/* The path MTUs an RDMA link (InfiniBand, RoCE) can have: 256, 512, 1024, 2048 or 4096 bytes, coded
 * 1 ... 5 in the InfiniBand spec and so in libibverbs' enum ibv_mtu. Here rather than in rdma/ because
 * the profile and the peer channel validate them too. */
#pragma once

#include <stdbool.h>

#include "basic/macro.h"

#define RDMA_MTU_MIN 256U
#define RDMA_MTU_MAX 4096U
/* The valid values as a message lists them. */
#define RDMA_MTU_VALUES "256, 512, 1024, 2048 or 4096"

bool rdma_mtu_is_valid(unsigned bytes) _pure_;
/* The bytes of a code (1 ... 5, IBV_MTU_256 ... IBV_MTU_4096); 0 for anything else. */
unsigned rdma_mtu_to_bytes(int code) _pure_;
/* The code of a valid MTU in bytes; 0 for anything else. */
int rdma_mtu_from_bytes(unsigned bytes) _pure_;
/* The largest RDMA MTU that fits in bytes; 0 when none does. */
unsigned rdma_mtu_fitting(unsigned bytes) _pure_;

/* The most bytes of RoCE v2 headers a packet carries past the netdev MTU's payload (GRH 40, UDP 8,
 * BTH 12, XRC 4, AtomicETH 28, ICRC 4): mlx5 takes them off the netdev MTU before it picks
 * the active IB MTU (the kernel's iboe_get_mtu()), irdma does not. */
#define ROCE_HEADERS_MAX 96 /* no U: messages STRINGIFY() it */
/* The active RDMA MTU a netdev MTU gives: strict (mlx5), the largest that fits once the headers are
 * off (9000 and 4200 give 4096, 4150 gives 2048); else the largest that fits the MTU itself. */
unsigned roce_mtu_for_netdev_mtu(unsigned netdev_mtu, bool strict) _pure_;
