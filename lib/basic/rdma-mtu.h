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
