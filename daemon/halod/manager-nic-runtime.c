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

void manager_apply_nic_runtime(Manager *m) {
        _cleanup_(nic_runtime_plan_done) NicRuntimePlan nic = {};
        _cleanup_(strv_freep) char **lines = NULL, **done = NULL, **failed = NULL;
        _cleanup_(plan_done) Plan links = {};
        const ProfileNic *want = profile_node_nic(m->profile, m->node);
        NodeContext c = { .host = &m->host, .profile = m->profile, .node = m->node };
        int r;

        if (!want || (!want->has_fw_lldp_agent && !want->enable_roce) ||
            !profile_may_change_host(m->profile, /* force= */ false))
                return;
        r = plan_node(&c, &links);
        if (r >= 0)
                r = nic_runtime_plan_compute(&c, &links, &nic);
        if (r >= 0 && nic_runtime_plan_has_errors(&nic))
                r = nic_runtime_plan_describe(&nic, &lines);
        if (r >= 0)
                r = apply_nic_runtime(&nic, &done, &failed);
        if (r < 0) {
                log_warning_errno(r, "Failed to set the NIC's runtime settings, ignoring: %m");
                return;
        }
        STRV_FOREACH(l, done)
                log_info("Set the NIC's runtime setting: %s", *l);
        STRV_FOREACH(l, lines)
                log_warning("%s", *l);
        STRV_FOREACH(l, failed)
                log_warning("%s", *l);
}
