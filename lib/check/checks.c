/* SPDX-License-Identifier: MIT */
/* The check groups, run in a fixed order so that reports read the same every time: the order of the
 * registry (check-registry.c), each group's function once. */
#include "check/checks.h"
#include "check/check-registry.h"

/* True for the first entry of a group's function: the one at which it runs. */
static bool runs_here(size_t i) {
        if (!check_registry[i].run)
                return false;
        for (size_t j = 0; j < i; j++)
                if (check_registry[j].run == check_registry[i].run)
                        return false;
        return true;
}

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

int checks_run(
        const NodeContext *c,
        const Snapshot *snapshot,
        const CheckHistory *before,
        CheckHistory *after,
        const char *only,
        CheckList *out) {
        for (size_t i = 0; i < check_registry_size; i++) {
                _cleanup_(check_list_done) CheckList group = {};
                int r;

                if (!runs_here(i) || !checks_group_selected(check_registry[i].group, only))
                        continue;

                r = check_registry[i].run(c, snapshot, before, after, &group);
                if (r < 0)
                        return r;
                r = check_list_take_selected(out, &group, only);
                if (r < 0)
                        return r;
        }
        return 0;
}
