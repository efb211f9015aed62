/* SPDX-License-Identifier: MIT */
/* The DCB part of a link's plan through DCB netlink, one change at a time so that a failure knows
 * exactly what to put back. apply_node() makes it before the backend's part: a backend undoes its own
 * changes when it fails but cannot undo them after it succeeded, while DCB is halod's to put back; and
 * DCB is what a driver refuses (no DCB support, ice's firmware LLDP agent), so a refusal comes before
 * anything else of the link changed. */
#include <stdio.h>

#include "apply/apply-qos-dcb.h"
#include "basic/errorf.h"
#include "basic/strv.h"
#include "net/dcb.h"

/* The kernel's extended ack when it gave one; DCB refusals come in the reply's status, without one. */
static const char *reason(const char *ext_ack, int r, char *buf, size_t size) {
        if (ext_ack)
                return ext_ack;
        if (r == -EOPNOTSUPP)
                return "the driver has no DCB support for it (the kernel answered EOPNOTSUPP)";
        (void) snprintf(buf, size, "%s", strerror(-r));
        return buf;
}

static int rollback(Rtnl *rtnl, const LinkPlan *lp, const ApplyDcbUndo *u, char ***errors) {
        const LinkPlanDcb *d = lp->dcb;
        _cleanup_(freep) char *e = NULL;
        char buf[128];
        int r, ret = 0;

        /* Newest change first. */
        if (u->trust) {
                r = dcb_set_trust(rtnl, lp->ifname, d->before.trust, d->before.n_trust, &e);
                if (r < 0) {
                        char t[DCB_TRUST_STRING_MAX];

                        ret = r;
                        (void) strv_extendf(
                                errors,
                                "restoring the trust order %s failed: %s",
                                dcb_trust_to_string(d->before.trust, d->before.n_trust, t),
                                reason(e, r, buf, sizeof(buf)));
                }
                e = mfree(e);
        }
        for (size_t i = 0; i < d->n_remove; i++) {
                if (!u->removed[i])
                        continue;
                r = dcb_add_apps(rtnl, lp->ifname, &d->remove[i], 1, &e);
                if (r < 0 && r != -EEXIST) {
                        ret = r;
                        (void) strv_extendf(
                                errors,
                                "restoring dscp-priority %u:%u failed: %s",
                                d->remove[i].protocol,
                                d->remove[i].priority,
                                reason(e, r, buf, sizeof(buf)));
                }
                e = mfree(e);
        }
        for (size_t i = 0; i < d->n_add; i++) {
                if (!u->added[i])
                        continue;
                r = dcb_delete_apps(rtnl, lp->ifname, &d->add[i], 1, &e);
                if (r < 0 && r != -ENOENT) {
                        ret = r;
                        (void) strv_extendf(
                                errors,
                                "removing dscp-priority %u:%u failed: %s",
                                d->add[i].protocol,
                                d->add[i].priority,
                                reason(e, r, buf, sizeof(buf)));
                }
                e = mfree(e);
        }
        if (u->pfc) {
                r = dcb_set_pfc(rtnl, lp->ifname, &d->before.pfc, &e);
                if (r < 0) {
                        char p[16];

                        ret = r;
                        (void) strv_extendf(
                                errors,
                                "restoring PFC on %s failed: %s",
                                dcb_pfc_to_string(d->before.pfc.pfc_en, p),
                                reason(e, r, buf, sizeof(buf)));
                }
        }
        return ret;
}

