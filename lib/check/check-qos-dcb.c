/* SPDX-License-Identifier: MIT */
/* qos.<link>.pfc and qos.<link>.trust: the driver's DCB state (DCB netlink: PFC, the APP trust order,
 * the DSCP entries of the APP table) against the link's qos:, reported from the DCB part of the plan;
 * and, for an E810, whether its firmware LLDP agent overrides the host's settings. qos.<link>.trust
 * is judged in check-qos-trust.c. */
#include <stdio.h>

#include "basic/strv.h"
#include "check/check-qos-dcb.h"

/* The checks each link gets, in this order (tests/docs/test-docs.sh reads this line). */
static const char *const qos_dcb_checks[] = { "pfc", "trust" };

static int skip_all(CheckList *out, const char *link, const char *why) {
        for (size_t i = 0; i < ELEMENTSOF(qos_dcb_checks); i++) {
                int r = check_list_skip_qos(out, link, qos_dcb_checks[i], "%s", why);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* The priorities set in a but not in b, "3,4"; "" for none. */
static const char *pfc_minus(uint8_t a, uint8_t b, char buf[static 16]) {
        uint8_t d = a & ~b;

        return d == 0 ? "" : dcb_pfc_to_string(d, buf);
}

static int check_pfc(const ProfileQos *q, const NodeLink *nl, const LinkPlan *lp, CheckList *out) {
        const LinkPlanDcb *d = lp->dcb;
        char want[16], have[16], missing_buf[16], extra_buf[16], hint[256];
        const char *missing, *extra;
        uint8_t en;

        if (!q->has_pfc)
                return check_list_skip_qos(out, nl->link, "pfc", "the qos: of %s sets no pfc", nl->link);
        dcb_pfc_to_string(q->pfc, want);
        if (!d->before.has_pfc)
                return check_list_add_qos(
                        out,
                        nl->link,
                        "pfc",
                        CHECK_FAIL,
                        want,
                        "",
                        "the driver of %s reports no PFC state (DCB_ATTR_IEEE_PFC)",
                        lp->ifname);
        en = d->before.pfc.pfc_en;
        dcb_pfc_to_string(en, have);
        if (en == q->pfc) {
                if (d->lldp_agent)
                        return check_list_add_qos(
                                out,
                                nl->link,
                                "pfc",
                                CHECK_WARN,
                                want,
                                have,
                                "PFC is on priorities %s of %s as the profile asks, but %s",
                                have,
                                lp->ifname,
                                qos_dcb_lldp_hint(lp, hint, sizeof(hint)));
                if (q->pfc == 0)
                        return check_list_add_qos(
                                out,
                                nl->link,
                                "pfc",
                                CHECK_PASS,
                                want,
                                have,
                                "PFC is off on every priority of %s",
                                lp->ifname);
                return check_list_add_qos(
                        out,
                        nl->link,
                        "pfc",
                        CHECK_PASS,
                        want,
                        have,
                        "PFC is on priorities %s of %s",
                        have,
                        lp->ifname);
        }
        missing = pfc_minus(q->pfc, en, missing_buf);
        extra = pfc_minus(en, q->pfc, extra_buf);
        return check_list_add_qos(out,
                         nl->link,
                         "pfc",
                         CHECK_FAIL,
                         want,
                         have,
                         "%s has PFC on %s, the profile wants %s (%s%s%s%s%s); %s",
                         lp->ifname,
                         have,
                         want,
                         isempty(missing) ? "" : "missing: ",
                         missing,
                         !isempty(missing) && !isempty(extra) ? ", " : "",
                         isempty(extra) ? "" : "extra: ",
                         extra,
                         d->lldp_agent ? qos_dcb_lldp_hint(lp, hint, sizeof(hint)) : lp->error ?: "haloctl apply sets it");
}

int check_qos_dcb_evaluate(
        const ProfileLink *pl,
        const NodeLink *nl,
        const LinkPlan *lp,
        const SnapshotDcb *sd,
        const char *state_note,
        CheckList *out) {
        _cleanup_(freep) char *why = NULL;
        int r;

        if (!pl)
                return skip_all(out, nl->link, "the profile's links: section lacks this link");
        if (!pl->qos.present) {
                if (asprintf(&why, "the profile sets no qos: for %s", nl->link) < 0)
                        return -ENOMEM;
                return skip_all(out, nl->link, why);
        }
        if (!qos_wants_dcb(&pl->qos)) {
                if (asprintf(&why, "the qos: of %s sets no pfc, trust or dscp-priority", nl->link) < 0)
                        return -ENOMEM;
                return skip_all(out, nl->link, why);
        }
        if (state_note)
                return skip_all(out, nl->link, state_note);
        if (!lp->ifname || !sd || sd->error == -ENOMEDIUM) {
                if (asprintf(&why, "%s not present", nl->link) < 0)
                        return -ENOMEM;
                return skip_all(out, nl->link, why);
        }
        if (sd->error == -EOPNOTSUPP) {
                if (asprintf(
                            &why,
                            "the driver of %s has no DCB support (the kernel answered EOPNOTSUPP)",
                            lp->ifname) < 0)
                        return -ENOMEM;
                return skip_all(out, nl->link, why);
        }
        if (sd->error < 0 || !lp->dcb) {
                for (size_t i = 0; i < ELEMENTSOF(qos_dcb_checks); i++) {
                        r = check_list_add_qos(
                                out,
                                nl->link,
                                qos_dcb_checks[i],
                                CHECK_FAIL,
                                "",
                                "",
                                "cannot read the DCB state of %s: %s",
                                lp->ifname,
                                sd->message ?: strerror(sd->error < 0 ? -sd->error : EIO));
                        if (r < 0)
                                return r;
                }
                return 0;
        }

        r = check_pfc(&pl->qos, nl, lp, out);
        if (r >= 0)
                r = check_qos_trust(&pl->qos, nl, lp, out);
        return r;
}

int check_qos_dcb(
        const NodeContext *c, const Snapshot *s, const CheckHistory *before, CheckHistory *after, CheckList *out) {
        _cleanup_(freep) char *note = NULL;
        int r;

        if (!c->profile || !c->node)
                return 0; /* the profile check already says why */

        if (!host_is_running_system(c->host)) {
                note = strdup("DCB is not read under --root (DCB netlink shows the running kernel only)");
                if (!note)
                        return -ENOMEM;
        }
        if (!snapshot_has(s, note ? SNAPSHOT_PORTS : SNAPSHOT_LINKS | SNAPSHOT_DCB))
                return 0; /* not selected: its caller did not read it */
        if (!note && s->kernel_error < 0 &&
            asprintf(
                    &note,
                    "state unknown: cannot read the kernel's link state: %s",
                    s->kernel_message ?: strerror(-s->kernel_error)) < 0)
                return -ENOMEM;

        for (size_t i = 0; i < c->node->n_links; i++) {
                const NodeLink *nl = &c->node->links[i];
                _cleanup_(link_plan_done) LinkPlan lp = {};

                r = link_plan_from_snapshot(s, i, &lp);
                if (r < 0)
                        return r;
                r = check_qos_dcb_evaluate(
                        profile_find_link(c->profile, nl->link),
                        nl,
                        &lp,
                        !note && s->dcb && i < s->n_ports ? &s->dcb[i] : NULL,
                        note,
                        out);
                if (r < 0)
                        return r;
        }
        return 0;
}
