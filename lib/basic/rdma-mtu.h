/* SPDX-License-Identifier: MIT */
/* The path MTUs an RDMA link (InfiniBand, RoCE) can have: 256, 512, 1024, 2048 or 4096 bytes, coded
 * 1 ... 5 in the InfiniBand spec and so in libibverbs' enum ibv_mtu. Here rather than in rdma/ because
 * the profile and the peer channel validate them too. */
#pragma once

#include <errno.h>
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

/* The drivers whose rule for the active RDMA MTU of a RoCE port halod knows: each takes its own headroom
 * off the netdev MTU, then picks the largest IB MTU that fits what is left. */
typedef enum RoceMtuDriver {
        ROCE_MTU_DRIVER_UNKNOWN, /* not known: any of the rules below may apply */
        ROCE_MTU_DRIVER_IRDMA, /* E810: irdma_query_port() uses ib_mtu_int_to_enum(netdev->mtu), no headroom */
        ROCE_MTU_DRIVER_RXE,   /* soft-RoCE: eth_mtu_int_to_enum() takes RXE_MAX_HDR_LENGTH (80) off */
        ROCE_MTU_DRIVER_MLX5, /* ConnectX: iboe_get_mtu() takes GRH 40, UDP 8, BTH 12, XRC 4, AtomicETH
                               * 28 and ICRC 4 (96) off */
        _ROCE_MTU_DRIVER_MAX,
        _ROCE_MTU_DRIVER_INVALID = -EINVAL,
} RoceMtuDriver;

#define ROCE_HEADROOM_RXE 80 /* no U: messages STRINGIFY() these */
#define ROCE_HEADROOM_MLX5 96
/* The most any known driver takes off: what a netdev MTU must leave when the driver is not known. */
#define ROCE_HEADROOM_MAX ROCE_HEADROOM_MLX5

/* The driver of a rule from a kernel driver or module name: the RDMA device's ("irdma", "rdma_rxe",
 * "mlx5_ib") or the netdev's where it has one RDMA driver ("ice", "mlx5_core"); unknown for any other
 * (a virtio_net netdev may carry rxe or nothing) and for NULL. */
RoceMtuDriver roce_mtu_driver_from_name(const char *driver) _pure_;
/* The driver's name as messages say it: "irdma", "rxe", "mlx5"; NULL when unknown. */
const char *roce_mtu_driver_to_string(RoceMtuDriver d) _pure_;
/* The bytes the driver takes off the netdev MTU; for an unknown one, the most any known driver takes. */
unsigned roce_mtu_headroom(RoceMtuDriver d) _pure_;
/* The active RDMA MTU a netdev MTU gives with headroom bytes taken off first: with 96, 9000 and 4200
 * give 4096 and 4150 gives 2048; with 0, 4150 gives 4096. */
unsigned roce_mtu_for_netdev_mtu(unsigned netdev_mtu, unsigned headroom) _pure_;
/* The smallest netdev MTU that gives the driver an active MTU of rdma_mtu (for an unknown driver, one
 * that gives it with every known driver). */
unsigned roce_netdev_mtu_needed(unsigned rdma_mtu, RoceMtuDriver d) _pure_;
