/* SPDX-License-Identifier: MIT */
/* nic.fw-lldp-agent and nic.enable-roce: read from the running kernel, compared, set. ice turns its
 * firmware's LLDP agent off with the private flag "fw-lldp-agent" (ice_ethtool.c, ice_set_priv_flags():
 * the host's DCBX then decides PFC and trust), and registers enable_roce and enable_iwarp as runtime
 * devlink parameters that plug irdma's auxiliary device in that mode (devlink.c, ice_dvl_rdma_params;
 * ice_devlink_enable_roce_validate() refuses RoCE while iWARP is on). mlx5 registers enable_roce for
 * driverinit only, which takes a devlink reload that halod does not do. */
#include <stdio.h>

#include "apply/apply-nic-runtime.h"
#include "basic/strv.h"
#include "nic/devlink.h"
#include "nic/ethtool.h"
#include "nic/netdev-pci.h"

#define FW_LLDP_FLAG "fw-lldp-agent"

void nic_runtime_plan_done(NicRuntimePlan *p) {
        for (size_t i = 0; i < p->n_changes; i++) {
                free(p->changes[i].link);
                free(p->changes[i].ifname);
                free(p->changes[i].pci);
                free(p->changes[i].error);
        }
        p->changes = mfree(p->changes);
        p->n_changes = 0;
}

static NicRuntimeChange *add_change(NicRuntimePlan *p, NicRuntimeSetting s, const LinkPlan *lp, const char *pci) {
        NicRuntimeChange *grown = reallocarray(p->changes, p->n_changes + 1, sizeof(NicRuntimeChange));
        NicRuntimeChange *c;

        if (!grown)
                return NULL;
        p->changes = grown;
        c = &p->changes[p->n_changes];
        *c = (NicRuntimeChange){ .setting = s, .link = strdup(lp->link), .ifname = strdup(lp->ifname) };
        if (pci)
                c->pci = strdup(pci);
        p->n_changes++;
        if (!c->link || !c->ifname || (pci && !c->pci))
                return NULL;
        return c;
}

static int plan_fw_lldp(const LinkPlan *lp, bool want, NicRuntimePlan *p) {
        NicRuntimeChange *c;
        bool on = false;
        int r;

        r = ethtool_get_private_flag(lp->ifname, FW_LLDP_FLAG, &on);
        if (r == 0 && on == want)
                return 0;
        c = add_change(p, NIC_RUNTIME_FW_LLDP_AGENT, lp, NULL);
        if (!c)
                return -ENOMEM;
        c->from = on;
        c->to = want;
        if (r == -ENOENT)
                r = asprintf(
                        &c->error,
                        "its driver has no private flag %s (an E810's ice has it: `ethtool --show-priv-flags "
                        "%s`)",
                        FW_LLDP_FLAG,
                        lp->ifname);
        else if (r < 0)
                r = asprintf(&c->error, "cannot read its private flags: %s", strerror(-r));
        return r < 0 ? -ENOMEM : 0;
}

static int param_runtime(const char *pci, const char *name, bool *ret, char **ret_error) {
        _cleanup_(devlink_param_done) DevlinkParam param = {};
        const DevlinkParamValue *v;
        int r;

        r = devlink_get_param("pci", pci, name, &param, ret_error);
        if (r < 0)
                return r;
        v = devlink_param_value(&param, DEVLINK_PARAM_CMODE_RUNTIME);
        if (!v)
                return -EOPNOTSUPP;
        *ret = v->number != 0;
        return 0;
}

static int plan_enable_roce(const NodeContext *ctx, const LinkPlan *lp, char ***seen, NicRuntimePlan *p) {
        _cleanup_(freep) char *pci = NULL, *error = NULL;
        NicRuntimeChange *c;
        bool roce = false, iwarp = false;
        int r;

        r = netdev_pci_address(ctx->host, lp->ifname, &pci, NULL, NULL);
        if (r == -ENOMEM)
                return r;
        if (r >= 0 && strv_contains(*seen, pci))
                return 0; /* one devlink instance per PCI function, whatever the links on it */
        if (r >= 0 && strv_extend(seen, pci) < 0)
                return -ENOMEM;
        if (r >= 0)
                r = param_runtime(pci, "enable_roce", &roce, &error);
        if (r == 0 && roce)
                return 0;
        c = add_change(p, NIC_RUNTIME_ENABLE_ROCE, lp, pci);
        if (!c)
                return -ENOMEM;
        c->to = true;
        if (r == 0) {
                /* Off: iWARP may be what the driver came up in (irdma's roce_ena=0, the default). */
                c->iwarp_off = param_runtime(pci, "enable_iwarp", &iwarp, NULL) == 0 && iwarp;
                return 0;
        }
        if (r == -EOPNOTSUPP)
                r = asprintf(
                        &c->error,
                        "its driver does not set enable_roce at runtime (mlx5: driverinit, which takes a "
                        "reload that halod does not do: `devlink dev param set pci/%s name enable_roce value "
                        "true cmode driverinit` and `devlink dev reload pci/%s`)",
                        pci,
                        pci);
        else if (!pci)
                r = asprintf(&c->error, "it is not a PCI function's netdev (%s)", strerror(-r));
        else
                r = asprintf(
                        &c->error,
                        "cannot read devlink's enable_roce of pci/%s: %s",
                        pci,
                        error
                                ?: r == -ENOENT ? "the driver has no such parameter"
                                                : devlink_strerror(r));
        return r < 0 ? -ENOMEM : 0;
}

