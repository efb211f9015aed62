/* SPDX-License-Identifier: MIT */
/* Planning one link from observed state, and describing plans: pure functions, no I/O. */
#include <arpa/inet.h>
#include <linux/if_addr.h>
#include <net/if.h>
#include <stdio.h>

#include "basic/strv.h"
#include "plan/plan.h"

static uint32_t netmask(unsigned prefixlen) {
        return prefixlen == 0 ? 0 : prefixlen >= 32 ? UINT32_MAX : UINT32_MAX << (32 - prefixlen);
}

bool address_is_stray(const RtnlAddress *a, const Ipv4Prefix *wanted) {
        uint32_t mask = netmask(wanted->prefixlen);

        if (a->address.s_addr == wanted->address.s_addr && a->prefixlen == wanted->prefixlen)
                return false;
        if (a->proto == RTNL_ADDRESS_PROTO_HALOD)
                return true;
        if (a->address.s_addr == wanted->address.s_addr)
                return true;
        return ((ntohl(a->address.s_addr) ^ ntohl(wanted->address.s_addr)) & mask) == 0;
}

bool address_is_removed(const RtnlLink *link, size_t i, const Ipv4Prefix *wanted) {
        const RtnlAddress *a = &link->addresses[i];

        if (address_is_stray(a, wanted))
                return true;
        if (!(a->flags & IFA_F_SECONDARY))
                return false;
        for (size_t j = 0; j < link->n_addresses; j++) {
                const RtnlAddress *p = &link->addresses[j];
                uint32_t mask = netmask(p->prefixlen);

                if (j == i || (p->flags & IFA_F_SECONDARY) || p->prefixlen != a->prefixlen)
                        continue;
                if (((ntohl(p->address.s_addr) ^ ntohl(a->address.s_addr)) & mask) == 0 &&
                    address_is_stray(p, wanted))
                        return true;
        }
        return false;
}

void link_plan_done(LinkPlan *lp) {
        if (!lp)
                return;
        free(lp->link);
        free(lp->ifname);
        strv_free(lp->add_addresses);
        strv_free(lp->remove_addresses);
        free(lp->zone_from);
        free(lp->zone_to);
        free(lp->error);
        *lp = (LinkPlan){};
}

bool link_plan_is_empty(const LinkPlan *lp) {
        return lp->mtu_from == lp->mtu_to && !lp->set_up && strv_length(lp->add_addresses) == 0 &&
                strv_length(lp->remove_addresses) == 0 && !lp->zone_to;
}

static int address_string(const struct in_addr *a, uint8_t prefixlen, char **ret) {
        char buf[IPV4_PREFIX_STRING_MAX];
        Ipv4Prefix p = { .address = *a, .prefixlen = prefixlen };

        *ret = strdup(ipv4_prefix_to_string(&p, buf));
        return *ret ? 0 : -ENOMEM;
}

static int plan_error(LinkPlan *lp, const char *fmt, ...) _printf_(2, 3);
static int plan_error(LinkPlan *lp, const char *fmt, ...) {
        va_list ap;
        char *s;
        int r;

        va_start(ap, fmt);
        r = vasprintf(&s, fmt, ap);
        va_end(ap);
        if (r < 0)
                return -ENOMEM;
        free(lp->error);
        lp->error = s;
        return 0;
}

static int plan_zone(const ProfileLink *pl, const FirewallView *fw, LinkPlan *lp) {
        _cleanup_(freep) char *list = NULL;

        if (!pl->firewall_zone || !fw || !fw->running || !fw->zone)
                return 0; /* nothing asked, or nobody to ask: the zone check says so */
        if (streq(fw->zone, pl->firewall_zone))
                return 0;

        if (fw->zones && !strv_contains(fw->zones, pl->firewall_zone)) {
                list = strv_join(fw->zones, ", ");
                if (!list)
                        return -ENOMEM;
                return plan_error(
                        lp,
                        "firewalld has no zone '%s' (zones: %s); fix firewall-zone in the "
                        "profile or create the zone with firewall-cmd --permanent --new-zone=%s",
                        pl->firewall_zone,
                        list,
                        pl->firewall_zone);
        }
        lp->zone_from = strdup(fw->zone);
        lp->zone_to = strdup(pl->firewall_zone);
        return lp->zone_from && lp->zone_to ? 0 : -ENOMEM;
}

