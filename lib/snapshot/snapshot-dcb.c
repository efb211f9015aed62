/* SPDX-License-Identifier: MIT */
/* SNAPSHOT_DCB: the DCB state (DCB netlink) of each node link whose qos: asks for it, and whether an
 * E810's firmware LLDP agent is on (its fw-lldp-agent private flag). */
#include "net/dcb.h"
#include "nic/ethtool.h"
#include "nic/nic-family.h"
#include "snapshot/snapshot.h"

void snapshot_forget_dcb(Snapshot *s) {
        for (size_t i = 0; s->dcb && i < s->n_ports; i++)
                free(s->dcb[i].message);
        s->dcb = mfree(s->dcb);
}

/* ice's private flag; the firmware agent, when on, takes DCB over from the host (DCBX willing). */
static int read_lldp_agent(const char *ifname) {
        EthtoolDriverInfo info;
        bool on = false;
        int r;

        r = ethtool_get_driver_info(ifname, &info);
        if (r < 0)
                return r;
        if (nic_family_from_driver(info.driver) != NIC_FAMILY_E810)
                return -ENOMEDIUM;
        r = ethtool_get_private_flag(ifname, "fw-lldp-agent", &on);
        return r < 0 ? r : on;
}

int snapshot_read_dcb(Snapshot *s) {
        const NodeContext *c = s->context;
        _cleanup_(rtnl_closep) Rtnl *rtnl = NULL;
        int r;

        s->dcb = calloc(s->n_ports ?: 1, sizeof(SnapshotDcb));
        if (!s->dcb)
                return -ENOMEM;
        for (size_t i = 0; i < s->n_ports; i++)
                s->dcb[i] = (SnapshotDcb){ .error = -ENOMEDIUM, .lldp_agent = -ENOMEDIUM };

        /* DCB netlink, like rtnetlink, only ever shows the running kernel. */
        if (!c->node || !host_is_running_system(c->host))
                return 0;
        for (size_t i = 0; i < s->n_ports && i < c->node->n_links; i++) {
                const ProfileLink *pl = profile_find_link(c->profile, c->node->links[i].link);
                SnapshotDcb *d = &s->dcb[i];

                if (!pl || !qos_wants_dcb(&pl->qos) || !snapshot_kernel_link(s, i))
                        continue;
                if (!rtnl) {
                        r = rtnl_open(&rtnl);
                        if (r == -ENOMEM)
                                return r;
                        if (r < 0) {
                                d->error = r;
                                continue;
                        }
                }
                r = dcb_get(rtnl, s->ports[i].ifname, &d->state, &d->message);
                if (r == -ENOMEM)
                        return r;
                d->error = r < 0 ? r : 0;
                d->lldp_agent = read_lldp_agent(s->ports[i].ifname);
        }
        return 0;
}
