/* SPDX-License-Identifier: MIT */
/* qos.<link>.pfc and qos.<link>.trust: the driver's DCB state (DCB netlink: PFC, the APP trust order,
 * the DSCP entries of the APP table) against the link's qos:, reported from the DCB part of the plan;
 * and, for an E810, whether its firmware LLDP agent overrides the host's settings. */
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

static const char *lldp_hint(const LinkPlan *lp, char *buf, size_t size) {
        (void) snprintf(
                buf,
                size,
                "the firmware LLDP agent of %s is on, so the switch's DCBX settings win over the host's; "
                "turn it off with ethtool --set-priv-flags %s fw-lldp-agent off",
                lp->ifname,
                lp->ifname);
        return buf;
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
                                lldp_hint(lp, hint, sizeof(hint)));
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
                         d->lldp_agent ? lldp_hint(lp, hint, sizeof(hint)) : lp->error ?: "haloctl apply sets it");
}

/* "26:3 46:5", the profile's DSCP map. */
static int dscp_map_string(const ProfileQos *q, const DcbState *s, bool actual, char **ret) {
        _cleanup_(strv_freep) char **l = NULL;

        for (unsigned dscp = 0; dscp < QOS_DSCP_VALUES; dscp++) {
                int p;

                if (q->dscp_priority[dscp] < 0)
                        continue;
                if (!actual)
                        p = q->dscp_priority[dscp];
                else {
                        p = dcb_state_app_priority(s, IEEE_8021QAZ_APP_SEL_DSCP, (uint16_t) dscp);
                        if (p == -ENOTUNIQ) {
                                if (strv_extendf(&l, "%u:several", dscp) < 0)
                                        return -ENOMEM;
                                continue;
                        }
                }
                if ((p < 0 ? strv_extendf(&l, "%u:none", dscp) : strv_extendf(&l, "%u:%d", dscp, p)) < 0)
                        return -ENOMEM;
        }
        *ret = l ? strv_join(l, " ") : strdup("");
        return *ret ? 0 : -ENOMEM;
}

/* The priorities that should be lossless: the profile's pfc:, else what the driver has on. */
static uint8_t lossless_mask(const ProfileQos *q, const DcbState *b) {
        if (q->has_pfc)
                return q->pfc;
        return b->has_pfc ? b->pfc.pfc_en : 0;
}

/* Where the DSCP of roce-tos lands, judged from the APP table the kernel reports, when the profile
 * leaves it to the NIC (its dscp-priority: does not map that DSCP): validate cannot know a NIC's
 * default map. mlx5 in trust dscp puts its whole firmware map (by default DSCP >> 3, 26 → 3) into the
 * APP table (en_dcbnl.c, mlx5e_dcbnl_dscp_app()); ice lists only the entries it was given and sends
 * any other DSCP on priority 0 (its DSCP map starts zeroed when it switches to DSCP mode). Adds a
 * problem, or sets *ret_note to what passed; nothing when there is nothing to judge. */
