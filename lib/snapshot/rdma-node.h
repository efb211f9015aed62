/* SPDX-License-Identifier: MIT */
/* Which RDMA devices this node probes from and answers on: those of its fabric links, by profile. */
#pragma once

#include <netinet/in.h>

#include "profile/node-context.h"
#include "rdma/rdma-responder.h"
#include "rdma/rdma.h"

/* This node's RDMA device on the link of the profile named link, and the node's address there.
 * -ENODEV when the link's NIC has none, -ENOSYS without RDMA in the kernel, -EOPNOTSUPP without
 * libibverbs, -EADDRNOTAVAIL when the node has no address on the link (or no such link). */
int rdma_link_device(const NodeContext *c, const char *link, RdmaDevice **ret_device, struct in_addr *ret_address);

/* The GID type the probe sends from: the profile's rdma.gid, RoCE v2 when it has no rdma section. */
RdmaGidType rdma_node_gid_type(const NodeContext *c) _pure_;

/* A responder for every fabric link of c->node that has an address and an RDMA device, answering
 * from the GID of the profile's rdma.gid type (RoCE v2 by default). It looks the device up again for
 * each session and holds none open between them (rdma_responder_add_lookup()): c->host must outlive
 * it. The same errors as
 * rdma_link_device() when no link has a device (the first one met, -ENODEV when none). */
int rdma_responder_new_for_node(const NodeContext *c, RdmaResponder **ret);
