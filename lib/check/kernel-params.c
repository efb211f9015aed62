/* SPDX-License-Identifier: MIT */
/* The kernel parameters the kernel. checks compare: the running kernel's command line and what the
 * profile's kernel.cmdline requires. Below the checks that use them (check-kernel*.c), which it does not
 * call. */
#include "check/kernel-params.h"
#include "basic/strv.h"

/* Reads and splits the running kernel's command line; on failure *ret_error says why, for a summary. */
int kernel_load_running_cmdline(const Host *h, KernelCmdline **ret, char **ret_raw, int *ret_error) {
        _cleanup_(kernel_cmdline_freep) KernelCmdline *c = NULL;
        _cleanup_(freep) char *raw = NULL;
        int r;

        r = host_read_line(h, PROC_CMDLINE, &raw);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                *ret_error = r;
                return 0;
        }
        r = kernel_cmdline_parse(raw, &c);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                *ret_error = r;
                return 0;
        }
        *ret = TAKE_PTR(c);
        if (ret_raw)
                *ret_raw = TAKE_PTR(raw);
        *ret_error = 0;
        return 1;
}

char **kernel_required_params(const NodeContext *c) {
        return c->profile ? c->profile->kernel_cmdline : NULL;
}

bool kernel_profile_requires(const NodeContext *c, const char *name, const char *value) {
        STRV_FOREACH(req, kernel_required_params(c)) {
                _cleanup_(freep) char *n = NULL, *v = NULL;

                if (kernel_param_parse_one(*req, &n, &v) < 0)
                        continue;
                if (kernel_param_name_equal(n, name) && (!value || streq_ptr(v, value)))
                        return true;
        }
        return false;
}