static int judge_roce_dscp(
        const ProfileQos *q, const LinkPlan *lp, char ***problems, char **ret_landing, char **ret_note) {
        const DcbState *b = &lp->dcb->before;
        uint8_t mask = lossless_mask(q, b);
        unsigned tos, dscp;
        char pfc[16];
        int p;

        if (q->roce_tos < 0 || q->trust != QOS_TRUST_DSCP || mask == 0)
                return 0;
        tos = (unsigned) q->roce_tos;
        dscp = tos >> 2;
        if (q->dscp_priority[dscp] >= 0) /* the profile's own map: validate and the map check judge it */
                return 0;
        if (dcb_state_count_selector(b, IEEE_8021QAZ_APP_SEL_DSCP) == 0)
                return 0; /* not trusting DSCP at all: the trust problem says so */

        dcb_pfc_to_string(mask, pfc);
        p = dcb_state_app_priority(b, IEEE_8021QAZ_APP_SEL_DSCP, (uint16_t) dscp);
        if (p == -ENOTUNIQ)
                return strv_extendf(
                        problems,
                        "its APP table has several priorities for DSCP %u of roce-tos %u, and the driver picks "
                        "one; map it in the profile (dscp-priority: { %u: %u }) and haloctl apply sets it",
                        dscp,
                        tos,
                        dscp,
                        qos_suggested_roce_priority(mask));
        if (p == -ENOENT) {
                if (asprintf(ret_landing, "%u:none", dscp) < 0)
                        return -ENOMEM;
                if (mask & 1U)
                        return asprintf(
                                       ret_note,
                                       "; DSCP %u of roce-tos %u has no entry and goes to priority 0 (ice), "
                                       "which has PFC",
                                       dscp,
                                       tos) < 0
                                ? -ENOMEM
                                : 0;
                return strv_extendf(
                        problems,
                        "its APP table has DSCP entries but none for DSCP %u of roce-tos %u, so RoCE leaves on "
                        "the driver's default priority (ice: 0), without PFC (pfc %s); add dscp-priority: { %u: "
                        "%u } to the link's qos: and haloctl apply sets it",
                        dscp,
                        tos,
                        pfc,
                        dscp,
                        qos_suggested_roce_priority(mask));
        }
        if (p < 0)
                return p;
        if (asprintf(ret_landing, "%u:%d", dscp, p) < 0)
                return -ENOMEM;
        if (mask & (1U << p))
                return asprintf(
                               ret_note,
                               "; DSCP %u of roce-tos %u lands on priority %d (the APP table's entry), which has "
                               "PFC",
                               dscp,
                               tos,
                               p) < 0
                        ? -ENOMEM
                        : 0;
        return strv_extendf(
                problems,
                "DSCP %u of roce-tos %u lands on priority %d (the APP table's entry), which has no PFC (pfc %s): "
                "RoCE would be dropped at the first congestion; add dscp-priority: { %u: %u } to the link's "
                "qos: and haloctl apply sets it",
                dscp,
                tos,
                p,
                pfc,
                dscp,
                qos_suggested_roce_priority(mask));
}

/* What qos.<link>.trust found, read from the plan's DCB state before it is judged. */
typedef struct TrustView {
        const char *trust;                /* the profile's, NULL: none */
        char order[DCB_TRUST_STRING_MAX]; /* the driver's trust order */
        const char *note;                 /* how order was told, when the driver has no trust table */
        char *want_map, *have_map;        /* the DSCP maps, "26:3 46:5"; have_map with RoCE's landing */
        char *landing_note;               /* where RoCE's DSCP lands, when that is right */
        char **problems;
} TrustView;

static void trust_view_done(TrustView *v) {
        free(v->want_map);
        free(v->have_map);
        free(v->landing_note);
        strv_free(v->problems);
}

/* The driver's trust order; without a trust table, what it trusts by its APP table. */
static void trust_order(const DcbState *b, TrustView *v) {
        size_t n_dscp = dcb_state_count_selector(b, IEEE_8021QAZ_APP_SEL_DSCP);

        v->note = "";
        if (b->has_trust) {
                dcb_trust_to_string(b->trust, b->n_trust, v->order);
                return;
        }
        (void) snprintf(v->order, sizeof(v->order), "%s", n_dscp > 0 ? "dscp" : "pcp");
        v->note =
                " (the driver has no APP trust table: it trusts DSCP while its APP table has DSCP "
                "entries, which is what is checked)";
}

static int trust_read(const ProfileQos *q, const LinkPlan *lp, TrustView *v) {
        const LinkPlanDcb *d = lp->dcb;
        const DcbState *b = &d->before;
        _cleanup_(freep) char *landing = NULL;
        int r;

        r = dscp_map_string(q, b, false, &v->want_map);
        if (r >= 0)
                r = dscp_map_string(q, b, true, &v->have_map);
        if (r < 0)
                return r;
        trust_order(b, v);
        if (v->trust) {
                uint8_t want = q->trust == QOS_TRUST_DSCP ? IEEE_8021QAZ_APP_SEL_DSCP : DCBNL_APP_SEL_PCP;
                bool ok = b->has_trust ? b->n_trust > 0 && b->trust[0] == want
                                       : (q->trust == QOS_TRUST_DSCP) ==
                                (dcb_state_count_selector(b, IEEE_8021QAZ_APP_SEL_DSCP) > 0);

                if (!ok &&
                    strv_extendf(
                            &v->problems,
                            "%s trusts %s first, the profile wants %s",
                            lp->ifname,
                            v->order,
                            v->trust) < 0)
                        return -ENOMEM;
        }
        if ((d->n_add > 0 || d->n_remove > 0) &&
            strv_extendf(
                    &v->problems,
                    "its APP table maps dscp-priority %s, the profile wants %s",
                    v->have_map,
                    v->want_map) < 0)
                return -ENOMEM;

        r = judge_roce_dscp(q, lp, &v->problems, &landing, &v->landing_note);
        if (r < 0)
                return r;
        if (landing) { /* the entry RoCE's DSCP lands on, beside the profile's map */
                char *joined_map;

                if (asprintf(&joined_map, "%s%s%s", v->have_map, isempty(v->have_map) ? "" : " ", landing) < 0)
                        return -ENOMEM;
                free(v->have_map);
                v->have_map = joined_map;
        }
        return 0;
}

