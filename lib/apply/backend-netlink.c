/* SPDX-License-Identifier: MIT */
/* The netlink backend: address, MTU and up through rtnetlink, the zone through firewalld's D-Bus API.
 * Records what it found and puts it back on any failure: a link is never left half-configured. */
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
        const LinkConfig *cfg;
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
        const char *ifname = a->cfg->ifname;
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
            rtnl_delete_address(a->rtnl, u->ifindex, &a->cfg->address.address, a->cfg->address.prefixlen, &e) <
                    0)
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

static int apply_addresses(Apply *a, const RtnlLink *link, char **ret_error) {
        const LinkConfig *cfg = a->cfg;
        char want[IPV4_PREFIX_STRING_MAX];
        _cleanup_(freep) char *e = NULL;
        int r;

        ipv4_prefix_to_string(&cfg->address, want);
        a->undo.removed = calloc(link->n_addresses ?: 1, sizeof(RtnlAddress));
        if (!a->undo.removed)
                return -ENOMEM;

        /* Secondary addresses first: deleting a primary one takes its secondaries with it, and then
         * they would be missing from the undo list. */
        for (size_t k = 0; k < 2 * link->n_addresses; k++) {
                size_t i = k % link->n_addresses;
                const RtnlAddress *old = &link->addresses[i];
                bool secondary_pass = k < link->n_addresses;

                if (secondary_pass != !!(old->flags & IFA_F_SECONDARY))
                        continue;
                if (!address_is_removed(link, i, &cfg->address))
                        continue;
                r = rtnl_delete_address(a->rtnl, link->ifindex, &old->address, old->prefixlen, &e);
                if (r < 0)
                        return errorf(
                                ret_error,
                                r,
                                "cannot remove stray address %s/%u from %s: %s",
                                inet_ntoa(old->address),
                                old->prefixlen,
                                cfg->ifname,
                                reason(e, r));
                a->undo.removed[a->undo.n_removed++] = *old;
        }

        if (rtnl_link_find_address(link, &cfg->address.address, cfg->address.prefixlen))
                return 0;
        r = rtnl_add_address(a->rtnl, link->ifindex, &cfg->address.address, cfg->address.prefixlen, &e);
        if (r < 0)
                return errorf(ret_error, r, "cannot add address %s to %s: %s", want, cfg->ifname, reason(e, r));
        a->undo.added = true;
        return 0;
}

static int apply_mtu_and_up(Apply *a, const RtnlLink *link, char **ret_error) {
        const LinkConfig *cfg = a->cfg;
        _cleanup_(freep) char *e = NULL;
        int r;

        if (cfg->mtu > 0 && link->mtu != cfg->mtu) {
                r = rtnl_set_mtu(a->rtnl, link->ifindex, cfg->mtu, &e);
                if (r < 0) {
                        if (link->max_mtu > 0 && cfg->mtu > link->max_mtu)
                                return errorf(
                                        ret_error,
                                        r,
                                        "cannot set MTU %u on %s: %s (the largest MTU %s takes is %u)",
                                        cfg->mtu,
                                        cfg->ifname,
                                        reason(e, r),
                                        cfg->ifname,
                                        link->max_mtu);
                        return errorf(
                                ret_error, r, "cannot set MTU %u on %s: %s", cfg->mtu, cfg->ifname, reason(e, r));
                }
                a->undo.mtu_before = link->mtu;
        }

        if (!(link->flags & IFF_UP)) {
                r = rtnl_set_link_up(a->rtnl, link->ifindex, true, &e);
                if (r < 0)
                        return errorf(ret_error, r, "cannot set %s up: %s", cfg->ifname, reason(e, r));
                a->undo.set_up = true;
        }
        return 0;
}

