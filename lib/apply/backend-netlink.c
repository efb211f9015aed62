/* SPDX-License-Identifier: MIT */
/* The netlink backend: the plan's address, MTU and up changes through rtnetlink, its zone change
 * through firewalld's D-Bus API. Records what it changed and puts it back on any failure: a link is
 * never left half-configured. */
#include <arpa/inet.h>
#include <linux/if_addr.h>
#include <net/if.h>
#include <stdio.h>

#include "apply/backend.h"
#include "basic/errorf.h"
#include "basic/strv.h"
#include "net/firewalld.h"
#include "net/rtnl.h"
#include "plan/plan.h"

/* What was there before, and what this run changed: exactly what a rollback must undo. */
typedef struct Undo {
        int ifindex;
        RtnlAddress *removed; /* stray addresses deleted */
        size_t n_removed;
        bool added;             /* the profile's address was added */
        uint32_t mtu_before;    /* 0: MTU not changed */
        bool set_up;            /* the link was down and was brought up */
        char *zone_before;      /* runtime zone before; NULL: not changed */
        char *permanent_before; /* permanent zone before; NULL: not changed */
} Undo;

typedef struct Apply {
        const LinkPlan *plan;
        Rtnl *rtnl;
        sd_bus *bus; /* NULL: firewalld does not run */
        Undo undo;
} Apply;

static void undo_done(Undo *u) {
        free(u->removed);
        free(u->zone_before);
        free(u->permanent_before);
}

static bool netlink_available(void) {
        return true; /* rtnetlink is always there */
}

/* "mtu greater than device maximum" when the kernel said why, else strerror. */
static const char *reason(const char *ext_ack, int r) {
        return ext_ack ?: strerror(-r);
}

static void rollback(Apply *a, char ***errors) {
        Undo *u = &a->undo;
        const char *ifname = a->plan->ifname;
        char *e = NULL;

        /* Best effort, newest change first; what cannot be undone is named in the error. */
        if (u->permanent_before && a->bus &&
            firewalld_set_permanent_zone_of_interface(a->bus, u->permanent_before, ifname, &e) < 0)
                (void) strv_extendf(errors, "restoring the permanent zone failed: %s", strna(e));
        e = mfree(e);
        if (u->zone_before && a->bus) {
                int r = isempty(u->zone_before)
                        ? firewalld_remove_interface(a->bus, ifname, &e)
                        : firewalld_change_zone_of_interface(a->bus, u->zone_before, ifname, &e);
                if (r < 0)
                        (void) strv_extendf(errors, "restoring zone %s failed: %s", u->zone_before, strna(e));
        }
        e = mfree(e);
        if (u->set_up && rtnl_set_link_up(a->rtnl, u->ifindex, false, &e) < 0)
                (void) strv_extendf(errors, "setting %s down again failed: %s", ifname, strna(e));
        e = mfree(e);
        if (u->mtu_before > 0 && rtnl_set_mtu(a->rtnl, u->ifindex, u->mtu_before, &e) < 0)
                (void) strv_extendf(errors, "restoring MTU %u failed: %s", u->mtu_before, strna(e));
        e = mfree(e);
        if (u->added &&
            rtnl_delete_address(
                    a->rtnl, u->ifindex, &a->plan->address.address, a->plan->address.prefixlen, &e) < 0)
                (void) strv_extendf(errors, "removing the added address failed: %s", strna(e));
        e = mfree(e);
        /* Reverse order: primaries were removed last and must come back first, or a secondary
         * address would return as a primary one. */
        for (size_t i = u->n_removed; i > 0; i--) {
                const RtnlAddress *r = &u->removed[i - 1];

                if (rtnl_restore_address(a->rtnl, r, &e) < 0)
                        (void) strv_extendf(
                                errors,
                                "restoring address %s/%u failed: %s",
                                inet_ntoa(r->address),
                                r->prefixlen,
                                strna(e));
                e = mfree(e);
        }
}

static int apply_addresses(Apply *a, char **ret_error) {
        const LinkPlan *lp = a->plan;
        char want[IPV4_PREFIX_STRING_MAX];
        _cleanup_(freep) char *e = NULL;
        int r;

        ipv4_prefix_to_string(&lp->address, want);
        a->undo.removed = calloc(lp->n_remove_addresses ?: 1, sizeof(RtnlAddress));
        if (!a->undo.removed)
                return -ENOMEM;

        /* Secondary addresses first: deleting a primary one takes its secondaries with it, and then
         * they would be missing from the undo list. */
        for (size_t k = 0; k < 2 * lp->n_remove_addresses; k++) {
                size_t i = k % lp->n_remove_addresses;
                const RtnlAddress *old = &lp->remove_addresses[i];
                bool secondary_pass = k < lp->n_remove_addresses;

                if (secondary_pass != !!(old->flags & IFA_F_SECONDARY))
                        continue;
                r = rtnl_delete_address(a->rtnl, lp->ifindex, &old->address, old->prefixlen, &e);
                if (r < 0)
                        return errorf(
                                ret_error,
                                r,
                                "cannot remove stray address %s/%u from %s: %s",
                                inet_ntoa(old->address),
                                old->prefixlen,
                                lp->ifname,
                                reason(e, r));
                a->undo.removed[a->undo.n_removed++] = *old;
        }

        if (!lp->add_address)
                return 0;
        r = rtnl_add_address(a->rtnl, lp->ifindex, &lp->address.address, lp->address.prefixlen, &e);
        if (r < 0)
                return errorf(ret_error, r, "cannot add address %s to %s: %s", want, lp->ifname, reason(e, r));
        a->undo.added = true;
        return 0;
}

