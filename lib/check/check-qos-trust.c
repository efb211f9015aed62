/* SPDX-License-Identifier: MIT */
/* qos.<link>.trust: what the driver trusts first (the APP trust order, or its APP table) and the DSCP
 * entries of its APP table against the link's trust: and dscp-priority:, and where RoCE's DSCP (of
 * roce-tos) lands; and the LLDP agent's hint both DCB checks give. Called by check-qos-dcb.c. */
#include <stdio.h>

#include "basic/strv.h"
#include "check/check-qos-dcb.h"

const char *qos_dcb_lldp_hint(const LinkPlan *lp, char *buf, size_t size) {
        (void) snprintf(
                buf,
                size,
                "the firmware LLDP agent of %s is on, so the switch's DCBX settings win over the host's; "
                "turn it off with ethtool --set-priv-flags %s fw-lldp-agent off",
                lp->ifname,
                lp->ifname);
        return buf;
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
        if ((d->n_add > d->n_add_for_trust || d->n_remove > 0) &&
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
                                qos_dcb_lldp_hint(lp, hint, sizeof(hint)));
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
                lp->dcb->lldp_agent ? qos_dcb_lldp_hint(lp, hint, sizeof(hint)) : lp->error ?: "haloctl apply sets it");
}

int check_qos_trust(const ProfileQos *q, const NodeLink *nl, const LinkPlan *lp, CheckList *out) {
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
