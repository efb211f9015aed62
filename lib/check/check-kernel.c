/* SPDX-License-Identifier: MIT */
/* kernel.cmdline: the required parameters on the running kernel; and the kernel. checks together. */
#include <stdio.h>

#include "basic/strv.h"
#include "boot/cmdline.h"
#include "check/check-kernel.h"
#include "check/verify-summary.h"

char **kernel_required_params(const NodeContext *c) {
        return c->profile ? c->profile->kernel_cmdline : NULL;
}

/* Whether the next boot's command line (kernel.cmdline-next's fact) carries every requirement: then what the
 * running kernel lacks needs only a reboot. */
static bool next_boot_has_all(const Snapshot *s, char **required) {
        _cleanup_(kernel_cmdline_freep) KernelCmdline *next = NULL;
        _cleanup_(strv_freep) char **missing = NULL;

        if (!(s->parts & SNAPSHOT_BOOT) || s->host.boot_error < 0 || !s->host.boot || s->host.boot->unread)
                return false;
        if (kernel_cmdline_parse(s->host.boot->cmdline, &next) < 0)
                return false;
        return kernel_cmdline_missing(next, required, &missing) == 0;
}

int check_kernel_cmdline(const NodeContext *c, const Snapshot *s, CheckList *out) {
        _cleanup_(strv_freep) char **missing = NULL, **unmet = NULL;
        _cleanup_(freep) char *expected = NULL, *list = NULL, *params = NULL;
        char **required = kernel_required_params(c);
        const char *raw;
        bool reboot;
        int r;

        if (strv_length(required) == 0)
                return check_list_skip(out, "kernel.cmdline", "the profile requires no kernel parameters");

        expected = strv_join(required, " ");
        if (!expected)
                return -ENOMEM;

        if (!snapshot_has(s, SNAPSHOT_CMDLINE))
                return 0; /* not selected: its caller did not read it */
        if (s->host.cmdline_error < 0)
                return check_list_add(
                        out,
                        "kernel.cmdline",
                        CHECK_FAIL,
                        expected,
                        NULL,
                        "cannot read " PROC_CMDLINE ": %s",
                        strerror(-s->host.cmdline_error));
        raw = s->host.cmdline;

        r = kernel_cmdline_missing(s->host.cmdline_parsed, required, &missing);
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
        reboot = next_boot_has_all(s, required);
        r = check_list_add(
                out,
                "kernel.cmdline",
                CHECK_FAIL,
                expected,
                raw,
                "the running kernel lacks %d of %zu required parameters: %s%s",
                r,
                strv_length(required),
                list,
                reboot ? "; " KERNEL_CMDLINE_REBOOT_REQUIRED : "");
        if (r < 0 || !reboot)
                return r;
        /* As the profile writes them: what the next boot carries is the profile's, not what runs now. */
        r = kernel_unmet_requirements(s->host.cmdline_parsed, required, &unmet);
        if (r < 0)
                return r;
        params = strv_join(unmet, " ");
        if (!params)
                return -ENOMEM;
        return check_list_set_pending_reboot(out, "kernel command line: %s", params);
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

int check_kernel_devices(
        const NodeContext *c, const Snapshot *s, const CheckHistory *before, CheckHistory *after, CheckList *out) {
        int r;

        r = check_kernel_iommu(c, s, out);
        if (r < 0)
                return r;
        return check_kernel_aspm(c, s, out);
}

int check_kernel(
        const NodeContext *c, const Snapshot *s, const CheckHistory *before, CheckHistory *after, CheckList *out) {
        int r;

        r = check_kernel_cmdline(c, s, out);
        if (r < 0)
                return r;
        return check_kernel_cmdline_next(c, s, out);
}
