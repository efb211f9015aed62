/* SPDX-License-Identifier: MIT */
/* The RDMA device bound to a netdev, its port and its GID table, through libibverbs. */
#pragma once

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/host.h"
#include "basic/macro.h"
#include "profile/profile.h"

/* libibverbs' values (enum ibv_port_state and the IB physical port states), so that callers need
 * not include <infiniband/verbs.h>; rdma.c asserts that they agree. */
#define RDMA_PORT_DOWN 1
#define RDMA_PORT_ACTIVE 4
#define RDMA_PHYS_STATE_DISABLED 3
#define RDMA_PHYS_STATE_LINK_UP 5
/* The kernel's node types (enum rdma_node_type, and so libibverbs' enum ibv_node_type): a RoCE or
 * InfiniBand device is a CA, an iWARP one an RNIC. */
#define RDMA_NODE_CA 1
#define RDMA_NODE_RNIC 4
/* The link layers (libibverbs' IBV_LINK_LAYER_*; sysfs says "InfiniBand" and "Ethernet"). */
#define RDMA_LINK_LAYER_UNSPECIFIED 0
#define RDMA_LINK_LAYER_INFINIBAND 1
#define RDMA_LINK_LAYER_ETHERNET 2

/* How many ports of one device are looked at, and how many GID entries in all. */
#define RDMA_PORTS_MAX 8U
#define RDMA_GIDS_MAX 1024U

typedef struct RdmaGid {
        uint32_t index;
        uint32_t port;
        RdmaGidType type; /* _RDMA_GID_TYPE_INVALID for a type this code does not know */
        struct in6_addr gid;
        uint32_t ifindex; /* the netdev the entry belongs to; 0 when none */
} RdmaGid;

typedef struct RdmaDevice {
        char *name;    /* "irdma0", "mlx5_0" */
        uint32_t port; /* the port bound to the netdev, 1-based */
        int node_type; /* RDMA_NODE_*; 0 when not known */
        int state;     /* RDMA_PORT_* */
        unsigned phys_state;
        unsigned link_layer; /* RDMA_LINK_LAYER_* */
        unsigned active_mtu; /* bytes (basic/rdma-mtu.h); 0 when unknown */
        unsigned max_mtu;
        RdmaGid *gids; /* the port's GID table when the device was found */
        size_t n_gids;
        char *parent;  /* the device sysfs puts it below ("0000:c2:00.0", "ice.iwarp.0"); NULL: none (rxe) */
        void *context; /* struct ibv_context *, kept open for later queries; NULL: read from sysfs
                        * (rdma/rdma-sysfs-read.h), whose active_mtu is derived from the netdev MTU */
} RdmaDevice;

/* Loads libibverbs.so.1 (on first use, and never unloads it; rdma_device_find() does it itself):
 * 0 when loaded; -ELIBACC or -ELIBBAD with a message for the user in *ret_error (may be NULL) when
 * it cannot be; -EOPNOTSUPP when halod was built without libibverbs. */
int rdma_library_load(char **ret_error);

/* Finds the device whose port has GID entries on the netdev ifindex, else the device whose sysfs
 * parent is the PCI device pci (then port 1). Either may be 0/NULL. Returns -ENODEV when no device
 * matches, -ENOSYS when the kernel has no RDMA support at all (then libibverbs is not even loaded),
 * -EOPNOTSUPP when halod was built without libibverbs, -ELIBACC or -ELIBBAD when libibverbs cannot
 * be loaded (rdma_library_load() says why), or another negative errno from libibverbs. */
int rdma_device_find(const Host *h, const char *pci, int ifindex, RdmaDevice **ret);
RdmaDevice *rdma_device_free(RdmaDevice *d);
DEFINE_TRIVIAL_CLEANUP_FUNC(RdmaDevice *, rdma_device_free);

/* Looks up, in the live GID table of the device's port (in the table as read for a device read from
 * sysfs, which has no live context), the entry of the given type whose address
 * is the IPv4-mapped form of address (::ffff:a.b.c.d), and reads that index back to confirm it:
 * the table changes when addresses come and go, and an index read from a stale table is exactly
 * the silent failure NCCL_IB_GID_INDEX suffers from. Retries a few times when the entry moved.
 * Returns 0 with the entry, -ENOENT when there is none, -EAGAIN when the table kept changing. */
int rdma_device_find_gid(RdmaDevice *d, RdmaGidType type, struct in_addr address, RdmaGid *ret);

/* "ACTIVE", "DOWN", ...; "UNKNOWN(9)" style for unknown values, in buf (RDMA_STATE_STRING_MAX). */
#define RDMA_STATE_STRING_MAX 32U
const char *rdma_port_state_to_string(int state, char *buf);
const char *rdma_phys_state_to_string(unsigned phys_state, char *buf);
/* The IPv4-mapped IPv6 address ::ffff:a.b.c.d. */
struct in6_addr rdma_ipv4_mapped(struct in_addr a) _pure_;
