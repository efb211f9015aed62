/* SPDX-License-Identifier: MIT */
/* One-value attributes below the host root (sysfs, configfs): read as a number, written as a string.
 * The QoS readers and writers (ECN, the RoCE ToS, the RDMA counters) share them. */
#pragma once

#include <stdint.h>

#include "basic/host.h"

/* Reads a decimal attribute ("3\n", as sysfs and configfs show a number). Returns 0, -EBADMSG when it
 * is not a number, or the errno of reading it (-ENOENT: no such attribute). */
int host_attr_read_u64(const Host *h, const char *path, uint64_t *ret);
/* Writes value to the attribute, as `echo value > path` does (one write(2), which is what a sysfs or
 * configfs store sees). Returns 0, or the errno of opening or writing (a store that refuses the value
 * returns its own: -EINVAL, -EOPNOTSUPP, ...). */
int host_attr_write(const Host *h, const char *path, const char *value);