int nic_runtime_plan_compute(const NodeContext *c, const Plan *links, NicRuntimePlan *ret) {
        const ProfileNic *nic = node_context_nic(c);
        _cleanup_(nic_runtime_plan_done) NicRuntimePlan p = {};
        _cleanup_(strv_freep) char **seen = NULL;
        int r;

        *ret = (NicRuntimePlan){};
        if (!nic || (!nic->has_fw_lldp_agent && !nic->enable_roce))
                return 0;
        if (!host_is_running_system(c->host)) {
                ret->not_read = true;
                return 0;
        }
        for (size_t i = 0; i < links->n_links; i++) {
                const LinkPlan *lp = &links->links[i];

                if (!lp->ifname)
                        continue; /* the link's own error says why */
                if (nic->has_fw_lldp_agent) {
                        r = plan_fw_lldp(lp, nic->fw_lldp_agent, &p);
                        if (r < 0)
                                return r;
                }
                if (nic->enable_roce) {
                        r = plan_enable_roce(c, lp, &seen, &p);
                        if (r < 0)
                                return r;
                }
        }
        *ret = p;
        p = (NicRuntimePlan){};
        return 0;
}

bool nic_runtime_plan_has_errors(const NicRuntimePlan *p) {
        for (size_t i = 0; i < p->n_changes; i++)
                if (p->changes[i].error)
                        return true;
        return false;
}

static const char *on_off(bool b) {
        return b ? "on" : "off";
}

static int describe_one(const NicRuntimeChange *c, char ***lines) {
        if (c->setting == NIC_RUNTIME_FW_LLDP_AGENT && c->error)
                return strv_extendf(
                        lines, "nic: %s (%s): cannot set " FW_LLDP_FLAG ": %s", c->link, c->ifname, c->error);
        if (c->setting == NIC_RUNTIME_FW_LLDP_AGENT)
                return strv_extendf(
                        lines,
                        "nic: %s (%s): " FW_LLDP_FLAG " %s → %s (ethtool --set-priv-flags %s " FW_LLDP_FLAG
                        " %s)",
                        c->link,
                        c->ifname,
                        on_off(c->from),
                        on_off(c->to),
                        c->ifname,
                        on_off(c->to));
        if (c->error)
                return strv_extendf(
                        lines, "nic: %s (%s): cannot set enable_roce: %s", c->link, c->ifname, c->error);
        return strv_extendf(
                lines,
                "nic: %s (%s, pci/%s): enable_roce false → true (devlink dev param set pci/%s name enable_roce "
                "value true cmode runtime%s)",
                c->link,
                c->ifname,
                c->pci,
                c->pci,
                c->iwarp_off ? ", after enable_iwarp false: the driver came up in iWARP mode" : "");
}

int nic_runtime_plan_describe(const NicRuntimePlan *p, char ***lines) {
        int r;

        if (p->not_read)
                return strv_extend(
                        lines,
                        "nic: fw-lldp-agent and enable-roce are read from the running kernel, not below --root");
        for (size_t i = 0; i < p->n_changes; i++) {
                r = describe_one(&p->changes[i], lines);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int set_roce(const NicRuntimeChange *c, char **error) {
        int r;

        if (c->iwarp_off) {
                r = devlink_set_param_bool(
                        "pci", c->pci, "enable_iwarp", false, DEVLINK_PARAM_CMODE_RUNTIME, error);
                if (r < 0)
                        return r;
        }
        r = devlink_set_param_bool("pci", c->pci, "enable_roce", true, DEVLINK_PARAM_CMODE_RUNTIME, error);
        if (r < 0 && c->iwarp_off)
                /* Back to the mode it came up in: irdma with iWARP rather than no RDMA device at all. */
                (void) devlink_set_param_bool(
                        "pci", c->pci, "enable_iwarp", true, DEVLINK_PARAM_CMODE_RUNTIME, NULL);
        return r;
}

int apply_nic_runtime(const NicRuntimePlan *p, char ***ret_done, char ***ret_failed) {
        int failures = 0, r;

        for (size_t i = 0; i < p->n_changes; i++) {
                const NicRuntimeChange *c = &p->changes[i];
                _cleanup_(freep) char *error = NULL, *what = NULL;
                _cleanup_(strv_freep) char **line = NULL;

                if (c->error)
                        continue; /* the plan's line says why; nothing to try */
                if (c->setting == NIC_RUNTIME_FW_LLDP_AGENT)
                        r = ethtool_set_private_flag(c->ifname, FW_LLDP_FLAG, c->to);
                else
                        r = set_roce(c, &error);
                if (describe_one(c, &line) < 0)
                        return -ENOMEM;
                if (r >= 0) {
                        if (strv_extend(ret_done, line[0]) < 0)
                                return -ENOMEM;
                        continue;
                }
                failures++;
                if (strv_extendf(ret_failed, "%s: failed: %s", line[0], error ?: strerror(-r)) < 0)
                        return -ENOMEM;
        }
        return failures;
}
