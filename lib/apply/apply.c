/* SPDX-License-Identifier: MIT */
/* apply_node() carries out the plan through a backend and then proves the result from the kernel's
 * own state. */
#include <stdio.h>

#include "apply/adopt.h"
#include "apply/apply-hosts.h"
#include "apply/apply-qos-dcb.h"
#include "apply/apply-qos-host.h"
#include "apply/apply-routes.h"
#include "apply/apply.h"
#include "basic/errorf.h"
#include "basic/strv.h"
#include "plan/hosts-plan.h"
#include "plan/route-plan.h"

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
        if (p->hosts && p->hosts->error && strv_extend(&l, p->hosts->error) < 0)
                return -ENOMEM;
        if (ret_error) {
                *ret_error = strv_join(l, "\n");
                if (!*ret_error)
                        return -ENOMEM;
        }
        return 0;
}

/* Leaves in the plan only what the flags let apply_node() change. */
static void plan_restrict(Plan *p, ApplyFlags flags) {
        if (flags & APPLY_NO_HOSTS)
                p->hosts = hosts_plan_free(p->hosts);
        if (flags & APPLY_HOSTS_ONLY) {
                for (size_t i = 0; i < p->n_links; i++)
                        link_plan_done(&p->links[i]);
                p->links = mfree(p->links);
                p->n_links = 0;
        }
}

/* After the backend: what does the kernel say now? Every difference left is a failure. */
static int verify(Snapshot *s, ApplyFlags flags, char **ret_error) {
        _cleanup_(plan_done) Plan after = {};
        _cleanup_(strv_freep) char **left = NULL;
        _cleanup_(freep) char *joined = NULL;
        int r;

        snapshot_forget(s, SNAPSHOT_LINKS);
        r = plan_from_snapshot(s, &after);
        if (r < 0)
                return errorf(
                        ret_error, r, "cannot read the link state back from the kernel: %s", strerror(-r));
        plan_restrict(&after, flags);
        if (plan_is_empty(&after))
                return 0;

        r = plan_describe(&after, &left);
        if (r < 0)
                return r;
        joined = strv_join(left, "; ");
        if (!joined)
                return -ENOMEM;
        return errorf(
                ret_error,
                -EIO,
                "the backend reported success, but the kernel and firewalld still differ from the profile: %s",
                joined);
}

/* The backend, or the host's qos part after it, failed after the link's DCB part succeeded: DCB goes back
 * too (the failing part already put its own back). */
static int backend_failed(const LinkPlan *lp, const ApplyDcbUndo *undo, int r, const char *e, char **ret_error) {
        _cleanup_(freep) char *label = link_plan_label(lp), *undo_error = NULL;

        if (apply_qos_dcb_rollback(lp, undo, &undo_error) < 0)
                return errorf(
                        ret_error,
                        r,
                        "%s: %s; rolling back DCB: %s",
                        label ?: lp->link,
                        e ?: strerror(-r),
                        strna(undo_error));
        return errorf(ret_error, r, "%s: %s", label ?: lp->link, e ?: strerror(-r));
}

/* What the backend kept of each link before this apply (its file), for a backend that keeps one. */
typedef struct LinkUndo {
        bool applied; /* apply_link() succeeded: a later failure puts the link back */
        char *saved;  /* the file before; NULL: none */
} LinkUndo;

/* One LinkUndo per link of the plan; NULL links when the backend keeps no file. */
typedef struct LinkUndos {
        LinkUndo *links;
        size_t n;
} LinkUndos;

static void link_undos_done(LinkUndos *u) {
        for (size_t i = 0; u->links && i < u->n; i++)
                free(u->links[i].saved);
        u->links = mfree(u->links);
        u->n = 0;
}

static bool link_undo_pending(const LinkUndo *u, size_t n) {
        for (size_t i = 0; u && i < n; i++)
                if (u[i].applied)
                        return true;
        return false;
}

/* A later step failed: the links the backend applied go back, last first, and the error says so. */
static int undo_links(const Backend *backend, const Plan *p, LinkUndo *u, int r, char **error) {
        _cleanup_(strv_freep) char **failed = NULL, **restored = NULL;
        _cleanup_(freep) char *joined = NULL, *message = NULL;

        if (!u || !backend->restore_link)
                return r;
        for (size_t i = p->n_links; i > 0; i--) {
                const LinkPlan *lp = &p->links[i - 1];
                _cleanup_(freep) char *label = NULL;

                if (!u[i - 1].applied)
                        continue;
                backend->restore_link(lp, u[i - 1].saved, &failed);
                u[i - 1].applied = false;
                label = link_plan_label(lp);
                if (strv_extend(&restored, label ?: lp->link) < 0)
                        return -ENOMEM;
        }
        if (!restored)
                return r;
        joined = strv_join(failed ? failed : restored, failed ? "; " : ", ");
        if (!joined)
                return -ENOMEM;
        if (failed)
                r = errorf(&message, r, "%s; rolling back: %s", strna(error ? *error : NULL), joined);
        else
                r = errorf(
                        &message,
                        r,
                        "%s; put %s back as %s before this apply",
                        strna(error ? *error : NULL),
                        joined,
                        strv_length(restored) > 1 ? "they were" : "it was");
        if (error) {
                free(*error);
                *error = TAKE_PTR(message);
        }
        return r;
}

