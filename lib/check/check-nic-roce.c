/* SPDX-License-Identifier: MIT */
/* nic.roce's decision: whether the NIC runs RoCE, from devlink's enable_roce (and, on the E810, which
 * can run iWARP instead, enable_iwarp): RoCE v2 needs the first. */
#include <stdio.h>

#include "check/check-nic.h"

/* The mode the driver applies the parameter in: runtime first (ice), else driverinit (mlx5, which
 * takes it at the next `devlink dev reload`), else permanent. NULL when it reports none. */
static const DevlinkParamValue *param_effective(const DevlinkParam *p, enum devlink_param_cmode *ret_cmode) {
        static const enum devlink_param_cmode order[] = {
                DEVLINK_PARAM_CMODE_RUNTIME,
                DEVLINK_PARAM_CMODE_DRIVERINIT,
                DEVLINK_PARAM_CMODE_PERMANENT,
        };

        for (size_t i = 0; i < ELEMENTSOF(order); i++) {
                const DevlinkParamValue *v = devlink_param_value(p, order[i]);

                if (v) {
                        *ret_cmode = order[i];
                        return v;
                }
        }
        return NULL;
}

int check_nic_roce_fix(const char *pci, enum devlink_param_cmode cmode, bool iwarp_on, char **ret) {
        const char *mode = devlink_param_cmode_to_string(cmode);
        _cleanup_(freep) char *iwarp_off = NULL, *reload = NULL;

        if (iwarp_on &&
            asprintf(
                    &iwarp_off,
                    "`devlink dev param set pci/%s name enable_iwarp value false cmode %s`, then ",
                    pci,
                    mode) < 0)
                return -ENOMEM;
        if (cmode == DEVLINK_PARAM_CMODE_DRIVERINIT &&
            asprintf(&reload, ", then `devlink dev reload pci/%s`", pci) < 0)
                return -ENOMEM;
        return asprintf(
                       ret,
                       "%s`devlink dev param set pci/%s name enable_roce value true cmode %s`%s",
                       strempty(iwarp_off),
                       pci,
                       mode,
                       strempty(reload)) < 0
                ? -ENOMEM
                : 0;
}

/* Nothing to judge: a NIC halod does not know, or devlink's enable_roce not read. */
static int roce_not_read(const char *pci, NicFamily family, const char *driver, int roce_error, PortCheck *ret) {
        if (family == NIC_FAMILY_UNKNOWN)
                return port_check_set(
                        ret,
                        CHECK_SKIP,
                        "RoCE",
                        NULL,
                        "halod does not know how NIC driver %s switches RoCE on",
                        strna(driver));
        if (roce_error == -ENOMEDIUM)
                return port_check_set(
                        ret,
                        CHECK_SKIP,
                        "RoCE",
                        NULL,
                        "the RDMA protocol comes from the running kernel (devlink), which does not describe the "
                        "tree given with --root");
        if (roce_error == -ENOENT)
                return port_check_set(
                        ret,
                        CHECK_SKIP,
                        "RoCE",
                        NULL,
                        "the driver of %s has no devlink parameter enable_roce (a kernel from before it), so RoCE "
                        "is the driver's default; rdma.gid shows whether RoCE v2 GID entries exist",
                        pci);
        return port_check_set(
                ret,
                CHECK_SKIP,
                "RoCE",
                NULL,
                "could not look at the RDMA protocol of %s: devlink's enable_roce: %s",
                pci,
                devlink_strerror(roce_error));
}

int check_nic_roce_evaluate(
        const char *pci,
        NicFamily family,
        const char *driver,
        const DevlinkParam *roce,
        int roce_error,
        const DevlinkParam *iwarp,
        int iwarp_error,
        PortCheck *ret) {
        _cleanup_(freep) char *fix = NULL, *actual = NULL;
        const DevlinkParamValue *v, *iw = NULL;
        enum devlink_param_cmode cmode, iwarp_cmode;
        bool iwarp_on;

        if (family == NIC_FAMILY_UNKNOWN || roce_error < 0)
                return roce_not_read(pci, family, driver, roce_error, ret);

        v = param_effective(roce, &cmode);
        if (!v || roce->type != DEVLINK_PARAM_BOOL)
                return port_check_set(
                        ret, CHECK_SKIP, "RoCE", NULL, "devlink's enable_roce of %s reports no boolean value", pci);
        if (asprintf(
                    &actual,
                    "enable_roce %s (%s)",
                    v->number ? "true" : "false",
                    devlink_param_cmode_to_string(cmode)) < 0)
                return -ENOMEM;
        if (v->number)
                return port_check_set(
                        ret,
                        CHECK_PASS,
                        "RoCE",
                        actual,
                        "RoCE is on for %s (devlink enable_roce, %s)",
                        pci,
                        devlink_param_cmode_to_string(cmode));

        if (iwarp_error >= 0)
                iw = param_effective(iwarp, &iwarp_cmode);
        iwarp_on = iw && iwarp->type == DEVLINK_PARAM_BOOL && iw->number;
        if (check_nic_roce_fix(pci, cmode, iwarp_on, &fix) < 0)
                return -ENOMEM;
        if (iwarp_on)
                return port_check_set(
                        ret,
                        CHECK_FAIL,
                        "RoCE",
                        actual,
                        "%s runs iWARP, not RoCE, on %s (devlink enable_iwarp true, enable_roce false): RoCE v2 "
                        "needs enable_roce; %s",
                        nic_family_display_name(family),
                        pci,
                        fix);
        return port_check_set(
                ret,
                CHECK_FAIL,
                "RoCE",
                actual,
                "RoCE is off for %s (devlink enable_roce false, %s): %s",
                pci,
                devlink_param_cmode_to_string(cmode),
                fix);
}
