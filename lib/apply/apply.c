/* SPDX-License-Identifier: MIT */
/* apply_node() changes links through a backend and then proves the result from the kernel's own
 * state. */
#include <stdio.h>

#include "apply/adopt.h"
#include "apply/apply.h"
#include "basic/strv.h"

static int set_message(char **ret_error, const char *fmt, ...) _printf_(2, 3);
static int set_message(char **ret_error, const char *fmt, ...) {
        va_list ap;
        int r;

        if (!ret_error)
                return 0;
        va_start(ap, fmt);
        r = vasprintf(ret_error, fmt, ap);
        va_end(ap);
        if (r < 0) {
                *ret_error = NULL;
                return -ENOMEM;
        }
        return 0;
}

static int plan_errors_message(const Plan *p, char **ret_error) {
        _cleanup_(strv_freep) char **l = NULL;

        for (size_t i = 0; i < p->n_links; i++) {
                _cleanup_(freep) char *label = NULL;

                if (!p->links[i].error)
                        continue;
                label = link_plan_label(&p->links[i]);
                if (!label || strv_extendf(&l, "%s: %s", label, p->links[i].error) < 0)
                        return -ENOMEM;
        }
        if (ret_error) {
                *ret_error = strv_join(l, "\n");
                if (!*ret_error)
                        return -ENOMEM;
        }
        return 0;
}

/* After the backend: what does the kernel say now? Every difference left is a failure. */
static int verify(const NodeContext *c, char **ret_error) {
        _cleanup_(plan_done) Plan after = {};
        _cleanup_(strv_freep) char **left = NULL;
        _cleanup_(freep) char *joined = NULL;
        int r;

        r = plan_node(c, &after);
        if (r < 0)
                return set_message(
                               ret_error, "cannot read the link state back from the kernel: %s", strerror(-r)) <
                                0
                        ? -ENOMEM
                        : r;
        if (plan_is_empty(&after))
                return 0;

        r = plan_describe(&after, &left);
        if (r < 0)
                return r;
        joined = strv_join(left, "; ");
        if (!joined)
                return -ENOMEM;
        r = set_message(
                ret_error,
                "the backend reported success, but the kernel and firewalld still differ from the "
                "profile: %s",
                joined);
        return r < 0 ? r : -EIO;
}

int apply_node_with_flags(
        const NodeContext *c, const Backend *backend, ApplyFlags flags, char ***ret_changes, char **ret_error) {
        _cleanup_(plan_done) Plan p = {};
        _cleanup_(adoptions_done) Adoptions adoptions = {};
        _cleanup_(strv_freep) char **changes = NULL;
        char *e = NULL;
        int r;

        if (ret_error)
                *ret_error = NULL;
        if (!c || !c->profile || !c->node || !backend)
                return -EINVAL;

        if (c->profile->mode == PROFILE_MODE_VERIFY && !(flags & APPLY_FORCE)) {
                r = set_message(
                        ret_error,
                        "%s says mode: verify, so halod does not change this host; change the mode "
                        "to enforce, or apply once with --force",
                        strna(c->profile->path));
                return r < 0 ? r : -EPERM;
        }

        r = plan_node(c, &p);
        if (r < 0) {
                int k = set_message(ret_error, "cannot read the state of the links: %s", strerror(-r));
                return k < 0 ? k : r;
        }
        /* Nothing is applied when any link cannot be: no node half-configured by a broken profile. */
        if (plan_has_errors(&p)) {
                r = plan_errors_message(&p, ret_error);
                return r < 0 ? r : -EINVAL;
        }
        if (flags & APPLY_ADOPT) {
                r = adoptions_find(backend, &p, &adoptions, ret_error);
                if (r < 0)
                        return r;
        }
        r = plan_describe(&p, &changes);
        if (r < 0)
                return r;
        r = adoptions_describe(&adoptions, /* kept= */ false, &changes);
        if (r < 0)
                return r;

        for (size_t i = 0; i < p.n_links; i++) {
                const LinkPlan *lp = &p.links[i];
                const NodeLink *nl = &c->node->links[i];
                const ProfileLink *pl = profile_find_link(c->profile, nl->link);
                _cleanup_(freep) char *label = NULL;
                bool adopt = adoptions_has(&adoptions, lp->link, /* kept= */ false);
                LinkConfig cfg;

                if (link_plan_is_empty(lp) && !adopt)
                        continue;
                cfg = (LinkConfig){
                        .link = lp->link,
                        .ifname = lp->ifname,
                        .mtu = pl->mtu,
                        .address = nl->address,
                        .zone = pl->firewall_zone,
                        .ipv6 = pl->ipv6,
                        .adopt = adopt,
                };
                r = backend->apply_link(&cfg, &e);
                if (r < 0) {
                        label = link_plan_label(lp);
                        int k = set_message(ret_error, "%s: %s", label ?: lp->link, e ?: strerror(-r));
                        free(e);
                        return k < 0 ? k : r;
                }
                free(e);
                e = NULL;
        }

        if (strv_length(changes) > 0) {
                r = verify(c, ret_error);
                if (r < 0)
                        return r;
        }

        if (ret_changes)
                *ret_changes = TAKE_PTR(changes);
        return 0;
}

int apply_node(const NodeContext *c, const Backend *backend, char ***ret_changes, char **ret_error) {
        return apply_node_with_flags(c, backend, 0, ret_changes, ret_error);
}
