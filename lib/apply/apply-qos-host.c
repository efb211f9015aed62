/* SPDX-License-Identifier: MIT */
/* ECN and the RoCE ToS of one link, written after the backend's part: the backend's changes (the MTU,
 * the link coming up) may reset what a driver keeps per netdev, never the other way round. Each write
 * is read back at once, since a sysfs store may take a value and keep another; what was written is
 * put back when a later write fails, so that a link is never left half-changed. */
#include <stdio.h>
#include <string.h>

#include "apply/apply-qos-host.h"
#include "basic/errorf.h"
#include "plan/qos-plan-host.h"

typedef struct Undo {
        size_t n_ecn;     /* the first n_ecn of the plan's ECN changes were made */
        bool created_dir; /* rdma_cm's directory was made here */
        bool tos_written;
} Undo;

static int ecn_write_verified(const Host *h, const char *ifname, const QosEcnChange *e) {
        RoceEcn now;
        int r;

        r = roce_ecn_write(h, ifname, e->point, e->priority, e->on);
        if (r < 0)
                return r;
        r = roce_ecn_read(h, ifname, &now);
        if (r < 0)
                return r;
        return !!(now.on[e->point] & (1U << e->priority)) == e->on ? 0 : -EIO;
}

static int tos_write_verified(const Host *h, const LinkPlanQosHost *p, unsigned tos) {
        _cleanup_(rdma_cm_port_done) RdmaCmPort now = {};
        int r;

        r = rdma_cm_write_tos(h, p->rdma_device, p->rdma_port, tos);
        if (r < 0)
                return r;
        r = rdma_cm_read(h, p->rdma_device, p->rdma_port, &now);
        if (r < 0)
                return r;
        return now.state == RDMA_CM_READY && now.tos == tos ? 0 : -EIO;
}

/* Puts back what undo says was changed; returns the first error. */
static int rollback(const Host *h, const LinkPlan *lp, const Undo *undo) {
        const LinkPlanQosHost *p = lp->qos_host;
        int ret = 0, r;

        if (undo->tos_written && p->tos_from >= 0) {
                r = tos_write_verified(h, p, (unsigned) p->tos_from);
                if (r < 0 && ret == 0)
                        ret = r;
        }
        if (undo->created_dir) {
                r = rdma_cm_remove_device(h, p->rdma_device);
                if (r < 0 && ret == 0)
                        ret = r;
        }
        for (size_t i = undo->n_ecn; i > 0; i--) {
                QosEcnChange back = p->ecn[i - 1];

                back.on = !back.on;
                r = ecn_write_verified(h, lp->ifname, &back);
                if (r < 0 && ret == 0)
                        ret = r;
        }
        return ret;
}

static int fail(
        const Host *h, const LinkPlan *lp, const Undo *undo, int error, const char *what, char **ret_error) {
        int r = rollback(h, lp, undo);

        if (r < 0)
                return errorf(
                        ret_error,
                        error,
                        "%s: %s; putting back what was changed failed too (%s): check the link's ECN and "
                        "RoCE ToS by hand",
                        what,
                        error == -EIO ? "the value read back differs" : strerror(-error),
                        strerror(-r));
        return errorf(
                ret_error,
                error,
                "%s: %s; the ECN and ToS settings changed before it were put back",
                what,
                error == -EIO ? "the value read back differs" : strerror(-error));
}

int apply_qos_host_link(const Host *h, const LinkPlan *lp, char **ret_error) {
        const LinkPlanQosHost *p = lp->qos_host;
        char what[256];
        Undo undo = {};
        int r;

        if (link_plan_qos_host_is_empty(p))
                return 0;

        for (size_t i = 0; i < p->n_ecn; i++) {
                const QosEcnChange *e = &p->ecn[i];

                r = ecn_write_verified(h, lp->ifname, e);
                if (r < 0) {
                        (void) snprintf(
                                what,
                                sizeof(what),
                                "cannot turn ECN %s for priority %u (%s) in /sys/class/net/%s/ecn/%s/enable/%u",
                                e->on ? "on" : "off",
                                e->priority,
                                roce_ecn_point_display_name(e->point),
                                lp->ifname,
                                roce_ecn_point_to_string(e->point),
                                e->priority);
                        return fail(h, lp, &undo, r, what, ret_error);
                }
                undo.n_ecn = i + 1;
        }

        if (p->tos_to < 0)
                return 0;
        if (p->create_cm_device) {
                r = rdma_cm_create_device(h, p->rdma_device);
                if (r < 0 && r != -EEXIST) {
                        (void) snprintf(
                                what,
                                sizeof(what),
                                "cannot create %s/%s (is rdma_ucm loaded and configfs mounted?)",
                                RDMA_CM_CONFIGFS_DIR,
                                p->rdma_device);
                        return fail(h, lp, &undo, r, what, ret_error);
                }
                undo.created_dir = r >= 0;
        }
        r = tos_write_verified(h, p, (unsigned) p->tos_to);
        /* Written or not, a failed write may have taken: put the old value back. */
        undo.tos_written = true;
        if (r < 0) {
                (void) snprintf(
                        what,
                        sizeof(what),
                        "cannot set the default RoCE ToS to %d in %s/%s/ports/%u/default_roce_tos",
                        p->tos_to,
                        RDMA_CM_CONFIGFS_DIR,
                        p->rdma_device,
                        p->rdma_port);
                return fail(h, lp, &undo, r, what, ret_error);
        }
        return 0;
}
