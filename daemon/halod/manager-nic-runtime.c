/* SPDX-License-Identifier: MIT */
/* The NIC's runtime settings (nic.fw-lldp-agent, nic.enable-roce), set where they differ with halod's own
 * CAP_NET_ADMIN (ETHTOOL_SPFLAGS and devlink's PARAM_SET both ask for no more), in enforce mode, before
 * the first verify. enable_roce is the driver's state, which a driver reload resets; the firmware keeps
 * fw-lldp-agent (apply/apply-nic-runtime.h says where ice does so). */
#include "manager-nic-runtime.h"
#include "apply/apply-nic-runtime.h"
#include "basic/strv.h"
#include "log.h"
#include "manager.h"

int manager_apply_nic_runtime(Manager *m) {
        _cleanup_(nic_runtime_plan_done) NicRuntimePlan nic = {};
        _cleanup_(strv_freep) char **lines = NULL, **done = NULL, **failed = NULL;
        _cleanup_(plan_done) Plan links = {};
        const ProfileNic *want = profile_node_nic(m->profile, m->node);
        NodeContext c = { .host = &m->host, .profile = m->profile, .node = m->node };
        int r;

        m->nic_runtime_due = false;
        if (!want || (!want->has_fw_lldp_agent && !want->enable_roce) ||
            !profile_may_change_host(m->profile, /* force= */ false))
                return 0;
        r = plan_node(&c, &links);
        if (r >= 0)
                r = nic_runtime_plan_compute(&c, &links, &nic);
        if (r >= 0 && nic_runtime_plan_has_errors(&nic))
                r = nic_runtime_plan_describe(&nic, &lines);
        if (r >= 0)
                r = apply_nic_runtime(&nic, &done, &failed);
        if (r < 0) {
                log_warning_errno(r, "Failed to set the NIC's runtime settings, ignoring: %m");
                return 0;
        }
        STRV_FOREACH(l, done)
                log_info("Set the NIC's runtime setting: %s", *l);
        STRV_FOREACH(l, lines)
                log_warning("%s", *l);
        STRV_FOREACH(l, failed)
                log_warning("%s", *l);
        return (int) strv_length(done);
}

/* What a profile asks of the NIC's runtime settings, as halod would act on it: -1 for what it leaves
 * alone. */
static void nic_runtime_asked(const Profile *p, const ProfileNode *node, int *ret_lldp, int *ret_roce) {
        const ProfileNic *want = p && node ? profile_node_nic(p, node) : NULL;
        bool may = want && profile_may_change_host(p, /* force= */ false);

        *ret_lldp = may && want->has_fw_lldp_agent ? want->fw_lldp_agent : -1;
        *ret_roce = may && want->enable_roce ? 1 : -1;
}

void manager_nic_runtime_reloaded(Manager *m, const Profile *old, const ProfileNode *old_node) {
        int lldp, roce, old_lldp, old_roce;

        nic_runtime_asked(m->profile, m->node, &lldp, &roce);
        nic_runtime_asked(old, old_node, &old_lldp, &old_roce);
        /* Before the reload's apply, as at start: the host's DCB settings stick only with the firmware's
         * LLDP agent off. */
        if ((lldp >= 0 && lldp != old_lldp) || (roce >= 0 && roce != old_roce))
                (void) manager_apply_nic_runtime(m);
}

bool nic_runtime_netdev_came_back(const FabricPort *old, size_t n_old, const FabricPort *ports, size_t n) {
        for (size_t i = 0; i < n; i++) {
                if (ports[i].ifindex <= 0)
                        continue;
                for (size_t j = 0; j < n_old; j++)
                        if (streq(old[j].link, ports[i].link) && old[j].ifindex != ports[i].ifindex)
                                return true;
        }
        return false;
}

void manager_nic_runtime_due(Manager *m) {
        m->nic_runtime_due = true;
        /* A job reads the host now: the settings wait for it (manager_watch_host_idle()). */
        if (!job_lane_busy(&m->host_jobs))
                (void) manager_apply_nic_runtime(m);
}