static int apply_links(
        const NodeContext *c, const Backend *backend, const Plan *p, LinkUndo *undo, char **ret_error) {
        for (size_t i = 0; i < p->n_links; i++) {
                const LinkPlan *lp = &p->links[i];
                _cleanup_(freep) char *e = NULL, *label = NULL;
                ApplyDcbUndo dcb_undo;
                int r;

                if (link_plan_is_empty(lp) && !lp->adopt)
                        continue;
                /* DCB first (lib/apply/apply-qos-dcb.c says why); it puts itself back when it fails. */
                r = apply_qos_dcb_link(lp, &dcb_undo, &e);
                if (r < 0) {
                        label = link_plan_label(lp);
                        return errorf(ret_error, r, "%s: %s", label ?: lp->link, e ?: strerror(-r));
                }
                /* The backend only when it has something to do: a qos-only change is not its business, a
                 * routes-only change only when it carries the routes. */
                if (!link_plan_settings_are_empty(lp) || lp->adopt ||
                    (backend->carries_routes && !link_plan_routes_is_empty(lp->routes))) {
                        if (backend->save_link && undo) {
                                r = backend->save_link(lp, &undo[i].saved, &e);
                                if (r < 0)
                                        return backend_failed(lp, &dcb_undo, r, e, ret_error);
                        }
                        r = backend->apply_link(lp, &e);
                        if (r < 0)
                                return backend_failed(lp, &dcb_undo, r, e, ret_error);
                        if (undo)
                                undo[i].applied = true;
                }
                /* ECN and the RoCE ToS: halod's own, after the backend (apply-qos-host.c says why); it puts
                 * itself back when it fails, and DCB goes back with it. */
                r = apply_qos_host_link(c->host, lp, &e);
                if (r < 0)
                        return backend_failed(lp, &dcb_undo, r, e, ret_error);
                /* Forwarding and the routes last: a route through a gateway needs the link's address
                 * (apply-routes.c); it takes back its own part when it fails. A backend that carries
                 * them made them already. */
                if (backend->carries_routes)
                        continue;
                r = apply_routes_link(lp, &e);
                if (r < 0)
                        return errorf(ret_error, r, "%s", e ?: strerror(-r));
        }
        return 0;
}

int apply_node(
        const NodeContext *c,
        const Backend *backend,
        ApplyFlags flags,
        Snapshot *snapshot,
        PlanChanges *ret_changes,
        char **ret_error) {
        _cleanup_(snapshot_done) Snapshot own = {};
        _cleanup_(plan_changes_done) PlanChanges changes = {};
        _cleanup_(plan_done) Plan p = {};
        _cleanup_(adoptions_done) Adoptions adoptions = {};
        _cleanup_(link_undos_done) LinkUndos undo = {};
        bool forget;
        int r;

        if (ret_error)
                *ret_error = NULL;
        if (!c || !c->profile || !c->node || !backend || (snapshot && snapshot->context != c))
                return -EINVAL;

        if (!profile_may_change_host(c->profile, flags & APPLY_FORCE))
                return errorf(
                        ret_error,
                        -EPERM,
                        "%s says mode: verify, so halod does not change this host; change the mode to enforce, or "
                        "apply once with --force",
                        strna(c->profile->path));

        snapshot = snapshot_or_own(snapshot, &own, c);
        r = plan_from_snapshot(snapshot, &p);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return errorf(ret_error, r, "cannot read the state of the links: %s", strerror(-r));
        plan_restrict(&p, flags);
        /* Nothing is applied when any link cannot be: no node half-configured by a broken profile. */
        if (plan_has_errors(&p)) {
                r = plan_errors_message(&p, ret_error);
                return r < 0 ? r : -EINVAL;
        }
        /* A takeover comes first: the changes are made through it. */
        if (flags & APPLY_ADOPT) {
                r = adoptions_find(backend, &p, &adoptions, ret_error);
                if (r < 0)
                        return r;
                r = adoptions_to_changes(&adoptions, &changes);
                if (r < 0)
                        return r;
                for (size_t i = 0; i < p.n_links; i++)
                        p.links[i].adopt = adoptions_has(&adoptions, p.links[i].link, /* kept= */ false);
        }
        r = plan_changes(&p, &changes);
        if (r < 0)
                return r;

        if (changes.n_changes > 0) {
                if (backend->save_link) {
                        undo.links = calloc(p.n_links ?: 1, sizeof(LinkUndo));
                        if (!undo.links)
                                return -ENOMEM;
                        undo.n = p.n_links;
                }
                r = apply_links(c, backend, &p, undo.links, ret_error);
                /* Rolled back, or half: either way no longer what the snapshot says. */
                forget = r < 0;
                /* After the links (lib/apply/apply-hosts.c says why); verify() reads the file back. */
                if (r >= 0)
                        r = apply_hosts(&p, ret_error);
                if (r >= 0)
                        r = verify(snapshot, flags, ret_error);
                /* A file written for a link that a later step failed for goes back with it. */
                if (r < 0 && link_undo_pending(undo.links, undo.n)) {
                        r = undo_links(backend, &p, undo.links, r, ret_error);
                        forget = true;
                }
                if (forget)
                        snapshot_forget(snapshot, SNAPSHOT_LINKS);
                if (r < 0)
                        return r;
        }

        if (ret_changes) {
                *ret_changes = changes;
                changes = (PlanChanges){};
        }
        return 0;
}