static int apply_mtu_and_up(Apply *a, char **ret_error) {
        const LinkPlan *lp = a->plan;
        _cleanup_(freep) char *e = NULL;
        int r;

        if (lp->mtu_from != lp->mtu_to) {
                r = rtnl_set_mtu(a->rtnl, lp->ifindex, lp->mtu_to, &e);
                if (r < 0) {
                        if (lp->max_mtu > 0 && lp->mtu_to > lp->max_mtu)
                                return errorf(
                                        ret_error,
                                        r,
                                        "cannot set MTU %u on %s: %s (the largest MTU %s takes is %u)",
                                        lp->mtu_to,
                                        lp->ifname,
                                        reason(e, r),
                                        lp->ifname,
                                        lp->max_mtu);
                        return errorf(
                                ret_error, r, "cannot set MTU %u on %s: %s", lp->mtu_to, lp->ifname, reason(e, r));
                }
                a->undo.mtu_before = lp->mtu_from;
        }

        if (lp->set_up) {
                r = rtnl_set_link_up(a->rtnl, lp->ifindex, true, &e);
                if (r < 0)
                        return errorf(ret_error, r, "cannot set %s up: %s", lp->ifname, reason(e, r));
                a->undo.set_up = true;
        }
        return 0;
}

static int apply_zone(Apply *a, char **ret_error) {
        const LinkPlan *lp = a->plan;
        _cleanup_(freep) char *permanent = NULL, *e = NULL;
        int r;

        if (!lp->want.zone || !a->bus)
                return 0;

        if (lp->zone_to) {
                r = firewalld_change_zone_of_interface(a->bus, lp->zone_to, lp->ifname, &e);
                if (r < 0)
                        return errorf(
                                ret_error,
                                r,
                                "cannot move %s into firewall zone %s: %s",
                                lp->ifname,
                                lp->zone_to,
                                reason(e, r));
                a->undo.zone_before = strdup(strempty(lp->zone_from));
                if (!a->undo.zone_before)
                        return -ENOMEM;
        }

        /* The permanent configuration too, or `firewall-cmd --reload` would undo the runtime change. */
        r = firewalld_get_permanent_zone_of_interface(a->bus, lp->ifname, &permanent, &e);
        if (r < 0)
                return errorf(
                        ret_error,
                        r,
                        "cannot read the permanent firewall zone of %s: %s",
                        lp->ifname,
                        reason(e, r));
        if (!streq(permanent, lp->want.zone)) {
                r = firewalld_set_permanent_zone_of_interface(a->bus, lp->want.zone, lp->ifname, &e);
                if (r < 0)
                        return errorf(
                                ret_error,
                                r,
                                "cannot put %s into firewall zone %s permanently: %s",
                                lp->ifname,
                                lp->want.zone,
                                reason(e, r));
                a->undo.permanent_before = TAKE_PTR(permanent);
        }
        return 0;
}

static int netlink_apply_link(const LinkPlan *lp, char **ret_error) {
        _cleanup_(rtnl_closep) Rtnl *rtnl = NULL;
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_(strv_freep) char **rollback_errors = NULL;
        _cleanup_(freep) char *error = NULL;
        Apply a = { .plan = lp };
        int r;

        if (ret_error)
                *ret_error = NULL;
        /* The plan was checked before: the netdev is in the kernel, the address on no other link, the
         * zone one firewalld has. */
        if (!lp || !lp->ifname || lp->error || lp->ifindex <= 0)
                return -EINVAL;

        r = rtnl_open(&rtnl);
        if (r < 0)
                return errorf(ret_error, r, "cannot open an rtnetlink socket: %s", strerror(-r));
        a.rtnl = rtnl;
        a.undo.ifindex = lp->ifindex;
        /* The permanent zone is not in the plan (firewalld's runtime zone is what counts), so a change to
         * the link makes it match too, or `firewall-cmd --reload` would undo the runtime zone. */
        if (lp->want.zone && firewalld_connect(&bus) > 0)
                a.bus = bus;

        r = apply_addresses(&a, &error);
        if (r >= 0)
                r = apply_mtu_and_up(&a, &error);
        if (r >= 0)
                r = apply_zone(&a, &error);
        if (r < 0) {
                rollback(&a, &rollback_errors);
                if (ret_error) {
                        if (rollback_errors) {
                                _cleanup_(freep) char *j = strv_join(rollback_errors, "; ");
                                (void) errorf(ret_error, r, "%s; rolling back: %s", strna(error), strna(j));
                        } else
                                (void) errorf(ret_error, r, "%s; %s left as it was", strna(error), lp->ifname);
                }
        }
        undo_done(&a.undo);
        return r;
}

const Backend backend_netlink = {
        .name = "netlink",
        .available = netlink_available,
        .apply_link = netlink_apply_link,
};
