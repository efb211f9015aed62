/* SPDX-License-Identifier: MIT */
/* A test double of the few libibverbs calls lib/rdma.c makes, linked in its place by the RDMA tests. */
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
