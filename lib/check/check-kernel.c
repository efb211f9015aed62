/* SPDX-License-Identifier: MIT */
/* kernel.cmdline: the required parameters on the running kernel; and the kernel. checks together. */
#include <stdio.h>

#include "basic/strv.h"
#include "boot/cmdline.h"
#include "check/check-kernel.h"

int check_kernel_cmdline(const NodeContext *c, CheckList *out) {
        _cleanup_(kernel_cmdline_freep) KernelCmdline *running = NULL;
        _cleanup_(strv_freep) char **missing = NULL;
        _cleanup_(freep) char *raw = NULL, *expected = NULL, *list = NULL;
        char **required = kernel_required_params(c);
        int r, error;

        if (strv_length(required) == 0)
                return check_list_skip(out, "kernel.cmdline", "the profile requires no kernel parameters");

        expected = strv_join(required, " ");
        if (!expected)
                return -ENOMEM;

        r = kernel_load_running_cmdline(c->host, &running, &raw, &error);
        if (r < 0)
                return r;
        if (r == 0)
                return check_list_add(
                        out,
                        "kernel.cmdline",
                        CHECK_FAIL,
                        expected,
                        NULL,
                        "cannot read " PROC_CMDLINE ": %s",
                        strerror(-error));

        r = kernel_cmdline_missing(running, required, &missing);
        if (r == -EINVAL)
                return check_list_add(
                        out,
                        "kernel.cmdline",
                        CHECK_FAIL,
                        expected,
                        raw,
                        "the profile's kernel.cmdline holds an entry that is not a single parameter: fix the profile");
        if (r < 0)
                return r;
        if (r == 0)
                return check_list_add(
                        out,
                        "kernel.cmdline",
                        CHECK_PASS,
                        expected,
                        raw,
                        "the running kernel has all %zu required parameters",
                        strv_length(required));

        list = strv_join(missing, ", ");
        if (!list)
                return -ENOMEM;
        return check_list_add(
                out,
                "kernel.cmdline",
                CHECK_FAIL,
                expected,
                raw,
                "the running kernel lacks %d of %zu required parameters: %s",
                r,
                strv_length(required),
                list);
}

int check_kernel_devices(const NodeContext *c, Snapshot *s, CheckList *out) {
        _cleanup_(snapshot_done) Snapshot own = {};
        int r;

        s = snapshot_or_own(s, &own, c);
        r = check_kernel_iommu(c, s, out);
        if (r < 0)
                return r;
        return check_kernel_aspm(c, s, out);
}

int check_kernel(const NodeContext *c, CheckList *out) {
        int r;

        r = check_kernel_cmdline(c, out);
        if (r < 0)
                return r;
        return check_kernel_cmdline_next(c, out);
}
