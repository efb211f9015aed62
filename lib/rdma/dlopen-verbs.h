/* SPDX-License-Identifier: MIT */
/* libibverbs, loaded on the first RDMA use (lib/basic/dlopen-util.h): the sym_ pointers lib/rdma/rdma.c and
 * lib/rdma-qp*.c call, and <infiniband/verbs.h>'s inlines redone over them. Only the build needs the
 * library's headers; halod and haloctl do not link it. */
#pragma once

#include <infiniband/verbs.h>
#include <string.h>

#include "basic/dlopen-util.h"

#define DLOPEN_VERBS_SONAME "libibverbs.so.1"

/* The unit tests link tests/unit/fake-verbs*.c in place of libibverbs and compile the RDMA sources
 * with DLOPEN_VERBS_LINKED=1: the pointers then take the test double's functions, nothing is
 * loaded, and rdma_device_find() leaves the question whether the kernel has RDMA to the double. */
#ifndef DLOPEN_VERBS_LINKED
#        define DLOPEN_VERBS_LINKED 0
#endif

extern DlopenLibrary dlopen_verbs_library;

/* dlopen_library() of libibverbs.so.1: 0 when the sym_ pointers are set. */
int dlopen_verbs(char **ret_error);

DLSYM_PROTOTYPE(ibv_get_device_list);
DLSYM_PROTOTYPE(ibv_free_device_list);
DLSYM_PROTOTYPE(ibv_get_device_name);
DLSYM_PROTOTYPE(ibv_open_device);
DLSYM_PROTOTYPE(ibv_close_device);
DLSYM_PROTOTYPE(ibv_query_port);
DLSYM_PROTOTYPE(_ibv_query_gid_ex);
DLSYM_PROTOTYPE(_ibv_query_gid_table);
DLSYM_PROTOTYPE(ibv_alloc_pd);
DLSYM_PROTOTYPE(ibv_dealloc_pd);
DLSYM_PROTOTYPE(ibv_reg_mr);
DLSYM_PROTOTYPE(ibv_dereg_mr);
DLSYM_PROTOTYPE(ibv_create_cq);
DLSYM_PROTOTYPE(ibv_destroy_cq);
DLSYM_PROTOTYPE(ibv_create_qp);
DLSYM_PROTOTYPE(ibv_destroy_qp);
DLSYM_PROTOTYPE(ibv_modify_qp);
DLSYM_PROTOTYPE(ibv_wc_status_str);

/* The header's inlines of the same names call the exported functions directly, which would bring
 * libibverbs back into DT_NEEDED: these are the same inlines over the pointers (libibverbs 44).
 * ibv_post_send(), ibv_post_recv() and ibv_poll_cq() go through the context's ops and need none. */

/* ibv_query_port(): the extended context's op when the provider has one, else the exported
 * function with the compat struct. */
static inline int
        verbs_query_port(struct ibv_context *context, uint8_t port_num, struct ibv_port_attr *port_attr) {
        struct verbs_context *vctx = verbs_get_ctx_op(context, query_port);

        if (!vctx) {
                memset(port_attr, 0, sizeof(*port_attr));
                return sym_ibv_query_port(context, port_num, (struct _compat_ibv_port_attr *) port_attr);
        }
        return vctx->query_port(context, port_num, port_attr, sizeof(*port_attr));
}

static inline int verbs_query_gid_ex(
        struct ibv_context *context,
        uint32_t port_num,
        uint32_t gid_index,
        struct ibv_gid_entry *entry,
        uint32_t flags) {
        return sym__ibv_query_gid_ex(context, port_num, gid_index, entry, flags, sizeof(*entry));
}

static inline ssize_t verbs_query_gid_table(
        struct ibv_context *context, struct ibv_gid_entry *entries, size_t max_entries, uint32_t flags) {
        return sym__ibv_query_gid_table(context, entries, max_entries, flags, sizeof(*entries));
}

/* ibv_reg_mr(): for constant access flags the header's inline calls the exported ibv_reg_mr(),
 * which takes the optional-range flags too (it passes them to ibv_reg_mr_iova2()). */
static inline struct ibv_mr *verbs_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access) {
        return sym_ibv_reg_mr(pd, addr, length, access);
}
