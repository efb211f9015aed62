/* SPDX-License-Identifier: MIT */
/* plan_from_snapshot(): every link of a node planned from one snapshot of the host. */
#include "plan/hosts-plan.h"
#include "plan/plan.h"
#include "plan/qos-plan-host.h"
#include "plan/route-plan.h"

int link_plan_from_snapshot(const Snapshot *s, size_t i, LinkPlan *ret) {
        const NodeContext *c = s->context;
        const NodeLink *nl;
        const ProfileLink *pl;
        const SnapshotZone *z = s->zones && i < s->n_ports ? &s->zones[i] : NULL;
        FirewallView fw = {
                .running = s->firewalld_running,
                .zone = z ? z->zone : NULL,
                .zones = s->firewalld_zones,
        };
        const char *fw_error = z ? z->error : NULL;
        int r;

        if (!c->node || !(s->parts & SNAPSHOT_PORTS) || i >= s->n_ports)
                return -EINVAL;
        nl = &c->node->links[i];
        pl = profile_find_link(c->profile, nl->link);

        /* The zone list is asked for once, when some zone is to change: its failure is each such link's. */
        if (!fw_error && pl && pl->firewall_zone && fw.zone && !streq(fw.zone, pl->firewall_zone))
                fw_error = s->firewalld_zones_error;
        r = link_plan_compute(
                pl, nl, s->ports[i].ifname, s->ports[i].resolve_error, &s->kernel, &fw, fw_error, ret);
        if (r < 0)
                return r;
        ret->want.routes = c->node->routes;
        ret->want.n_routes = c->node->n_routes;
        ret->want.forwarding = c->node->forwarding;
        r = link_plan_dcb_compute(pl, s->dcb && (s->parts & SNAPSHOT_DCB) ? &s->dcb[i] : NULL, ret);
        if (r < 0) {
                link_plan_done(ret);
                return r;
        }
        r = link_plan_qos_host_compute(
                pl, s->qos_host && (s->parts & SNAPSHOT_QOS_HOST) ? &s->qos_host[i] : NULL, ret);
        if (r < 0) {
                link_plan_done(ret);
                return r;
        }
        /* Only from a kernel that was read: without it every route would look missing. */
        if (ret->ifindex > 0 && (s->parts & SNAPSHOT_LINKS) && s->kernel_error >= 0) {
                r = link_plan_routes_compute(
                        c->node,
                        nl->link,
                        s->kernel.routes,
                        s->kernel.n_routes,
                        s->forwarding ? s->forwarding[i] : -ENOMEDIUM,
                        ret);
                if (r < 0) {
                        link_plan_done(ret);
                        return r;
                }
        }
        return 0;
}

int plan_from_snapshot(Snapshot *s, Plan *ret) {
        const NodeContext *c = s->context;
        _cleanup_(plan_done) Plan p = {};
        int r;

        if (!c || !c->profile || !c->node)
                return -EINVAL;

        r = snapshot_read(s, SNAPSHOT_LINKS | SNAPSHOT_DCB | SNAPSHOT_QOS_HOST);
        if (r < 0)
                return r;
        if (s->kernel_error < 0)
                return s->kernel_error;

        p.links = calloc(c->node->n_links ?: 1, sizeof(LinkPlan));
        if (!p.links)
                return -ENOMEM;
        for (size_t i = 0; i < c->node->n_links; i++) {
                r = link_plan_from_snapshot(s, i, &p.links[i]);
                if (r < 0)
                        return r;
                p.n_links++;
        }
        r = hosts_plan_compute(c, &p.hosts);
        if (r < 0)
                return r;
        *ret = p;
        p = (Plan){};
        return 0;
}

int plan_node(const NodeContext *c, Plan *ret) {
        _cleanup_(snapshot_done) Snapshot s = {};

        snapshot_init(&s, c);
        return plan_from_snapshot(&s, ret);
}
