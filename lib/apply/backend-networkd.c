/* SPDX-License-Identifier: MIT */
/* The "networkd" backend: each link through a .network file of halod's in /etc/systemd/network,
 * which systemd-networkd is asked over D-Bus to reload and to apply to the link; then the kernel must
 * show the result. On any failure the previous file (or none) and the link's previous state come back:
 * a link is never left half-configured. The zone goes through firewalld, as with the netlink backend. */
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "apply/backend.h"
#include "apply/networkd-file-scope.h"
#include "apply/networkd-file.h"
#include "basic/errorf.h"
#include "basic/fileio.h"
#include "basic/strv.h"
#include "basic/time-util.h"
#include "net/networkd-match.h"
#include "net/networkd.h"
#include "net/rtnl.h"
#include "nic/ethtool.h"
#include "plan/route-plan.h"

/* How long networkd may take to configure a link: about what NetworkManager's activation gets. */
#define NETWORKD_APPLY_TIMEOUT_USEC (20U * USEC_PER_SEC)
#define NETWORKD_POLL_USEC (20U * USEC_PER_MSEC)
/* How long a link that networkd calls configured may still differ from the file in the kernel: networkd
 * says "configured" once its requests are answered, so a difference that outlasts this is networkd's
 * own doing (it lowers an MTU the device cannot take, say), not a late answer. */
#define NETWORKD_SETTLE_USEC (2U * USEC_PER_SEC)
#define NETWORKD_FILE_MAX (64U * 1024U)

static bool networkd_available(void) {
        return networkd_running_on_system_bus();
}

typedef struct NetworkdApply {
        const LinkPlan *lp;
        sd_bus *bus;
        char *path;     /* /etc/systemd/network/05-halod-<link>.network */
        char *previous; /* the file's text before; NULL: there was none */
} NetworkdApply;

static void networkd_apply_done(NetworkdApply *a) {
        free(a->path);
        free(a->previous);
}

/* Whether the kernel shows what the plan wants of the link: its MTU and address. *ret_what: what differs. */
static int kernel_matches(const NetworkdApply *a, bool *ret, char **ret_what) {
        _cleanup_(rtnl_closep) Rtnl *rtnl = NULL;
        _cleanup_(rtnl_state_done) RtnlState s = {};
        char want[IPV4_PREFIX_STRING_MAX];
        const RtnlLink *l;
        int r;

        *ret = false;
        *ret_what = mfree(*ret_what);
        r = rtnl_open(&rtnl);
        if (r >= 0)
                r = rtnl_dump(rtnl, &s, NULL);
        if (r < 0)
                return r;
        l = rtnl_state_find_by_index(&s, a->lp->ifindex);
        if (!l)
                return errorf(ret_what, 0, "%s is gone from the kernel", a->lp->ifname);
        if (a->lp->want.mtu > 0 && l->mtu != a->lp->want.mtu)
                return errorf(ret_what, 0, "the kernel shows MTU %u, not %u", l->mtu, a->lp->want.mtu);
        if (!rtnl_link_find_address(l, &a->lp->address.address, a->lp->address.prefixlen))
                return errorf(
                        ret_what,
                        0,
                        "the kernel does not show address %s",
                        ipv4_prefix_to_string(&a->lp->address, want));
        *ret = true;
        return 0;
}

/* Polls networkd's AdministrativeState and the kernel until the link is "configured" and shows the plan's
 * want, or networkd says "failed", or the time is up. */
static int wait_configured(NetworkdApply *a, char **ret_error) {
        usec_t deadline = now(CLOCK_MONOTONIC) + NETWORKD_APPLY_TIMEOUT_USEC, configured_at = 0;
        _cleanup_(freep) char *state = NULL, *what = NULL, *e = NULL;
        bool matches = false;
        int r;

        for (;;) {
                state = mfree(state);
                e = mfree(e);
                r = networkd_link_state(a->bus, a->lp->ifindex, &state, &e);
                if (r < 0)
                        return errorf(ret_error, r, "%s", strna(e));
                if (streq(state, "failed"))
                        return errorf(
                                ret_error,
                                -EIO,
                                "systemd-networkd failed to configure %s (its journal says why: journalctl -u "
                                "systemd-networkd)",
                                a->lp->ifname);
                if (streq(state, "configured")) {
                        r = kernel_matches(a, &matches, &what);
                        if (r < 0)
                                return errorf(
                                        ret_error,
                                        r,
                                        "cannot read %s back from the kernel: %s",
                                        a->lp->ifname,
                                        strerror(-r));
                        if (matches)
                                return 0;
                        if (configured_at == 0)
                                configured_at = now(CLOCK_MONOTONIC);
                        else if (now(CLOCK_MONOTONIC) >= configured_at + NETWORKD_SETTLE_USEC)
                                break;
                } else
                        configured_at = 0;
                if (now(CLOCK_MONOTONIC) >= deadline)
                        break;
                (void) nanosleep(&(struct timespec){ .tv_nsec = NETWORKD_POLL_USEC * 1000 }, NULL);
        }
        if (streq(state, "configured"))
                return errorf(
                        ret_error,
                        -EIO,
                        "systemd-networkd says %s is configured, but %s",
                        a->lp->ifname,
                        strna(what));
        return errorf(
                ret_error,
                -ETIMEDOUT,
                "systemd-networkd did not configure %s within %u s (its state is %s)",
                a->lp->ifname,
                (unsigned) (NETWORKD_APPLY_TIMEOUT_USEC / USEC_PER_SEC),
                strna(state));
}