static int apply_zone(Apply *a, char **ret_error) {
        const LinkConfig *cfg = a->cfg;
        _cleanup_(freep) char *runtime = NULL, *permanent = NULL, *e = NULL;
        int r;

        if (!cfg->zone || !a->bus)
                return 0;

        r = firewalld_get_zone_of_interface(a->bus, cfg->ifname, &runtime, &e);
        if (r < 0)
                return errorf(
                        ret_error, r, "cannot read the firewall zone of %s: %s", cfg->ifname, reason(e, r));
        if (!streq(runtime, cfg->zone)) {
                r = firewalld_change_zone_of_interface(a->bus, cfg->zone, cfg->ifname, &e);
                if (r < 0)
                        return errorf(
                                ret_error,
                                r,
                                "cannot move %s into firewall zone %s: %s",
                                cfg->ifname,
                                cfg->zone,
                                reason(e, r));
                a->undo.zone_before = TAKE_PTR(runtime);
        }

        /* The permanent configuration too, or `firewall-cmd --reload` would undo the runtime change. */
        r = firewalld_get_permanent_zone_of_interface(a->bus, cfg->ifname, &permanent, &e);
        if (r < 0)
                return errorf(
                        ret_error,
                        r,
                        "cannot read the permanent firewall zone of %s: %s",
                        cfg->ifname,
                        reason(e, r));
        if (!streq(permanent, cfg->zone)) {
                r = firewalld_set_permanent_zone_of_interface(a->bus, cfg->zone, cfg->ifname, &e);
                if (r < 0)
                        return errorf(
                                ret_error,
                                r,
                                "cannot put %s into firewall zone %s permanently: %s",
                                cfg->ifname,
                                cfg->zone,
                                reason(e, r));
                a->undo.permanent_before = TAKE_PTR(permanent);
        }
        return 0;
}

static int netlink_apply_link(const LinkConfig *cfg, char **ret_error) {
        _cleanup_(rtnl_closep) Rtnl *rtnl = NULL;
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_(strv_freep) char **rollback_errors = NULL;
        _cleanup_(freep) char *e = NULL, *error = NULL;
        RtnlState state = {};
        const RtnlLink *link, *owner;
        Apply a = { .cfg = cfg };
        char want[IPV4_PREFIX_STRING_MAX];
        int r;

        if (ret_error)
                *ret_error = NULL;
        if (!cfg || !cfg->ifname)
                return -EINVAL;
        ipv4_prefix_to_string(&cfg->address, want);

        r = rtnl_open(&rtnl);
        if (r < 0)
                return errorf(ret_error, r, "cannot open an rtnetlink socket: %s", strerror(-r));
        a.rtnl = rtnl;
        r = rtnl_dump(rtnl, &state, &e);
        if (r < 0)
                return errorf(ret_error, r, "cannot read the link state: %s", reason(e, r));

        /* Everything that can be checked is checked before the first change. */
        link = rtnl_state_find_by_name(&state, cfg->ifname);
        if (!link) {
                r = errorf(ret_error, -ENODEV, "network interface %s does not exist", cfg->ifname);
                goto finish;
        }
        a.undo.ifindex = link->ifindex;
        owner = rtnl_state_find_address_owner(&state, &cfg->address.address, link->ifindex);
        if (owner) {
                r = errorf(
                        ret_error,
                        -EADDRINUSE,
                        "address %s is already used by %s; remove it there or give this node another address",
                        want,
                        owner->name);
                goto finish;
        }
        if (cfg->zone && firewalld_connect(&bus) > 0) {
                a.bus = bus;
                r = firewalld_check_zone(bus, cfg->zone, &e);
                if (r < 0) {
                        r = errorf(ret_error, r, "%s", reason(e, r));
                        goto finish;
                }
        }

        r = apply_addresses(&a, link, &error);
        if (r >= 0)
                r = apply_mtu_and_up(&a, link, &error);
        if (r >= 0)
                r = apply_zone(&a, &error);
        if (r < 0) {
                rollback(&a, &rollback_errors);
                if (ret_error) {
                        if (rollback_errors) {
                                _cleanup_(freep) char *j = strv_join(rollback_errors, "; ");
                                (void) errorf(ret_error, r, "%s; rolling back: %s", strna(error), strna(j));
                        } else
                                (void) errorf(ret_error, r, "%s; %s left as it was", strna(error), cfg->ifname);
                }
        }

finish:
        undo_done(&a.undo);
        rtnl_state_done(&state);
        return r;
}

const Backend backend_netlink = {
        .name = "netlink",
        .available = netlink_available,
        .apply_link = netlink_apply_link,
};
