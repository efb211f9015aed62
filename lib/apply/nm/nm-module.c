/* SPDX-License-Identifier: MIT */
/* The entry point of halod-backend-nm.so: checks the program's ABI and hands back the module's table. */

#include "config.h"

#include "apply/nm-module.h"
#include "apply/nm/nm-internal.h"

static const NmModuleHost *host;

static const NmModule module = {
        .abi_version = NM_MODULE_ABI_VERSION,
        .size = sizeof(NmModule),
        .version = PACKAGE_VERSION,
        .apply_link = nm_module_apply_link,
        .unadopt_link = nm_module_unadopt_link,
};

const NmModuleHost *nm_module_host(void) {
        return host;
}

__attribute__((visibility("default"))) const NmModule *halod_nm_module_init(const NmModuleHost *h) {
        if (!h || h->abi_version != NM_MODULE_ABI_VERSION || h->size != sizeof(NmModuleHost) ||
            h->link_plan_size != sizeof(LinkPlan))
                return NULL;
        host = h;
        return &module;
}