/* After the reload without halod's file: waits until networkd has let the link go ("unmanaged"), and
 * with it dropped what it had configured from the file, or until another file of its own has held the
 * link "configured" for the settle time, or the time is up. Only then may the kernel be put back:
 * networkd drops its configuration after Reload() has answered. */
static void wait_released(const NetworkdApply *a) {
        usec_t deadline = now(CLOCK_MONOTONIC) + NETWORKD_APPLY_TIMEOUT_USEC, configured_at = 0;

        while (now(CLOCK_MONOTONIC) < deadline) {
                _cleanup_(freep) char *state = NULL, *e = NULL;

                if (networkd_link_state(a->bus, a->lp->ifindex, &state, &e) < 0 ||
                    streq(state, "unmanaged") || streq(state, "failed") || streq(state, "linger"))
                        return;
                if (!streq(state, "configured"))
                        configured_at = 0;
                else if (configured_at == 0)
                        configured_at = now(CLOCK_MONOTONIC);
                else if (now(CLOCK_MONOTONIC) >= configured_at + NETWORKD_SETTLE_USEC)
                        return;
                (void) nanosleep(&(struct timespec){ .tv_nsec = NETWORKD_POLL_USEC * 1000 }, NULL);
        }
}

/* The kernel state that the plan found, for a link that networkd gives up without a file of halod's
 * before: the MTU, the addresses and halod's routes of before. */
static void restore_kernel(const NetworkdApply *a, char ***errors) {
        const LinkPlan *lp = a->lp;
        _cleanup_(rtnl_closep) Rtnl *rtnl = NULL;
        char *e = NULL;

        wait_released(a);

        if (rtnl_open(&rtnl) < 0) {
                (void) strv_extend(errors, "cannot open rtnetlink to restore the link");
                return;
        }
        /* networkd adds the [Route]s of a file as proto static, not as halod's own protocol, and the
         * kernel deletes only a route of the protocol asked for. */
        if (lp->routes)
                for (size_t i = 0; i < lp->routes->n_add; i++)
                        if (!lp->routes->add[i].replaces) {
                                RtnlRoute route = lp->routes->add[i].route;

                                route.protocol = RTPROT_STATIC;
                                (void) rtnl_delete_route(rtnl, &route, NULL);
                        }
        if (lp->mtu_from > 0 && rtnl_set_mtu(rtnl, lp->ifindex, lp->mtu_from, &e) < 0)
                (void) strv_extendf(errors, "restoring MTU %u failed: %s", lp->mtu_from, strna(e));
        e = mfree(e);
        /* The address: halod's goes; one that was there before halod's file stays, and networkd, which
         * took it over from the file, may just have dropped it with the file. */
        if (lp->add_address)
                (void) rtnl_delete_address(
                        rtnl, lp->ifindex, &a->lp->address.address, a->lp->address.prefixlen, NULL);
        else if (a->lp->address.prefixlen > 0) {
                /* Put back as an address of nobody's (protocol unspecified), as it was found. */
                RtnlAddress before = { .ifindex = lp->ifindex,
                                       .address = a->lp->address.address,
                                       .prefixlen = a->lp->address.prefixlen };
                char buf[IPV4_PREFIX_STRING_MAX];

                if (rtnl_restore_address(rtnl, &before, &e) < 0)
                        (void) strv_extendf(
                                errors,
                                "restoring address %s failed: %s",
                                ipv4_prefix_to_string(&a->lp->address, buf),
                                strna(e));
        }
        for (size_t i = lp->n_remove_addresses; i > 0; i--)
                (void) rtnl_restore_address(rtnl, &lp->remove_addresses[i - 1], NULL);
}

/* Puts the previous file back (or removes halod's), asks networkd to reload, and brings the link back
 * to its previous state: through networkd when there was a file, else directly. */
