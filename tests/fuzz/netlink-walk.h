/* SPDX-License-Identifier: MIT */
/* The netlink fuzz targets' input: a run of netlink messages, walked as the kernel frames them. */
#pragma once

#include <libmnl/libmnl.h>
#include <stddef.h>
#include <stdint.h>

/* Hands each whole message of data to parse_one, from an aligned copy (as a socket buffer is); stops at
 * the first message whose length does not fit. */
void fuzz_netlink_walk(const uint8_t *data, size_t size, void (*parse_one)(const struct nlmsghdr *nlh));
