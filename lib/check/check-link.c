/* SPDX-License-Identifier: MIT */
/* link.<name>.present|up|mtu|address|zone: the plan's comparison of the profile with the kernel
 * (rtnetlink, the truth) and firewalld, in words. */
/* glibc's net/if.h must come before linux/if.h (which then leaves out what glibc defined). */
#include <net/if.h>

#include <linux/if.h>
#include <stdio.h>

#include "basic/strv.h"
#include "check/check-link-owner.h"
#include "check/check-link.h"
#include "check/check-routes.h"
#include "snapshot/link-match.h"

static int addresses_string(const RtnlLink *link, char **ret) {
        _cleanup_(strv_freep) char **l = NULL;
        char buf[IPV4_PREFIX_STRING_MAX];

        for (size_t i = 0; i < link->n_addresses; i++) {
                Ipv4Prefix p = { .address = link->addresses[i].address,
                                 .prefixlen = link->addresses[i].prefixlen };

                if (strv_extend(&l, ipv4_prefix_to_string(&p, buf)) < 0)
                        return -ENOMEM;
        }
        *ret = l ? strv_join(l, ", ") : strdup("none");
        return *ret ? 0 : -ENOMEM;
}

static int check_up(
        const NodeLink *nl, const char *label, const LinkPlan *lp, const RtnlLink *link, CheckList *out) {
        const char *oper = rtnl_operstate_to_string(link->operstate);

        /* up: administratively up and with a carrier; a link without one moves no RDMA traffic. */
        if (lp->set_up)
                return check_list_add_link(
                        out,
                        nl->link,
                        "up",
                        CHECK_FAIL,
                        "up",
                        "down",
                        "%s is down; haloctl apply brings it up",
                        label);
        if (!(link->flags & IFF_LOWER_UP))
                return check_list_add_link(
                        out,
                        nl->link,
                        "up",
                        CHECK_FAIL,
                        "up",
                        oper,
                        "%s is up but has no carrier (operstate %s); check the cable and the peer's port",
                        label,
                        oper);
        return check_list_add_link(out, nl->link, "up", CHECK_PASS, "up", "up", "%s is up", label);
}

static int check_mtu(
        const ProfileLink *pl, const NodeLink *nl, const char *label, const LinkPlan *lp, CheckList *out) {
        char mtu[16], want[16];

        (void) snprintf(mtu, sizeof(mtu), "%u", lp->mtu_from);
        if (pl->mtu == 0)
                return check_list_add_link(
                        out,
                        nl->link,
                        "mtu",
                        CHECK_SKIP,
                        "",
                        mtu,
                        "the profile leaves the MTU of %s alone (%u)",
                        label,
                        lp->mtu_from);
        (void) snprintf(want, sizeof(want), "%u", lp->mtu_to);
        if (lp->mtu_from == lp->mtu_to)
                return check_list_add_link(
                        out, nl->link, "mtu", CHECK_PASS, want, mtu, "%s has MTU %u", label, lp->mtu_from);
        return check_list_add_link(
                out,
                nl->link,
                "mtu",
                CHECK_FAIL,
                want,
                mtu,
                "%s has MTU %u, the profile wants %u; haloctl apply sets it",
                label,
                lp->mtu_from,
                lp->mtu_to);
}

static int check_address(
        const NodeLink *nl, const char *label, const LinkPlan *lp, const RtnlLink *link, CheckList *out) {
        _cleanup_(freep) char *addresses = NULL;
        char want[IPV4_PREFIX_STRING_MAX];
        int r;

        ipv4_prefix_to_string(&lp->address, want);
        r = addresses_string(link, &addresses);
        if (r < 0)
                return r;
        if (!lp->add_address)
                return check_list_add_link(
                        out, nl->link, "address", CHECK_PASS, want, addresses, "%s has %s", label, want);
        return check_list_add_link(
                out,
                nl->link,
                "address",
                CHECK_FAIL,
                want,
                addresses,
                "%s lacks %s (it has %s); haloctl apply adds it",
                label,
                want,
                addresses);
}

static int check_zone(
        const ProfileLink *pl,
        const NodeLink *nl,
        const char *label,
        const LinkPlan *lp,
        const FirewallView *fw,
        const char *fw_error,
        CheckList *out) {
        const char *want = pl->firewall_zone;

        if (!want)
                return check_list_skip_link(
                        out, nl->link, "zone", "the profile sets no firewall zone for %s", label);
        if (!fw || !fw->running)
                return check_list_add_link(
                        out, nl->link, "zone", CHECK_SKIP, want, "", "skip: firewalld not running");
        if (fw_error || !fw->zone)
                return check_list_add_link(
                        out,
                        nl->link,
                        "zone",
                        CHECK_FAIL,
                        want,
                        "",
                        "cannot ask firewalld for the zone of %s: %s",
                        label,
                        strna(fw_error));
        if (!lp->zone_to)
                return check_list_add_link(
                        out, nl->link, "zone", CHECK_PASS, want, want, "%s is in firewall zone %s", label, want);
        if (isempty(lp->zone_from))
                return check_list_add_link(
                        out,
                        nl->link,
                        "zone",
                        CHECK_FAIL,
                        want,
                        "(none)",
                        "%s is in no firewall zone (the default zone applies), the profile wants %s; haloctl "
                        "apply sets it",
                        label,
                        want);
        return check_list_add_link(
                out,
                nl->link,
                "zone",
                CHECK_FAIL,
                want,
                lp->zone_from,
                "%s is in firewall zone %s, the profile wants %s; haloctl apply moves it",
                label,
                lp->zone_from,
                want);
}

