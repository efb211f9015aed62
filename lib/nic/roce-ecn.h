/* SPDX-License-Identifier: MIT */
/* RoCE ECN per priority, as the ConnectX driver of NVIDIA's MLNX_OFED/DOCA-OFED shows it:
 * /sys/class/net/IF/ecn/roce_np/enable/0..7 (the notification point: the receiver that answers an
 * ECN-marked packet with a CNP) and /sys/class/net/IF/ecn/roce_rp/enable/0..7 (the reaction point: the
 * sender that slows down on a CNP), each "0" or "1". The in-tree mlx5 driver, the E810's ice and irdma
 * have no such files: their ECN is firmware's default, not the host's to read (-ENOENT below). */
#pragma once

#include <errno.h>
#include <stdint.h>

#include "basic/host.h"
#include "basic/macro.h"
#include "basic/qos-values.h"

typedef enum RoceEcnPoint {
        ROCE_ECN_NP, /* "roce_np" */
        ROCE_ECN_RP, /* "roce_rp" */
        _ROCE_ECN_POINT_MAX,
        _ROCE_ECN_POINT_INVALID = -EINVAL,
} RoceEcnPoint;

/* "roce_np", "roce_rp": the sysfs directory names. */
const char *roce_ecn_point_to_string(RoceEcnPoint p) _pure_;
/* "notification point", "reaction point": what the user reads. */
const char *roce_ecn_point_display_name(RoceEcnPoint p) _pure_;

typedef struct RoceEcn {
        uint8_t on[_ROCE_ECN_POINT_MAX]; /* bit p: ECN on for priority p */
} RoceEcn;

/* Reads every priority of both points of ifname below the host root. Returns 0; -ENOENT when the
 * netdev has no ecn directory (not MLNX_OFED's ConnectX driver); -EBADMSG when a value is neither 0
 * nor 1; or the errno that kept one value from being read (-EACCES: not root), in which case nothing
 * is known. */
int roce_ecn_read(const Host *h, const char *ifname, RoceEcn *ret);
/* Writes one priority of one point ("1" or "0"). Returns 0 or the errno of the write. */
int roce_ecn_write(const Host *h, const char *ifname, RoceEcnPoint point, unsigned priority, bool on);