static void rollback(NetworkdApply *a, char ***errors) {
        _cleanup_(freep) char *e = NULL;
        int r;

        r = a->previous ? write_file_atomic(a->path, a->previous, strlen(a->previous), 0644)
                        : (unlink(a->path) < 0 && errno != ENOENT ? -errno : 0);
        if (r < 0)
                (void) strv_extendf(
                        errors,
                        "%s %s failed: %s",
                        a->previous ? "restoring" : "removing",
                        a->path,
                        strerror(-r));
        if (networkd_reload(a->bus, &e) < 0) {
                (void) strv_extendf(errors, "asking networkd to reload again failed: %s", strna(e));
                e = mfree(e);
        } else if (a->previous && networkd_reconfigure_link(a->bus, a->lp->ifindex, &e) < 0)
                (void) strv_extendf(
                        errors, "asking networkd to reconfigure %s failed: %s", a->lp->ifname, strna(e));
        if (!a->previous)
                restore_kernel(a, errors);
}

/* A plan of the link with only its zone change: what the netlink backend carries out through
 * firewalld. */
static LinkPlan zone_only_plan(const LinkPlan *lp) {
        LinkPlan z = *lp;

        z.mtu_from = z.mtu_to;
        z.set_up = false;
        z.add_address = false;
        z.n_remove_addresses = 0;
        return z;
}

static int networkd_forwarding_key(sd_bus *bus) {
        int v = systemd_major_version(bus);

        /* Without an answer from PID 1 (a networkd run by hand), the spelling every version reads. */
        return v >= NETWORKD_IPV4FORWARDING_SINCE ? NETWORKD_FORWARDING_IPV4FORWARDING
                                                  : NETWORKD_FORWARDING_IPFORWARD;
}

static int networkd_file_path(const LinkPlan *lp, char **ret) {
        _cleanup_(freep) char *name = networkd_file_name(lp->link);

        if (!name || asprintf(ret, NETWORKD_FILE_DIR "/%s", name) < 0)
                return -ENOMEM;
        return 0;
}

/* Tries the file's [Match] against every link of the kernel, with the permanent address of each that
 * has one, as networkd would: it must take the plan's link and nothing else. */
static int check_scope(const NetworkdApply *a, const char *text, char **ret_error) {
        _cleanup_(rtnl_closep) Rtnl *rtnl = NULL;
        _cleanup_(rtnl_state_done) RtnlState s = {};
        char **permanent = NULL;
        int r;

        r = rtnl_open(&rtnl);
        if (r >= 0)
                r = rtnl_dump(rtnl, &s, NULL);
        if (r < 0)
                return errorf(
                        ret_error,
                        r,
                        "cannot list the links to try the file's [Match] against them: %s",
                        strerror(-r));
        permanent = calloc(s.n_links ?: 1, sizeof(char *));
        if (!permanent)
                return -ENOMEM;
        for (size_t i = 0; i < s.n_links; i++) {
                char mac[18];

                if (ethtool_get_permanent_address(s.links[i].name, mac) >= 0) {
                        permanent[i] = strdup(mac);
                        if (!permanent[i]) {
                                r = -ENOMEM;
                                goto finish;
                        }
                }
        }
        r = networkd_file_check_scope(
                text, a->lp->link, a->lp->ifindex, s.links, s.n_links, permanent, ret_error);
finish:
        for (size_t i = 0; i < s.n_links; i++)
                free(permanent[i]);
        free(permanent);
        return r;
}

static int write_file(NetworkdApply *a, char **ret_error) {
        const LinkPlan *lp = a->lp;
        _cleanup_(freep) char *text = NULL;
        char permanent[18];
        NetworkdFileConfig fc;
        int r;

        /* A veth and other virtual devices have no permanent address: Name= then (halod(8)). Any other
         * failure is an error, not Name=: the name is one halod can change. */
        r = networkd_match_on_permanent(ethtool_get_permanent_address(lp->ifname, permanent));
        if (r < 0)
                return errorf(
                        ret_error,
                        r,
                        "cannot read the permanent address of %s (SIOCETHTOOL on an AF_INET socket): %s; "
                        "not writing a file that would match on its name",
                        lp->ifname,
                        strerror(-r));
        /* Name= is networkd's glob list: the kernel's name must read as itself there. */
        if (r == 0) {
                r = networkd_file_check_name(lp->link, lp->ifname, ret_error);
                if (r < 0)
                        return r;
        }
        fc = (NetworkdFileConfig){
                .link = lp->link,
                .ifname = lp->ifname,
                .permanent_mac = r > 0 ? permanent : NULL,
                .mtu = lp->want.mtu,
                .address = lp->address,
                .routes = lp->want.routes,
                .n_routes = lp->want.n_routes,
                .forwarding = lp->want.forwarding,
                .forwarding_key = networkd_forwarding_key(a->bus),
        };
        r = networkd_file_text(&fc, &text);
        if (r >= 0)
                r = check_scope(a, text, ret_error);
        if (r < 0)
                return r;

        r = networkd_file_path(lp, &a->path);
        if (r < 0)
                return r;
        r = read_regular_file(a->path, NETWORKD_FILE_MAX, &a->previous, NULL);
        if (r < 0 && r != -ENOENT)
                return errorf(ret_error, r, "cannot read %s: %s", a->path, strerror(-r));
        if (mkdir(NETWORKD_FILE_DIR, 0755) < 0 && errno != EEXIST)
                return errorf(ret_error, -errno, "cannot create %s: %m", NETWORKD_FILE_DIR);
        r = write_file_atomic(a->path, text, strlen(text), 0644);
        if (r < 0)
                return errorf(
                        ret_error,
                        r,
                        "cannot write %s: %s%s",
                        a->path,
                        strerror(-r),
                        r == -EROFS || r == -EACCES
                                ? " (only root writes there: halod asks halod-helper.service, or run `sudo haloctl apply`; "
                                  "giving halod.service a ReadWritePaths= there would let the user halod change "
                                  "what root trusts, see halod(8), SECURITY)"
                                : "");
        return 0;
}

