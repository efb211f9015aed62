/* SPDX-License-Identifier: MIT */
/* Reading a kernel module's state: /sys/module, modprobe.d and the kernel command line. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "basic/strv.h"
#include "boot/module-state.h"

/* Whether the module is in the running kernel: /sys/module/<name> (modules with '-' in their name
 * appear there with '_', as the kernel names them). */
static int module_is_loaded(const Host *h, const char *module) {
        _cleanup_(freep) char *path = NULL, *full = NULL;
        struct stat st;

        if (asprintf(&path, "/sys/module/%s", module) < 0)
                return -ENOMEM;
        for (char *p = path + strlen("/sys/module/"); *p; p++)
                if (*p == '-')
                        *p = '_';
        if (host_path(h, path, &full) < 0)
                return -ENOMEM;
        if (stat(full, &st) < 0)
                return errno == ENOENT ? 0 : negative_errno();
        return S_ISDIR(st.st_mode);
}

int module_state_read(
        const Host *h, const KernelCmdline *cmdline, int cmdline_error, const char *module, ModuleState *ret) {
        int r;

        *ret = (ModuleState){ .module = strdup(module) };
        if (!ret->module)
                return -ENOMEM;
        ret->loaded = module_is_loaded(h, module);
        r = ret->loaded == -ENOMEM
                ? -ENOMEM
                : module_find_block_with_cmdline(
                          h, cmdline, cmdline_error, module, &ret->block, &ret->unreadable);
        if (r < 0) {
                module_state_done(ret);
                return r;
        }
        ret->blocked = r;
        return 0;
}

void module_state_done(ModuleState *m) {
        m->module = mfree(m->module);
        module_block_done(&m->block);
        m->unreadable = strv_free(m->unreadable);
}