static int trust_evaluate(const NodeLink *nl, const LinkPlan *lp, const TrustView *v, CheckList *out) {
        _cleanup_(freep) char *expected = NULL, *actual = NULL, *joined = NULL;
        char hint[256];

        if (asprintf(
                    &expected,
                    "%s%s%s%s",
                    v->trust ? "trust " : "",
                    strempty(v->trust),
                    v->trust && !isempty(v->want_map) ? "; " : "",
                    isempty(v->want_map) ? "" : v->want_map) < 0 ||
            asprintf(
                    &actual,
                    "trust %s%s%s",
                    v->order,
                    isempty(v->have_map) ? "" : "; ",
                    isempty(v->have_map) ? "" : v->have_map) < 0)
                return -ENOMEM;

        if (!v->problems) {
                if (lp->dcb->lldp_agent)
                        return check_list_add_qos(
                                out,
                                nl->link,
                                "trust",
                                CHECK_WARN,
                                expected,
                                actual,
                                "%s trusts %s%s as the profile asks, but %s",
                                lp->ifname,
                                v->order,
                                v->note,
                                lldp_hint(lp, hint, sizeof(hint)));
                return check_list_add_qos(
                        out,
                        nl->link,
                        "trust",
                        CHECK_PASS,
                        expected,
                        actual,
                        "%s trusts %s%s%s%s%s",
                        lp->ifname,
                        v->order,
                        isempty(v->have_map) ? "" : " and maps dscp-priority ",
                        v->have_map,
                        strempty(v->landing_note),
                        v->note);
        }
        joined = strv_join(v->problems, "; ");
        if (!joined)
                return -ENOMEM;
        return check_list_add_qos(
                out,
                nl->link,
                "trust",
                CHECK_FAIL,
                expected,
                actual,
                "%s%s; %s",
                joined,
                v->note,
                lp->dcb->lldp_agent ? lldp_hint(lp, hint, sizeof(hint)) : lp->error ?: "haloctl apply sets it");
}

static int check_trust(const ProfileQos *q, const NodeLink *nl, const LinkPlan *lp, CheckList *out) {
        _cleanup_(trust_view_done)
                TrustView v = { .trust = q->trust >= 0 ? qos_trust_to_string(q->trust) : NULL };
        int r;

        if (!v.trust && !q->has_dscp_map)
                return check_list_skip_qos(
                        out, nl->link, "trust", "the qos: of %s sets no trust and no dscp-priority", nl->link);
        r = trust_read(q, lp, &v);
        if (r < 0)
                return r;
        return trust_evaluate(nl, lp, &v, out);
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
                r = check_trust(&pl->qos, nl, lp, out);
        return r;
}

int check_qos_dcb(const NodeContext *c, Snapshot *s, CheckList *out) {
        _cleanup_(snapshot_done) Snapshot own = {};
        _cleanup_(freep) char *note = NULL;
        int r;

        if (!c->profile || !c->node)
                return 0; /* the profile check already says why */
        s = snapshot_or_own(s, &own, c);

        if (!host_is_running_system(c->host)) {
                note = strdup("DCB is not read under --root (DCB netlink shows the running kernel only)");
                if (!note)
                        return -ENOMEM;
                r = snapshot_read(s, SNAPSHOT_PORTS);
        } else
                r = snapshot_read(s, SNAPSHOT_LINKS | SNAPSHOT_DCB);
        if (r < 0)
                return r;
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
