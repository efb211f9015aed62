/* SPDX-License-Identifier: MIT */
/* libibverbs' functions that halod calls, resolved on the first RDMA use (lib/rdma/dlopen-verbs.h). */
#include "rdma/dlopen-verbs.h"
#include "basic/macro.h"

DLSYM_DEFINE(ibv_get_device_list);
DLSYM_DEFINE(ibv_free_device_list);
DLSYM_DEFINE(ibv_get_device_name);
DLSYM_DEFINE(ibv_open_device);
DLSYM_DEFINE(ibv_close_device);
DLSYM_DEFINE(ibv_query_port);
DLSYM_DEFINE(_ibv_query_gid_ex);
DLSYM_DEFINE(_ibv_query_gid_table);
DLSYM_DEFINE(ibv_alloc_pd);
DLSYM_DEFINE(ibv_dealloc_pd);
DLSYM_DEFINE(ibv_reg_mr);
DLSYM_DEFINE(ibv_dereg_mr);
DLSYM_DEFINE(ibv_create_cq);
DLSYM_DEFINE(ibv_destroy_cq);
DLSYM_DEFINE(ibv_create_qp);
DLSYM_DEFINE(ibv_destroy_qp);
DLSYM_DEFINE(ibv_modify_qp);
DLSYM_DEFINE(ibv_wc_status_str);

#if DLOPEN_VERBS_LINKED
#        define VERBS_SYM(func) DLSYM_ARG_LINKED(func)
#else
#        define VERBS_SYM(func) DLSYM_ARG(func)
#endif

/* clang-format off */
static const DlopenSymbol verbs_symbols[] = {
        VERBS_SYM(ibv_get_device_list),
        VERBS_SYM(ibv_free_device_list),
        VERBS_SYM(ibv_get_device_name),
        VERBS_SYM(ibv_open_device),
        VERBS_SYM(ibv_close_device),
        VERBS_SYM(ibv_query_port),
        VERBS_SYM(_ibv_query_gid_ex),
        VERBS_SYM(_ibv_query_gid_table),
        VERBS_SYM(ibv_alloc_pd),
        VERBS_SYM(ibv_dealloc_pd),
        VERBS_SYM(ibv_reg_mr),
        VERBS_SYM(ibv_dereg_mr),
        VERBS_SYM(ibv_create_cq),
        VERBS_SYM(ibv_destroy_cq),
        VERBS_SYM(ibv_create_qp),
        VERBS_SYM(ibv_destroy_qp),
        VERBS_SYM(ibv_modify_qp),
        VERBS_SYM(ibv_wc_status_str),
};
/* clang-format on */

DlopenLibrary dlopen_verbs_library = {
        .soname = DLOPEN_VERBS_SONAME,
        .install = "libibverbs (rdma-core; Debian: libibverbs1, Fedora: libibverbs)",
        .symbols = verbs_symbols,
        .n_symbols = ELEMENTSOF(verbs_symbols),
        .linked = DLOPEN_VERBS_LINKED,
        DLOPEN_LIBRARY_INIT,
};

int dlopen_verbs(char **ret_error) {
        return dlopen_library(&dlopen_verbs_library, ret_error);
}