static int networkd_apply_link(const LinkPlan *lp, char **ret_error) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_(networkd_apply_done) NetworkdApply a = { .lp = lp };
        _cleanup_(strv_freep) char **rollback_errors = NULL;
        _cleanup_(freep) char *error = NULL;
        bool written = false;
        int r;

        if (ret_error)
                *ret_error = NULL;
        if (!lp || !lp->link || !lp->ifname || lp->error || lp->ifindex <= 0)
                return -EINVAL;

        r = sd_bus_open_system(&bus);
        if (r < 0)
                return errorf(
                        ret_error,
                        r,
                        "cannot connect to the system bus to reach systemd-networkd: %s",
                        strerror(-r));
        a.bus = bus;
        if (!networkd_running(bus))
                return errorf(
                        ret_error,
                        -ESRCH,
                        "systemd-networkd does not run (%s has no owner on the system bus), so %s cannot be "
                        "configured through it; start systemd-networkd.service, or choose another backend "
                        "(--backend)",
                        NETWORKD_BUS_NAME,
                        lp->ifname);

        r = write_file(&a, &error);
        written = r >= 0;
        if (r >= 0)
                r = networkd_reload(bus, &error);
        if (r >= 0)
                r = networkd_reconfigure_link(bus, lp->ifindex, &error);
        if (r >= 0)
                r = wait_configured(&a, &error);
        if (r >= 0 && lp->zone_to) {
                LinkPlan z = zone_only_plan(lp);

                r = backend_netlink.apply_link(&z, &error);
        }
        if (r >= 0)
                return 0;

        /* Out of memory too: the file written is taken back, whatever can be said of it. */
        if (written)
                rollback(&a, &rollback_errors);
        if (r == -ENOMEM)
                return r;
        if (rollback_errors) {
                _cleanup_(freep) char *j = strv_join(rollback_errors, "; ");
                return errorf(ret_error, r, "%s; rolling back: %s", strna(error), strna(j));
        }
        if (!written)
                return errorf(ret_error, r, "%s; nothing changed", strna(error));
        if (a.previous)
                return errorf(
                        ret_error,
                        r,
                        "%s; put the previous %s back and %s with it",
                        strna(error),
                        a.path,
                        lp->ifname);
        return errorf(
                ret_error, r, "%s; removed %s and put %s back as it was", strna(error), a.path, lp->ifname);
}

static int networkd_save_link(const LinkPlan *lp, char **ret_saved, char **ret_error) {
        _cleanup_(freep) char *path = NULL;
        int r;

        *ret_saved = NULL;
        r = networkd_file_path(lp, &path);
        if (r < 0)
                return r;
        r = read_regular_file(path, NETWORKD_FILE_MAX, ret_saved, NULL);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return errorf(ret_error, r, "cannot read %s: %s", path, strerror(-r));
        return 0;
}

/* The file as it was before this apply, and the link with it, as networkd_apply_link() does when it
 * fails itself. */
static void networkd_restore_link(const LinkPlan *lp, const char *saved, char ***errors) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_(networkd_apply_done) NetworkdApply a = { .lp = lp };
        int r;

        r = sd_bus_open_system(&bus);
        if (r < 0) {
                (void) strv_extendf(
                        errors, "cannot connect to the system bus to reach systemd-networkd: %s", strerror(-r));
                return;
        }
        a.bus = bus;
        if (networkd_file_path(lp, &a.path) < 0 || (saved && !(a.previous = strdup(saved)))) {
                (void) strv_extend(errors, "out of memory");
                return;
        }
        rollback(&a, errors);
}

const Backend backend_networkd = {
        .name = "networkd",
        .available = networkd_available,
        .apply_link = networkd_apply_link,
        .carries_routes = true,
        .save_link = networkd_save_link,
        .restore_link = networkd_restore_link,
};
