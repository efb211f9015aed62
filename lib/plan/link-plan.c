/* SPDX-License-Identifier: MIT */
/* Planning one link from observed state: pure functions, no I/O. */
#include <arpa/inet.h>
#include <linux/if_addr.h>
#include <net/if.h>
#include <stdio.h>

#include "basic/errorf.h"
#include "basic/etc-hosts.h"
#include "basic/strv.h"
#include "plan/hosts-plan.h"
#include "plan/plan.h"
#include "plan/qos-plan-host.h"
#include "plan/route-plan.h"

bool address_is_stray(const RtnlAddress *a, const Ipv4Prefix *wanted) {
        if (a->address.s_addr == wanted->address.s_addr && a->prefixlen == wanted->prefixlen)
                return false;
        if (a->proto == RTNL_ADDRESS_PROTO_HALOD)
                return true;
        if (a->address.s_addr == wanted->address.s_addr)
                return true;
        return ipv4_prefix_contains(wanted, a->address);
}

bool address_is_removed(const RtnlLink *link, size_t i, const Ipv4Prefix *wanted) {
        const RtnlAddress *a = &link->addresses[i];

        if (address_is_stray(a, wanted))
                return true;
        if (!(a->flags & IFA_F_SECONDARY))
                return false;
        for (size_t j = 0; j < link->n_addresses; j++) {
                const RtnlAddress *p = &link->addresses[j];
                uint32_t mask = ipv4_prefix_netmask(p->prefixlen);

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
        free(lp->remove_addresses);
        free(lp->zone_from);
        free(lp->zone_to);
        free(lp->want.zone);
        link_plan_dcb_free(lp->dcb);
        link_plan_qos_host_free(lp->qos_host);
        link_plan_routes_free(lp->routes);
        free(lp->error);
        *lp = (LinkPlan){};
}

bool link_plan_settings_are_empty(const LinkPlan *lp) {
        return lp->mtu_from == lp->mtu_to && !lp->set_up && lp->n_remove_addresses == 0 &&
                !lp->add_address && !lp->zone_to;
}

bool link_plan_is_empty(const LinkPlan *lp) {
        return link_plan_settings_are_empty(lp) && link_plan_dcb_is_empty(lp->dcb) &&
                link_plan_qos_host_is_empty(lp->qos_host) && link_plan_routes_is_empty(lp->routes);
}

/* The zone: a change when firewalld runs, was asked and has the interface elsewhere. */
static int plan_zone(const ProfileLink *pl, const FirewallView *fw, const char *fw_error, LinkPlan *lp) {
        _cleanup_(freep) char *list = NULL;

        if (!pl->firewall_zone || !fw || !fw->running)
                return 0; /* nothing asked, or nobody to ask: the zone check says so */
        if (fw_error)
                return lp->error
                        ? 0
                        : errorf(&lp->error, 0, "cannot read the firewall zone of %s: %s", lp->ifname, fw_error);
        if (!fw->zone || streq(fw->zone, pl->firewall_zone))
                return 0;

        lp->zone_from = strdup(fw->zone);
        lp->zone_to = strdup(pl->firewall_zone);
        if (!lp->zone_from || !lp->zone_to)
                return -ENOMEM;

        if (!fw->zones || strv_contains(fw->zones, pl->firewall_zone) || lp->error)
                return 0;
        list = strv_join(fw->zones, ", ");
        if (!list)
                return -ENOMEM;
        return errorf(
                &lp->error,
                0,
                "firewalld has no zone '%s' (zones: %s); fix firewall-zone in the profile or create the zone "
                "with firewall-cmd --permanent --new-zone=%s",
                pl->firewall_zone,
                list,
                pl->firewall_zone);
}

static int plan_addresses(const RtnlLink *link, const Ipv4Prefix *wanted, LinkPlan *lp) {
        for (size_t i = 0; i < link->n_addresses; i++) {
                RtnlAddress *a;

                if (!address_is_removed(link, i, wanted))
                        continue;
                a = reallocarray(lp->remove_addresses, lp->n_remove_addresses + 1, sizeof(RtnlAddress));
                if (!a)
                        return -ENOMEM;
                lp->remove_addresses = a;
                lp->remove_addresses[lp->n_remove_addresses++] = link->addresses[i];
        }
        lp->add_address = !rtnl_link_find_address(link, &wanted->address, wanted->prefixlen);
        return 0;
}

int link_plan_compute(
        const ProfileLink *pl,
        const NodeLink *nl,
        const char *ifname,
        const char *resolve_error,
        const RtnlState *state,
        const FirewallView *fw,
        const char *fw_error,
        LinkPlan *ret) {
        _cleanup_(link_plan_done) LinkPlan lp = { .address = nl->address };
        const RtnlLink *link, *owner;
        char want[IPV4_PREFIX_STRING_MAX];
        int r;

        lp.link = strdup(nl->link);
        if (!lp.link)
                return -ENOMEM;
        ipv4_prefix_to_string(&nl->address, want);

        if (!pl)
                r = errorf(
                        &lp.error,
                        0,
                        "the node names link '%s', which the profile's links: section lacks",
                        nl->link);
        else if (!ifname)
                r = errorf(&lp.error, 0, "%s", resolve_error ?: "the link's match names no network interface");
        else if (!(lp.ifname = strdup(ifname)))
                r = -ENOMEM;
        else if (pl->firewall_zone && !(lp.want.zone = strdup(pl->firewall_zone)))
                r = -ENOMEM;
        else if (!(link = rtnl_state_find_by_name(state, ifname)))
                r = errorf(
                        &lp.error,
                        0,
                        "%s is listed in /sys/class/net but the kernel's link table (rtnetlink) does not "
                        "have it; was it just renamed or removed?",
                        ifname);
        else {
                lp.want.mtu = pl->mtu;
                lp.want.ipv6 = pl->ipv6;
                lp.ifindex = link->ifindex;
                lp.max_mtu = link->max_mtu;
                lp.mtu_from = lp.mtu_to = link->mtu;
                if (pl->mtu > 0)
                        lp.mtu_to = pl->mtu;
                lp.set_up = !(link->flags & IFF_UP);

                owner = rtnl_state_find_address_owner(state, &nl->address.address, link->ifindex);
                r = owner ? errorf(&lp.error,
                                   0,
                                   "address %s is already used by %s; remove it there (ip addr del %s dev %s) "
                                   "or give this node another address in the profile",
                                   want,
                                   owner->name,
                                   want,
                                   owner->name)
                          : 0;
                if (r >= 0)
                        r = plan_addresses(link, &nl->address, &lp);
                if (r >= 0)
                        r = plan_zone(pl, fw, fw_error, &lp);
        }
        if (r < 0)
                return r;
        *ret = lp;
        lp = (LinkPlan){};
        return 0;
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
        p->hosts = hosts_plan_free(p->hosts);
}

bool plan_is_empty(const Plan *p) {
        for (size_t i = 0; i < p->n_links; i++)
                if (p->links[i].error || !link_plan_is_empty(&p->links[i]))
                        return false;
        return !p->hosts;
}

bool plan_has_errors(const Plan *p) {
        for (size_t i = 0; i < p->n_links; i++)
                if (p->links[i].error)
                        return true;
        return p->hosts && p->hosts->error;
}
