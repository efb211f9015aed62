/* SPDX-License-Identifier: MIT */
/* The takeovers of haloctl apply --adopt as lists and lines, finding them link by link through the
 * backend, and haloctl unadopt for a node. */
#include <stdio.h>

#include "apply/adopt.h"
#include "apply/nm.h"
#include "basic/errorf.h"
#include "basic/strv.h"
#include "snapshot/link-match.h"

void adoption_done(Adoption *a) {
        if (!a)
                return;
        free(a->link);
        free(a->ifname);
        free(a->id);
        free(a->uuid);
        free(a->other_id);
        *a = (Adoption){};
}

void adoptions_done(Adoptions *l) {
        if (!l)
                return;
        for (size_t i = 0; i < l->n; i++)
                adoption_done(&l->items[i]);
        l->items = mfree(l->items);
        l->n = 0;
}

int adoptions_add(Adoptions *l, Adoption *a) {
        Adoption *items = reallocarray(l->items, l->n + 1, sizeof(Adoption));

        if (!items) {
                adoption_done(a);
                return -ENOMEM;
        }
        l->items = items;
        l->items[l->n++] = *a;
        *a = (Adoption){};
        return 0;
}

bool adoptions_has(const Adoptions *l, const char *link, bool kept) {
        for (size_t i = 0; i < l->n; i++)
                if (streq_ptr(l->items[i].link, link) && l->items[i].kept == kept)
                        return true;
        return false;
}

/* The line plan and apply print for a takeover, and unadopt for a connection given back:
 * rdma0 (enp194s0f0np0): adopt NetworkManager connection "rdma0" (uuid …): kept as "rdma0 (before
 * halod)", autoconnect off
 * rdma0 (enp194s0f0np0): give back NetworkManager connection "rdma0 (before halod)" (uuid …): renamed
 * "rdma0", autoconnect yes, activated again */
static char *adoption_describe(const Adoption *a) {
        char *s;
        int r;

        if (!a->kept)
                r = asprintf(
                        &s,
                        "%s (%s): adopt NetworkManager connection \"%s\" (uuid %s): kept as \"%s\", autoconnect "
                        "off",
                        a->link,
                        a->ifname,
                        a->id,
                        a->uuid,
                        a->other_id);
        else
                r = asprintf(
                        &s,
                        "%s (%s): give back NetworkManager connection \"%s\" (uuid %s): renamed \"%s\", "
                        "autoconnect %s%s",
                        a->link,
                        a->ifname,
                        a->id,
                        a->uuid,
                        a->other_id,
                        a->autoconnect ? "yes" : "no",
                        a->reactivate ? ", activated again" : "");
        return r < 0 ? NULL : s;
}

int adoptions_to_changes(const Adoptions *l, PlanChanges *changes) {
        for (size_t i = 0; i < l->n; i++) {
                const Adoption *a = &l->items[i];
                _cleanup_(freep) char *from = NULL, *to = NULL;
                int r;

                if (a->kept)
                        continue;
                if (asprintf(&from, "NetworkManager connection \"%s\" (uuid %s)", a->id, a->uuid) < 0 ||
                    asprintf(&to, "kept as \"%s\", autoconnect off", a->other_id) < 0)
                        return -ENOMEM;
                r = plan_changes_add(changes, a->link, a->ifname, LINK_FIELD_OWNER, from, to);
                if (r < 0)
                        return r;
        }
        return 0;
}

int adoptions_describe(const Adoptions *l, bool kept, char ***lines) {
        _cleanup_(strv_freep) char **merged = calloc(1, sizeof(char *));
        int r;

        if (!merged)
                return -ENOMEM;
        for (size_t i = 0; i < l->n; i++) {
                if (l->items[i].kept != kept)
                        continue;
                r = strv_consume(&merged, adoption_describe(&l->items[i]));
                if (r < 0)
                        return r;
        }
        STRV_FOREACH(s, *lines) {
                r = strv_extend(&merged, *s);
                if (r < 0)
                        return r;
        }
        strv_free(*lines);
        *lines = TAKE_PTR(merged);
        return 0;
}

char *adoption_describe_holder(const Adoption *a) {
        char *s;

        if (asprintf(
                    &s,
                    "%s (%s): NetworkManager connection \"%s\" (uuid %s) holds the interface, so apply "
                    "refuses to change it; haloctl plan --adopt shows how haloctl apply --adopt takes it over",
                    a->link,
                    a->ifname,
                    a->id,
                    a->uuid) < 0)
                return NULL;
        return s;
}

int adoptions_find(const Backend *backend, const Plan *p, Adoptions *ret, char **ret_error) {
        Adoptions l = {};
        int r;

        for (size_t i = 0; backend->find_adoptions && i < p->n_links; i++) {
                const LinkPlan *lp = &p->links[i];

                if (!lp->ifname || lp->error)
                        continue;
                r = backend->find_adoptions(lp->link, lp->ifname, &l, ret_error);
                if (r < 0) {
                        adoptions_done(&l);
                        return r;
                }
        }
        *ret = l;
        return 0;
}

static int unadopt_link(
        const NodeContext *c, const Backend *backend, const NodeLink *nl, char ***changes, char **ret_error) {
        _cleanup_(freep) char *ifname = NULL, *resolve_error = NULL, *e = NULL;
        _cleanup_(adoptions_done) Adoptions found = {};
        int r;

        r = link_match_resolve(c->host, profile_node_link_match(c->profile, nl), &ifname, &resolve_error);
        if (r == -ENOMEM)
                return r;
        if (!ifname)
                return errorf(
                        ret_error, -ENODEV, "%s: %s", nl->link, resolve_error ?: "no network interface matches");

        r = backend->find_adoptions(nl->link, ifname, &found, &e);
        if (r < 0)
                return errorf(ret_error, r, "%s (%s): %s", nl->link, ifname, e ?: strerror(-r));
        if (!adoptions_has(&found, nl->link, /* kept= */ true))
                return 0;

        r = backend->unadopt_link(nl->link, ifname, &e);
        if (r < 0)
                return errorf(ret_error, r, "%s (%s): %s", nl->link, ifname, e ?: strerror(-r));

        for (size_t i = 0; i < found.n; i++) {
                if (!found.items[i].kept)
                        continue;
                r = strv_consume(changes, adoption_describe(&found.items[i]));
                if (r < 0)
                        return r;
        }
        return strv_extendf(changes, "%s (%s): " NM_HALOD_ID_PREFIX "%s deleted", nl->link, ifname, nl->link);
}

int unadopt_node(const NodeContext *c, const Backend *backend, char ***ret_changes, char **ret_error) {
        _cleanup_(strv_freep) char **changes = NULL;
        int r;

        if (ret_error)
                *ret_error = NULL;
        if (!c || !c->profile || !c->node || !backend)
                return -EINVAL;
        /* An empty, allocated list: "nothing to give back" is not a failure. */
        changes = calloc(1, sizeof(char *));
        if (!changes)
                return -ENOMEM;

        for (size_t i = 0; backend->find_adoptions && i < c->node->n_links; i++) {
                r = unadopt_link(c, backend, &c->node->links[i], &changes, ret_error);
                if (r < 0)
                        return r;
        }
        if (ret_changes)
                *ret_changes = TAKE_PTR(changes);
        return 0;
}
