/* SPDX-License-Identifier: MIT */
/* The table of check groups, run in a fixed order so that reports read the same every time. */
#include "check/checks.h"
#include "check/check-gpu.h"
#include "check/check-hosts.h"
#include "check/check-kernel.h"
#include "check/check-link.h"
#include "check/check-nic.h"
#include "check/check-node.h"
#include "check/check-profile.h"
#include "check/check-qos-dcb.h"
#include "check/check-qos-host.h"
#include "check/check-rdma.h"

static const struct {
        const char *prefix;
        CheckSnapshotGroupFunc run;
} check_groups[] = {
        /* One group a line. */
        /* clang-format off */
        /* -- check groups -- */
        { "profile", check_profile },
        { "kernel.", check_kernel },
        { "kernel.", check_kernel_devices },
        { "gpu.", check_gpu },
        { "node.", check_node },
        { "nic.", check_nic },
        { "rdma.", check_rdma },
        { "link.", check_links },
        { "qos.", check_qos_dcb },
        { "qos.", check_qos_host },
        { "hosts.", check_hosts },
        /* -- end check groups -- */
        /* clang-format on */
};

bool checks_group_selected(const char *prefix, const char *only) {
        const char *p = only;

        if (isempty(only))
                return true;
        /* Either a selector names a check inside the group ("nic.firmware") or the group inside a
         * selector ("n" or "nic"). */
        while (*p) {
                size_t n = strcspn(p, ","), m = n;
                size_t k = strlen(prefix);
                const char *selector = check_selector_resolve(p, &m);

                if (m > 0 && strncmp(selector, prefix, m < k ? m : k) == 0)
                        return true;
                p += n;
                if (*p == ',')
                        p++;
        }
        return false;
}

int checks_run(const NodeContext *c, Snapshot *snapshot, const char *only, CheckList *out) {
        _cleanup_(snapshot_done) Snapshot own = {};

        snapshot = snapshot_or_own(snapshot, &own, c);
        for (size_t i = 0; i < ELEMENTSOF(check_groups); i++) {
                _cleanup_(check_list_done) CheckList group = {};
                int r;

                if (!checks_group_selected(check_groups[i].prefix, only))
                        continue;

                snapshot->selection = only;
                r = check_groups[i].run(c, snapshot, &group);
                snapshot->selection = NULL; /* the caller's snapshot outlives this run */
                if (r < 0)
                        return r;
                r = check_list_take_selected(out, &group, only);
                if (r < 0)
                        return r;
        }
        return 0;
}