static int apply_changes(Rtnl *rtnl, const LinkPlan *lp, ApplyDcbUndo *u, char **ret_error) {
        const LinkPlanDcb *d = lp->dcb;
        _cleanup_(freep) char *e = NULL;
        char buf[128];
        int r;

        if (d->pfc_change) {
                struct ieee_pfc pfc = d->before.pfc;
                char p[16];

                pfc.pfc_en = d->pfc_to;
                r = dcb_set_pfc(rtnl, lp->ifname, &pfc, &e);
                if (r < 0)
                        return errorf(
                                ret_error,
                                r,
                                "cannot set PFC on priorities %s of %s: %s",
                                dcb_pfc_to_string(d->pfc_to, p),
                                lp->ifname,
                                reason(e, r, buf, sizeof(buf)));
                u->pfc = true;
        }
        for (size_t i = 0; i < d->n_add; i++) {
                r = dcb_add_apps(rtnl, lp->ifname, &d->add[i], 1, &e);
                if (r == -EEXIST)
                        continue; /* added since the plan was made: not ours to take back */
                if (r < 0)
                        return errorf(
                                ret_error,
                                r,
                                "cannot map DSCP %u to priority %u in the APP table of %s: %s",
                                d->add[i].protocol,
                                d->add[i].priority,
                                lp->ifname,
                                reason(e, r, buf, sizeof(buf)));
                u->added[i] = true;
        }
        for (size_t i = 0; i < d->n_remove; i++) {
                r = dcb_delete_apps(rtnl, lp->ifname, &d->remove[i], 1, &e);
                if (r == -ENOENT)
                        continue;
                if (r < 0)
                        return errorf(
                                ret_error,
                                r,
                                "cannot remove the mapping of DSCP %u to priority %u from the APP table of %s: %s",
                                d->remove[i].protocol,
                                d->remove[i].priority,
                                lp->ifname,
                                reason(e, r, buf, sizeof(buf)));
                u->removed[i] = true;
        }
        if (d->trust_change) {
                char t[DCB_TRUST_STRING_MAX];

                r = dcb_set_trust(rtnl, lp->ifname, d->trust_to, d->n_trust_to, &e);
                if (r < 0)
                        return errorf(
                                ret_error,
                                r,
                                "cannot set the APP trust order of %s to %s: %s",
                                lp->ifname,
                                dcb_trust_to_string(d->trust_to, d->n_trust_to, t),
                                reason(e, r, buf, sizeof(buf)));
                u->trust = true;
        }
        return 0;
}

int apply_qos_dcb_link(const LinkPlan *lp, ApplyDcbUndo *ret_undo, char **ret_error) {
        _cleanup_(rtnl_closep) Rtnl *rtnl = NULL;
        _cleanup_(strv_freep) char **rollback_errors = NULL;
        _cleanup_(freep) char *error = NULL;
        ApplyDcbUndo u = {};
        int r;

        if (ret_error)
                *ret_error = NULL;
        *ret_undo = (ApplyDcbUndo){};
        if (!lp || !lp->ifname || lp->error)
                return -EINVAL;
        if (link_plan_dcb_is_empty(lp->dcb))
                return 0;

        r = rtnl_open(&rtnl);
        if (r < 0)
                return errorf(ret_error, r, "cannot open an rtnetlink socket for DCB: %s", strerror(-r));
        r = apply_changes(rtnl, lp, &u, &error);
        if (r >= 0) {
                *ret_undo = u;
                return 0;
        }
        if (r == -ENOMEM)
                return r;
        if (rollback(rtnl, lp, &u, &rollback_errors) < 0 && ret_error) {
                _cleanup_(freep) char *j = strv_join(rollback_errors, "; ");

                return errorf(ret_error, r, "%s; rolling back: %s", strna(error), strna(j));
        }
        return errorf(ret_error, r, "%s; %s left as it was", strna(error), lp->ifname);
}

int apply_qos_dcb_rollback(const LinkPlan *lp, const ApplyDcbUndo *undo, char **ret_error) {
        _cleanup_(rtnl_closep) Rtnl *rtnl = NULL;
        _cleanup_(strv_freep) char **errors = NULL;
        _cleanup_(freep) char *j = NULL;
        int r;

        if (ret_error)
                *ret_error = NULL;
        if (!lp || link_plan_dcb_is_empty(lp->dcb))
                return 0;
        r = rtnl_open(&rtnl);
        if (r < 0)
                return errorf(ret_error, r, "cannot open an rtnetlink socket for DCB: %s", strerror(-r));
        r = rollback(rtnl, lp, undo, &errors);
        if (r >= 0)
                return 0;
        j = strv_join(errors, "; ");
        return errorf(ret_error, r, "%s", strna(j));
}