/* link.<name>.present; *ret_skip: why the state checks cannot look (NULL: they can). */
static int check_present(
        const ProfileLink *pl,
        const NodeLink *nl,
        const char *label,
        const LinkPlan *lp,
        const RtnlLink *link,
        const char *state_note,
        CheckList *out,
        const char **ret_skip) {
        _cleanup_(freep) char *expected = NULL;

        expected = link_match_describe(link_match_is_empty(&nl->match) ? &pl->match : &nl->match);
        if (!expected)
                return -ENOMEM;
        *ret_skip = "not present";
        if (!lp->ifname)
                return check_list_add_link(
                        out, nl->link, "present", CHECK_FAIL, expected, "", "%s: %s", nl->link, strna(lp->error));
        if (!state_note && !link)
                return check_list_add_link(
                        out,
                        nl->link,
                        "present",
                        CHECK_FAIL,
                        expected,
                        lp->ifname,
                        "%s is in /sys/class/net but not in the kernel's link table",
                        label);
        *ret_skip = state_note;
        return check_list_add_link(
                out, nl->link, "present", CHECK_PASS, expected, lp->ifname, "%s is %s", nl->link, lp->ifname);
}

int check_link_evaluate(
        const ProfileLink *pl,
        const NodeLink *nl,
        const LinkPlan *lp,
        const RtnlLink *link,
        const char *state_note,
        const FirewallView *fw,
        const char *fw_error,
        CheckList *out) {
        static const char *const state_checks[] = { "up", "mtu", "address", "zone" };
        _cleanup_(freep) char *label = NULL;
        const char *skip = NULL;
        int r;

        if (!pl)
                return check_list_add_link(
                        out,
                        nl->link,
                        "present",
                        CHECK_FAIL,
                        "",
                        "",
                        "the node names link %s, which the profile's links: section lacks",
                        nl->link);
        if (lp->ifname && !(label = link_plan_label(lp)))
                return -ENOMEM;
        r = check_present(pl, nl, label, lp, link, state_note, out, &skip);
        if (r < 0)
                return r;
        if (skip) {
                for (size_t i = 0; r >= 0 && i < ELEMENTSOF(state_checks); i++)
                        r = check_list_skip_link(out, nl->link, state_checks[i], "%s %s", nl->link, skip);
                return r;
        }

        r = check_up(nl, label, lp, link, out);
        if (r >= 0)
                r = check_mtu(pl, nl, label, lp, out);
        if (r >= 0)
                r = check_address(nl, label, lp, link, out);
        if (r >= 0)
                r = check_zone(pl, nl, label, lp, fw, fw_error, out);
        return r;
}

/* link.<name>.owner judges every networkd and netplan file: not read for a run that leaves it out (the
 * re-check after an address event, check_registry_parts()). */
static int check_link_owner_selected(
        const NodeContext *c, const Snapshot *s, size_t i, const NodeLink *nl, const LinkPlan *lp, CheckList *out) {
        if (!snapshot_has(s, SNAPSHOT_NET_CONFIG))
                return 0;
        return check_link_owner(c, s, i, nl, lp, out);
}

int check_links(
        const NodeContext *c, const Snapshot *s, const CheckHistory *before, CheckHistory *after, CheckList *out) {
        _cleanup_(freep) char *note = NULL;
        int r;

        if (!c->profile || !c->node)
                return 0; /* the profile check already says why */

        if (!host_is_running_system(c->host)) {
                /* rtnetlink and firewalld only ever show the running system, not a tree below --root. */
                note = strdup("state is not read under --root (rtnetlink shows the running kernel only)");
                if (!note)
                        return -ENOMEM;
        }
        if (!snapshot_has(s, note ? SNAPSHOT_PORTS : SNAPSHOT_LINKS))
                return 0; /* not selected: its caller did not read it */
        if (!note && s->kernel_error < 0 &&
            asprintf(
                    &note,
                    "state unknown: cannot read the kernel's link state: %s",
                    s->kernel_message ?: strerror(-s->kernel_error)) < 0)
                return -ENOMEM;

        for (size_t i = 0; i < c->node->n_links; i++) {
                const NodeLink *nl = &c->node->links[i];
                const SnapshotZone *z = s->zones ? &s->zones[i] : NULL;
                FirewallView fw = { .running = s->firewalld_running, .zone = z ? z->zone : NULL };
                _cleanup_(link_plan_done) LinkPlan lp = {};

                r = link_plan_from_snapshot(s, i, &lp);
                if (r < 0)
                        return r;
                r = check_link_evaluate(
                        profile_find_link(c->profile, nl->link),
                        nl,
                        &lp,
                        note ? NULL : snapshot_kernel_link(s, i),
                        note,
                        &fw,
                        z ? z->error : NULL,
                        out);
                if (r < 0)
                        return r;
                r = check_link_routes(
                        c->node,
                        nl,
                        &lp,
                        s->forwarding ? s->forwarding[i] : -ENOMEDIUM,
                        note ?: (lp.ifname && snapshot_kernel_link(s, i) ? NULL : "not present"),
                        out);
                if (r < 0)
                        return r;
                r = check_link_owner_selected(c, s, i, nl, &lp, out);
                if (r < 0)
                        return r;
        }
        return 0;
}
