/* SPDX-License-Identifier: MIT */
/* plan_node(): reads the kernel (rtnetlink) and firewalld once and computes every link's plan. */
#include <stdio.h>
#include <systemd/sd-bus.h>

#include "basic/strv.h"
#include "net/firewalld.h"
#include "nic/link-match.h"
#include "plan/plan.h"

static int plan_one_link(
        const NodeContext *c, const NodeLink *nl, const RtnlState *state, sd_bus **bus, LinkPlan *ret) {
        _cleanup_(freep) char *ifname = NULL, *resolve_error = NULL, *zone = NULL, *fw_error = NULL;
        _cleanup_(strv_freep) char **zones = NULL;
        const ProfileLink *pl = profile_find_link(c->profile, nl->link);
        FirewallView fw = {};
        int r;

        if (pl) {
                r = link_match_resolve(
                        c->host, profile_node_link_match(c->profile, nl), &ifname, &resolve_error);
                if (r == -ENOMEM)
                        return r;
        }

        if (pl && ifname && pl->firewall_zone && *bus) {
                r = firewalld_get_zone_of_interface(*bus, ifname, &zone, &fw_error);
                if (r == -ENOMEM)
                        return r;
                if (r == -ESRCH) {
                        /* firewalld does not run: the answer for every link of this plan. */
                        *bus = sd_bus_flush_close_unref(*bus);
                        fw_error = mfree(fw_error);
                }
                /* Ask for the zone list only when the zone is to change: it is the slow call. */
                if (r >= 0 && !streq(zone, pl->firewall_zone)) {
                        r = firewalld_get_zones(*bus, &zones, &fw_error);
                        if (r == -ENOMEM)
                                return r;
                }
                fw.zone = zone;
                fw.zones = zones;
        }
        fw.running = *bus != NULL;

        r = link_plan_compute(pl, nl, ifname, resolve_error, state, &fw, ret);
        if (r < 0)
                return r;
        if (fw_error && !ret->error) {
                if (asprintf(&ret->error, "cannot read the firewall zone of %s: %s", ifname, fw_error) < 0) {
                        ret->error = NULL;
                        return -ENOMEM;
                }
        }
        return 0;
}

int plan_node(const NodeContext *c, Plan *ret) {
        _cleanup_(rtnl_closep) Rtnl *rtnl = NULL;
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        RtnlState state = {};
        Plan p = {};
        int r;

        if (!c || !c->profile || !c->node)
                return -EINVAL;

        r = rtnl_open(&rtnl);
        if (r < 0)
                return r;
        r = rtnl_dump(rtnl, &state, NULL);
        if (r < 0)
                return r;
        /* One connection for the whole plan; whether firewalld runs, its first answer says. */
        if (node_wants_zones(c->profile, c->node))
                (void) firewalld_open(&bus);

        p.links = calloc(c->node->n_links ?: 1, sizeof(LinkPlan));
        if (!p.links) {
                r = -ENOMEM;
                goto finish;
        }
        for (size_t i = 0; i < c->node->n_links; i++) {
                r = plan_one_link(c, &c->node->links[i], &state, &bus, &p.links[i]);
                if (r < 0)
                        goto finish;
                p.n_links++;
        }
        *ret = p;
        p = (Plan){};
        r = 0;

finish:
        plan_done(&p);
        rtnl_state_done(&state);
        return r;
}
