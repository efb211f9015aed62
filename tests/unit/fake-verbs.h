/* SPDX-License-Identifier: MIT */
/* A test double of the libibverbs calls lib/rdma/rdma.c and lib/rdma-qp*.c make, linked in its place by
 * the RDMA tests: device and GID queries (fake-verbs.c), queue pairs (fake-verbs-qp.c). */
#pragma once

#include <infiniband/verbs.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct FakeVerbsDevice {
        const char *name;
        enum ibv_port_state state;
        uint8_t phys_state; /* 5: LINK_UP, 3: DISABLED */
        enum ibv_mtu active_mtu;
        enum ibv_mtu max_mtu;
        const struct ibv_gid_entry *gids; /* the GID table of port 1 (entries carry their index) */
        size_t n_gids;
        /* The table after addresses moved: the first move_after table queries still see gids,
         * every later query (table or single entry) sees gids_after. flip: the table changes
         * after every table query, so a reader never sees the same table twice. */
        const struct ibv_gid_entry *gids_after;
        size_t n_gids_after;
        unsigned move_after;
        bool flip;
        bool open_fails;        /* ibv_open_device() fails with EACCES */
        bool table_unsupported; /* ibv_query_gid_table() says EOPNOTSUPP: per-index reads */
} FakeVerbsDevice;

/* Installs the devices the next ibv_get_device_list() returns; list_errno != 0 makes it return
 * NULL with that errno (as on a kernel without RDMA: ENOSYS). Resets the counters. */
void fake_verbs_setup(FakeVerbsDevice *devices, size_t n, int list_errno);
/* Contexts opened and not closed yet: 0 after every well-behaved caller. */
int fake_verbs_open_contexts(void);
/* Whether ibv_get_device_list() of this double ran: proves the double, not libibverbs, answered. */
bool fake_verbs_called(void);

/* A GID entry for ::ffff:a.b.c.d or fe80::/64 + interface id, for building tables. */
struct ibv_gid_entry fake_gid_ipv4(uint32_t index, const char *ipv4, enum ibv_gid_type type, uint32_t ifindex);
struct ibv_gid_entry
        fake_gid_link_local(uint32_t index, uint64_t interface_id, enum ibv_gid_type type, uint32_t ifindex);
/* The table irdma shows on a configured E810 port: irdma declares RoCE v2 only (its port's
 * core_cap_flags are RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP, verbs.c), so the kernel lists one entry per
 * address: 0 the link-local GID (fe80:: + interface_id), 1 the IPv4 GID, both RoCE v2. rxe builds
 * the same table. */
#define FAKE_IRDMA_GIDS 2U
void fake_gids_irdma(
        struct ibv_gid_entry gids[FAKE_IRDMA_GIDS], uint64_t interface_id, const char *ipv4, uint32_t ifindex);
/* A device whose port 1 is ACTIVE and LINK_UP, active and maximum MTU 4096, with the GID table gids. */
FakeVerbsDevice fake_device_active(const char *name, const struct ibv_gid_entry *gids, size_t n_gids);

/* The table mlx5 shows on a configured ConnectX port whose firmware reports RoCE v1 and v2 (mlx5
 * declares each type the HCA's roce_version_cap has): the link-local GID, then each IPv4 address of
 * the netdev, each as a RoCE v1 and a RoCE v2 entry in that order (0 v1 fe80::, 1 v2 fe80::, 2 v1
 * ::ffff:a.b.c.d, 3 v2 ::ffff:a.b.c.d, 4 v1 of the second address, ...). gids needs room for
 * 2 + 2 * n_ipv4 entries; returns how many it wrote. */
size_t fake_gids_mlx5(
        struct ibv_gid_entry *gids,
        uint64_t interface_id,
        const char *const *ipv4,
        size_t n_ipv4,
        uint32_t ifindex);

/* A dual-port ConnectX-5 as mlx5 presents it: one RDMA device per PCI function (mlx5_0 on function
 * .0, mlx5_1 on .1; sysfs links each to its function), each with one port, ACTIVE and LINK_UP,
 * active and maximum MTU 4096, and the GID table of its netdev with one IPv4 address. */
#define FAKE_MLX5_GIDS_MAX 8U
typedef struct FakeConnectX5 {
        struct ibv_gid_entry gids[2][FAKE_MLX5_GIDS_MAX];
        FakeVerbsDevice devices[2];
} FakeConnectX5;

/* Fills x for port 0 (netdev ifindex0, address ipv4_0) and port 1; a NULL address leaves that
 * port's table empty (no address yet). The devices point into x: do not copy it. */
void fake_connectx5_dual(
        FakeConnectX5 *x, const char *ipv4_0, uint32_t ifindex0, const char *ipv4_1, uint32_t ifindex1);

/* ---- queue pairs (fake-verbs-qp.c) ----
 * Protection domains, memory regions, completion queues and RC queue pairs, with the state machine
 * of the InfiniBand specification: RESET → INIT → RTR → RTS, each only with its required attribute
 * mask and no attribute it does not allow, and with values the device can take (port 1, an existing
 * source GID index, a global route header, a path MTU up to the port's active MTU); anything else is
 * EINVAL and the state stays. Any state may go to RESET or ERR.
 * The open contexts are wired: a SEND or RDMA WRITE posted on a QP in RTS reaches the QP whose number
 * is its dest_qp_num on the device whose GID table holds its destination GID, when that QP is in RTR
 * or RTS, connected back, and expects the sender's PSN; the completions appear on both CQs. Else the
 * sender's work request completes with IBV_WC_RETRY_EXC_ERR (nobody answered) or
 * IBV_WC_REM_ACCESS_ERR (a bad rkey, range, or a QP without remote write), and its QP goes to ERR.
 * ibv_post_send(), ibv_post_recv() and ibv_poll_cq() are inlines calling the context's ops, which
 * ibv_open_device() fills. Thread-safe: a prober and a responder thread may share the double. */

typedef struct FakeVerbsTransition {
        uint32_t qpn;
        enum ibv_qp_state from;
        enum ibv_qp_state to;
} FakeVerbsTransition;

/* The transitions since fake_verbs_setup(), in order, at most max of them; returns how many. */
size_t fake_verbs_transitions(FakeVerbsTransition *ret, size_t max);
/* PDs, memory regions, CQs and QPs created and not destroyed yet: 0 after every well-behaved caller. */
int fake_verbs_open_objects(void);
/* A memory region as ibv_reg_mr() registered it: the range and access flags the adapter enforces
 * (the real driver writes both into the region's entry of the HCA's memory translation table). */
typedef struct FakeVerbsMr {
        const void *addr;
        size_t length;
        int access;
        uint32_t lkey, rkey;
} FakeVerbsMr;
/* The memory regions registered and not deregistered yet, oldest first, at most max; returns how
 * many there are. */
size_t fake_verbs_memory_regions(FakeVerbsMr *ret, size_t max);
/* Bytes RDMA WRITEs put into a peer's memory region, and SENDs delivered to a peer's receive. */
uint64_t fake_verbs_bytes_written(void);
uint64_t fake_verbs_sends_delivered(void);
