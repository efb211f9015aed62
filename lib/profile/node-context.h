/* SPDX-License-Identifier: MIT */
/* What every reader of the host works on: the host (a root directory), the profile and the node of
 * it that this host is. The checks, the plan, the fabric port lookup and the exports all take it. */
#pragma once

#include "basic/host.h"
#include "profile/profile.h"

typedef struct NodeContext {
        const Host *host;
        const Profile *profile;
        const ProfileNode *node; /* NULL when no node could be selected */
} NodeContext;

/* The NIC this node must have (profile_node_nic()). */
static inline const ProfileNic *node_context_nic(const NodeContext *c) {
        return profile_node_nic(c->profile, c->node);
}

/* The GID type this node's RDMA probes send from: the profile's rdma.gid, RoCE v2 when it has no rdma
 * section. */
static inline RdmaGidType node_context_rdma_gid_type(const NodeContext *c) {
        return c->profile && c->profile->rdma.present ? c->profile->rdma.gid : RDMA_GID_ROCE_V2;
}
