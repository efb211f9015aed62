/* SPDX-License-Identifier: MIT */
/* An RDMA device, its port and its GID table as ib_core's sysfs shows them below the host root
 * (drivers/infiniband/core/sysfs.c), for a host tree (--root, an sosreport, a fixture) where
 * libibverbs would answer for the running kernel instead. sysfs has no active MTU: the device read here
 * has none (active_mtu 0, context NULL), and rdma.mtu derives it from the netdev MTU by the driver's
 * rule (basic/rdma-mtu.h). */
#pragma once

#include "rdma/rdma.h"

/* The device whose port has a GID entry on the netdev ifname (or, for rxe, whose "parent" is ifname),
 * else the device that sits below the PCI function pci (port 1). Either may be NULL. Returns 0,
 * -ENODEV when no device matches, -ENOSYS when the tree has no /sys/class/infiniband at all, -EBADMSG
 * when an attribute of the matched port is not what ib_core writes, or the errno of reading it. */
int rdma_device_read_sysfs(const Host *h, const char *pci, const char *ifname, RdmaDevice **ret);

/* The entry of the given type whose address is the IPv4-mapped form of address in d's GID table as it
 * was read. 0 with the entry, -ENOENT when there is none. */
int rdma_gid_table_find(const RdmaDevice *d, RdmaGidType type, struct in_addr address, RdmaGid *ret);

/* The parsers of ib_core's attributes, for the fuzzer. Each returns 0 or -EBADMSG. */
/* "4: ACTIVE", "5: LinkUp", "1: CA", "4: RNIC" (state_show(), phys_state_show(), node_type_show()): the
 * number before the colon. */
int rdma_sysfs_parse_numbered(const char *s, unsigned *ret);
/* A GID as show_port_gid() prints it, "%pI6": eight groups of four hex digits. */
int rdma_sysfs_parse_gid(const char *s, struct in6_addr *ret);
/* "RoCE v2", "IB/RoCE v1" (ib_cache_gid_type_str()); the second is RoCE v1 on an Ethernet link layer and
 * IB on an InfiniBand one. */
int rdma_sysfs_parse_gid_type(const char *s, unsigned link_layer, RdmaGidType *ret);
/* "InfiniBand", "Ethernet", "Unknown" (link_layer_show()): RDMA_LINK_LAYER_*. */
int rdma_sysfs_parse_link_layer(const char *s, unsigned *ret);
