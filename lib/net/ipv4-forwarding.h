/* SPDX-License-Identifier: MIT */
/* The per-interface IPv4 forwarding switch, /proc/sys/net/ipv4/conf/IF/forwarding: what a chain's
 * middle node needs so that its peers reach each other through it. */
#pragma once

#include <stdbool.h>

#include "basic/host.h"

/* Reads the switch below the host root. -ENOENT: no such interface (or no IPv4 on it); -EBADMSG:
 * neither 0 nor 1. */
int ipv4_forwarding_read(const Host *h, const char *ifname, bool *ret);
/* Sets it on the running system over rtnetlink (CAP_NET_ADMIN; no writable /proc/sys needed) and reads
 * it back: -EIO when the kernel kept another value, -ENODEV when there is no such interface. */
int ipv4_forwarding_write(const char *ifname, bool on);