int link_plan_compute(
        const ProfileLink *pl,
        const NodeLink *nl,
        const char *ifname,
        const char *resolve_error,
        const RtnlState *state,
        const FirewallView *fw,
        LinkPlan *ret) {
        LinkPlan lp = {};
        const RtnlLink *link, *owner;
        char want[IPV4_PREFIX_STRING_MAX];
        int r;

        lp.link = strdup(nl->link);
        if (!lp.link)
                return -ENOMEM;
        ipv4_prefix_to_string(&nl->address, want);

        if (!pl) {
                r = plan_error(
                        &lp, "the node names link '%s', which the profile's links: section lacks", nl->link);
                goto finish;
        }
        if (!ifname) {
                r = plan_error(&lp, "%s", resolve_error ?: "the link's match names no network interface");
                goto finish;
        }
        lp.ifname = strdup(ifname);
        if (!lp.ifname) {
                r = -ENOMEM;
                goto finish;
        }

        link = rtnl_state_find_by_name(state, ifname);
        if (!link) {
                r = plan_error(
                        &lp,
                        "%s is listed in /sys/class/net but the kernel's link table (rtnetlink) "
                        "does not have it; was it just renamed or removed?",
                        ifname);
                goto finish;
        }

        owner = rtnl_state_find_address_owner(state, &nl->address.address, link->ifindex);
        if (owner) {
                r = plan_error(
                        &lp,
                        "address %s is already used by %s; remove it there (ip addr del %s dev %s) or "
                        "give this node another address in the profile",
                        want,
                        owner->name,
                        want,
                        owner->name);
                goto finish;
        }

        lp.mtu_from = lp.mtu_to = link->mtu;
        if (pl->mtu > 0)
                lp.mtu_to = pl->mtu;
        lp.set_up = !(link->flags & IFF_UP);

        for (size_t i = 0; i < link->n_addresses; i++) {
                const RtnlAddress *a = &link->addresses[i];
                char *s;

                if (!address_is_removed(link, i, &nl->address))
                        continue;
                r = address_string(&a->address, a->prefixlen, &s);
                if (r < 0)
                        goto finish;
                r = strv_consume(&lp.remove_addresses, s);
                if (r < 0)
                        goto finish;
        }
        if (!rtnl_link_find_address(link, &nl->address.address, nl->address.prefixlen)) {
                r = strv_extend(&lp.add_addresses, want);
                if (r < 0)
                        goto finish;
        }

        r = plan_zone(pl, fw, &lp);

finish:
        if (r < 0) {
                link_plan_done(&lp);
                return r;
        }
        *ret = lp;
        return 0;
}

bool node_wants_zones(const Profile *p, const ProfileNode *node) {
        for (size_t i = 0; i < node->n_links; i++) {
                const ProfileLink *pl = profile_find_link(p, node->links[i].link);

                if (pl && pl->firewall_zone)
                        return true;
        }
        return false;
}

char *link_plan_label(const LinkPlan *lp) {
        char *s;

        if (!lp->ifname)
                return strdup(lp->link);
        return asprintf(&s, "%s (%s)", lp->link, lp->ifname) < 0 ? NULL : s;
}

void plan_done(Plan *p) {
        if (!p)
                return;
        for (size_t i = 0; i < p->n_links; i++)
                link_plan_done(&p->links[i]);
        p->links = mfree(p->links);
        p->n_links = 0;
}

bool plan_is_empty(const Plan *p) {
        for (size_t i = 0; i < p->n_links; i++)
                if (p->links[i].error || !link_plan_is_empty(&p->links[i]))
                        return false;
        return true;
}

bool plan_has_errors(const Plan *p) {
        for (size_t i = 0; i < p->n_links; i++)
                if (p->links[i].error)
                        return true;
        return false;
}

static int describe_link(const LinkPlan *lp, char ***lines) {
        _cleanup_(freep) char *label = link_plan_label(lp);

        if (!label)
                return -ENOMEM;
        if (lp->error)
                return strv_extendf(lines, "%s: cannot apply: %s", label, lp->error);
        if (lp->mtu_from != lp->mtu_to &&
            strv_extendf(lines, "%s: mtu %u → %u", label, lp->mtu_from, lp->mtu_to) < 0)
                return -ENOMEM;
        if (lp->set_up && strv_extendf(lines, "%s: link down → up", label) < 0)
                return -ENOMEM;
        STRV_FOREACH(a, lp->remove_addresses)
                if (strv_extendf(lines, "%s: - %s", label, *a) < 0)
                        return -ENOMEM;
        STRV_FOREACH(a, lp->add_addresses)
                if (strv_extendf(lines, "%s: + %s", label, *a) < 0)
                        return -ENOMEM;
        if (lp->zone_to &&
            strv_extendf(
                    lines,
                    "%s: zone %s → %s",
                    label,
                    isempty(lp->zone_from) ? "(none)" : lp->zone_from,
                    lp->zone_to) < 0)
                return -ENOMEM;
        return 0;
}

int plan_describe(const Plan *p, char ***ret_lines) {
        _cleanup_(strv_freep) char **lines = NULL;
        int r;

        /* An empty, allocated list: callers can tell "nothing" from "failed". */
        lines = calloc(1, sizeof(char *));
        if (!lines)
                return -ENOMEM;
        for (size_t i = 0; i < p->n_links; i++) {
                r = describe_link(&p->links[i], &lines);
                if (r < 0)
                        return r;
        }
        *ret_lines = TAKE_PTR(lines);
        return 0;
}
