/* SPDX-License-Identifier: MIT */
/* The "profile" check, first in every report: which profile and which node the other checks judge. */
#include "check/check-profile.h"
#include "basic/strv.h"

int check_profile(
        const NodeContext *c, const Snapshot *s, const CheckHistory *before, CheckHistory *after, CheckList *out) {
        _cleanup_(strv_freep) char **names = NULL;
        _cleanup_(freep) char *joined = NULL;
        int r;

        if (!c->profile)
                return check_list_add(
                        out,
                        "profile",
                        CHECK_FAIL,
                        NULL,
                        NULL,
                        "no profile is loaded: run haloctl validate PROFILE");

        if (!c->node) {
                for (size_t i = 0; i < c->profile->n_nodes; i++) {
                        r = strv_extend(&names, c->profile->nodes[i].name);
                        if (r < 0)
                                return r;
                }
                joined = strv_join(names, ", ");
                if (!joined)
                        return -ENOMEM;
                return check_list_add(
                        out,
                        "profile",
                        CHECK_FAIL,
                        NULL,
                        c->profile->path,
                        "profile %s is valid but none of its nodes (%s) is this machine: pass --node NAME",
                        strna(c->profile->path),
                        isempty(joined) ? "none" : joined);
        }

        return check_list_add(
                out,
                "profile",
                CHECK_PASS,
                c->node->name,
                c->node->name,
                "profile %s valid, node %s",
                strna(c->profile->path),
                c->node->name);
}
