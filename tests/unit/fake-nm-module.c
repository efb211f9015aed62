/* SPDX-License-Identifier: MIT */
/* Modules that are not this halod's NetworkManager module, for test-backend-nm: one without the entry
 * point (FAKE_NO_ENTRY), one from a build with another ABI (FAKE_OTHER_ABI). */

#include "apply/nm-module.h"

#if defined(FAKE_NO_ENTRY)
int fake_nm_module_something_else(void);
int fake_nm_module_something_else(void) {
        return 0;
}
#elif defined(FAKE_OTHER_ABI)
static const NmModule other = {
        .abi_version = NM_MODULE_ABI_VERSION + 1,
        .size = sizeof(NmModule),
        .version = "0.0.0",
};

const NmModule *halod_nm_module_init(const NmModuleHost *host) {
        return &other;
}
#else
#        error "FAKE_NO_ENTRY or FAKE_OTHER_ABI"
#endif
