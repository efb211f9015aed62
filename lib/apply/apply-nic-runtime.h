/* SPDX-License-Identifier: MIT */
/* The NIC's runtime settings the profile asks for (nic.fw-lldp-agent, nic.enable-roce): what differs on
 * the fabric links of the node, read from the running kernel (ethtool's private flags, devlink's
 * parameters), and setting them, with halod's own CAP_NET_ADMIN. enable_roce is a runtime devlink
 * parameter, the driver's state, which a driver reload or a reboot resets. fw-lldp-agent is not: ice
 * has the firmware keep it across reboots (ice_ethtool.c, ice_set_priv_flags(): ice_aq_stop_lldp() and
 * ice_aq_start_lldp() with persist true) and reads it back at each load (ice_dcb_lib.c,
 * ice_init_pf_dcb()). Both are compared and set where they differ at each start, after a reload of the
 * profile that changes them and when a link's netdev comes back (daemon/halod/manager-nic-runtime.c). */
#pragma once

#include "plan/plan.h"

typedef enum NicRuntimeSetting {
        NIC_RUNTIME_FW_LLDP_AGENT, /* ice's private flag "fw-lldp-agent" of the netdev */
        NIC_RUNTIME_ENABLE_ROCE,   /* devlink's generic enable_roce of the PCI function (cmode runtime) */
        _NIC_RUNTIME_SETTING_MAX,
        _NIC_RUNTIME_SETTING_INVALID = -EINVAL,
} NicRuntimeSetting;

typedef struct NicRuntimeChange {
        NicRuntimeSetting setting;
        char *link;   /* "rdma0" */
        char *ifname; /* "enp194s0f0np0" */
        char *pci;    /* "0000:c2:00.0" (enable_roce) */
        bool from, to;
        bool iwarp_off; /* enable_roce: ice refuses RoCE while iWARP is on, so enable_iwarp goes off first */
        char *error;    /* why it cannot be read or set here; nothing is set then */
} NicRuntimeChange;

typedef struct NicRuntimePlan {
        NicRuntimeChange *changes; /* only what differs, and what cannot be read */
        size_t n_changes;
        bool not_read; /* --root: the settings live in the running kernel, not in a tree */
} NicRuntimePlan;

void nic_runtime_plan_done(NicRuntimePlan *p);
/* Compares the node's NIC settings on each link of links (plan_node()'s) with what the profile asks.
 * Returns 0 or -ENOMEM; what cannot be read is a change with its error. */
int nic_runtime_plan_compute(const NodeContext *c, const Plan *links, NicRuntimePlan *ret);
bool nic_runtime_plan_has_errors(const NicRuntimePlan *p) _pure_;
/* "nic: rdma0 (enp194s0f0np0): fw-lldp-agent on → off (ethtool --set-priv-flags enp194s0f0np0
 * fw-lldp-agent off)", appended to *lines. */
int nic_runtime_plan_describe(const NicRuntimePlan *p, char ***lines);
/* Sets what differs. One line per setting made is appended to *ret_done, one per failure to *ret_failed
 * (the kernel's or the driver's words); a failure leaves the other settings to be tried. Returns the
 * number of failures, or -ENOMEM. */
int apply_nic_runtime(const NicRuntimePlan *p, char ***ret_done, char ***ret_failed);
