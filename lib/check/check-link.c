/* SPDX-License-Identifier: MIT */
/* link.<name>.present|up|mtu|address|zone: the kernel (rtnetlink) is the truth, firewalld for zones. */
/* glibc's net/if.h must come before linux/if.h (which then leaves out what glibc defined). */
#include <net/if.h>

#include <arpa/inet.h>
#include <linux/if.h>
#include <stdio.h>
#include <systemd/sd-bus.h>

#include "basic/strv.h"
#include "check/check-link.h"
#include "net/firewalld.h"
#include "nic/link-match.h"

#define CHECK_ID_MAX 256

static int
        add(CheckList *out,
            const char *link,
            const char *what,
            CheckOutcome o,
            const char *expected,
            const char *actual,
            const char *fmt,
            ...) _printf_(7, 8);
static int
        add(CheckList *out,
            const char *link,
            const char *what,
            CheckOutcome o,
            const char *expected,
            const char *actual,
            const char *fmt,
            ...) {
        _cleanup_(freep) char *summary = NULL;
        char id[CHECK_ID_MAX];
        va_list ap;
        int r;

        (void) snprintf(id, sizeof(id), "link.%s.%s", link, what);
        va_start(ap, fmt);
        r = vasprintf(&summary, fmt, ap);
        va_end(ap);
        if (r < 0)
                return -ENOMEM;
        return check_list_add(out, id, o, expected, actual, "%s", summary);
}

static int addresses_string(const RtnlLink *link, char **ret) {
        _cleanup_(strv_freep) char **l = NULL;
        char buf[IPV4_PREFIX_STRING_MAX];

        for (size_t i = 0; i < link->n_addresses; i++) {
                Ipv4Prefix p = { .address = link->addresses[i].address,
                                 .prefixlen = link->addresses[i].prefixlen };

                if (strv_extend(&l, ipv4_prefix_to_string(&p, buf)) < 0)
                        return -ENOMEM;
        }
        *ret = l ? strv_join(l, ", ") : strdup("none");
        return *ret ? 0 : -ENOMEM;
}

static int check_state(
        const ProfileLink *pl, const NodeLink *nl, const char *label, const RtnlLink *link, CheckList *out) {
        _cleanup_(freep) char *addresses = NULL;
        char want[IPV4_PREFIX_STRING_MAX], mtu[16], want_mtu[16];
        const char *oper = rtnl_operstate_to_string(link->operstate);
        int r;

        /* up: administratively up and with a carrier; a link without one moves no RDMA traffic. */
        if (!(link->flags & IFF_UP))
                r = add(out,
                        nl->link,
                        "up",
                        CHECK_FAIL,
                        "up",
                        "down",
                        "%s is down; haloctl apply brings it up",
                        label);
        else if (!(link->flags & IFF_LOWER_UP))
                r = add(out,
                        nl->link,
                        "up",
                        CHECK_FAIL,
                        "up",
                        oper,
                        "%s is up but has no carrier (operstate %s); check the cable and the peer's port",
                        label,
                        oper);
        else
                r = add(out, nl->link, "up", CHECK_PASS, "up", "up", "%s is up", label);
        if (r < 0)
                return r;

        (void) snprintf(mtu, sizeof(mtu), "%u", link->mtu);
        if (pl->mtu == 0)
                r = add(out,
                        nl->link,
                        "mtu",
                        CHECK_SKIP,
                        "",
                        mtu,
                        "the profile leaves the MTU of %s alone (%u)",
                        label,
                        link->mtu);
        else {
                (void) snprintf(want_mtu, sizeof(want_mtu), "%u", pl->mtu);
                if (link->mtu == pl->mtu)
                        r = add(out, nl->link, "mtu", CHECK_PASS, want_mtu, mtu, "%s has MTU %u", label, link->mtu);
                else
                        r = add(out,
                                nl->link,
                                "mtu",
                                CHECK_FAIL,
                                want_mtu,
                                mtu,
                                "%s has MTU %u, the profile wants %u; haloctl apply sets it",
                                label,
                                link->mtu,
                                pl->mtu);
        }
        if (r < 0)
                return r;

        ipv4_prefix_to_string(&nl->address, want);
        r = addresses_string(link, &addresses);
        if (r < 0)
                return r;
        if (rtnl_link_find_address(link, &nl->address.address, nl->address.prefixlen))
                return add(out, nl->link, "address", CHECK_PASS, want, addresses, "%s has %s", label, want);
        return add(
                out,
                nl->link,
                "address",
                CHECK_FAIL,
                want,
                addresses,
                "%s lacks %s (it has %s); haloctl apply adds it",
                label,
                want,
                addresses);
}

static int check_zone(
        const ProfileLink *pl,
        const NodeLink *nl,
        const char *label,
        const FirewallView *fw,
        const char *fw_error,
        CheckList *out) {
        const char *want = pl->firewall_zone;

        if (!want)
                return add(
                        out, nl->link, "zone", CHECK_SKIP, "", "", "the profile sets no firewall zone for %s", label);
        if (!fw || !fw->running)
                return add(out, nl->link, "zone", CHECK_SKIP, want, "", "skip: firewalld not running");
        if (fw_error || !fw->zone)
                return add(
                        out,
                        nl->link,
                        "zone",
                        CHECK_FAIL,
                        want,
                        "",
                        "cannot ask firewalld for the zone of %s: %s",
                        label,
                        strna(fw_error));
        if (streq(fw->zone, want))
                return add(
                        out, nl->link, "zone", CHECK_PASS, want, fw->zone, "%s is in firewall zone %s", label, want);
        if (isempty(fw->zone))
                return add(
                        out,
                        nl->link,
                        "zone",
                        CHECK_FAIL,
                        want,
                        "(none)",
                        "%s is in no firewall zone (the default zone applies), the profile wants %s; haloctl "
                        "apply sets it",
                        label,
                        want);
        return add(
                out,
                nl->link,
                "zone",
                CHECK_FAIL,
                want,
                fw->zone,
                "%s is in firewall zone %s, the profile wants %s; haloctl apply moves it",
                label,
                fw->zone,
                want);
}

int check_link_evaluate(
        const ProfileLink *pl,
        const NodeLink *nl,
        const char *ifname,
        const char *resolve_error,
        const RtnlLink *link,
        const char *state_note,
        const FirewallView *fw,
        const char *fw_error,
        CheckList *out) {
        static const char *const state_checks[] = { "up", "mtu", "address", "zone" };
        _cleanup_(freep) char *label = NULL, *expected = NULL;
        const char *skip = NULL;
        int r;

        if (!pl)
                return add(
                        out,
                        nl->link,
                        "present",
                        CHECK_FAIL,
                        "",
                        "",
                        "the node names link %s, which the profile's links: section lacks",
                        nl->link);

        expected = link_match_describe(link_match_is_empty(&nl->match) ? &pl->match : &nl->match);
        if (!expected)
                return -ENOMEM;
        if (!ifname) {
                r = add(out, nl->link, "present", CHECK_FAIL, expected, "", "%s: %s", nl->link, strna(resolve_error));
                skip = "not present";
        } else {
                if (asprintf(&label, "%s (%s)", nl->link, ifname) < 0)
                        return -ENOMEM;
                if (state_note) {
                        r = add(out, nl->link, "present", CHECK_PASS, expected, ifname, "%s is %s", nl->link, ifname);
                        skip = state_note;
                } else if (!link) {
                        r = add(out,
                                nl->link,
                                "present",
                                CHECK_FAIL,
                                expected,
                                ifname,
                                "%s is in /sys/class/net but not in the kernel's link table",
                                label);
                        skip = "not present";
                } else
                        r = add(out, nl->link, "present", CHECK_PASS, expected, ifname, "%s is %s", nl->link, ifname);
        }
        if (r < 0)
                return r;

        if (skip) {
                for (size_t i = 0; i < ELEMENTSOF(state_checks); i++) {
                        r = add(out, nl->link, state_checks[i], CHECK_SKIP, "", "", "%s %s", nl->link, skip);
                        if (r < 0)
                                return r;
                }
                return 0;
        }

        r = check_state(pl, nl, label, link, out);
        if (r < 0)
                return r;
        return check_zone(pl, nl, label, fw, fw_error, out);
}

int check_links(const NodeContext *c, CheckList *out) {
        _cleanup_(rtnl_closep) Rtnl *rtnl = NULL;
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_(freep) char *note = NULL, *e = NULL;
        const char *root = c->host ? c->host->root : NULL;
        RtnlState state = {};
        int r;

        if (!c->profile || !c->node)
                return 0; /* the profile check already says why */

        if (!isempty(root) && !streq(root, "/")) {
                /* rtnetlink and firewalld only ever show the running system, not a tree below --root. */
                note = strdup("state is not read under --root (rtnetlink shows the running kernel only)");
                if (!note)
                        return -ENOMEM;
        } else {
                r = rtnl_open(&rtnl);
                if (r >= 0)
                        r = rtnl_dump(rtnl, &state, &e);
                if (r == -ENOMEM)
                        return r;
                if (r < 0 &&
                    asprintf(&note, "state unknown: cannot read the kernel's link state: %s", e ?: strerror(-r)) <
                            0)
                        return -ENOMEM;
                if (r >= 0 && node_wants_zones(c->profile, c->node))
                        (void) firewalld_open(&bus); /* whether firewalld runs, its first answer says */
        }

        for (size_t i = 0; i < c->node->n_links; i++) {
                const NodeLink *nl = &c->node->links[i];
                const ProfileLink *pl = profile_find_link(c->profile, nl->link);
                _cleanup_(freep) char *ifname = NULL, *resolve_error = NULL, *zone = NULL, *fw_error = NULL;
                FirewallView fw = {};
                const RtnlLink *link = NULL;

                if (pl) {
                        r = link_match_resolve(
                                c->host, profile_node_link_match(c->profile, nl), &ifname, &resolve_error);
                        if (r == -ENOMEM)
                                goto finish;
                }
                if (ifname && !note)
                        link = rtnl_state_find_by_name(&state, ifname);
                if (pl && pl->firewall_zone && link && bus) {
                        r = firewalld_get_zone_of_interface(bus, ifname, &zone, &fw_error);
                        if (r == -ENOMEM)
                                goto finish;
                        if (r == -ESRCH) {
                                /* firewalld does not run: the answer for every link. */
                                bus = sd_bus_flush_close_unref(bus);
                                fw_error = mfree(fw_error);
                        }
                        fw.zone = zone;
                }
                fw.running = bus != NULL;
                r = check_link_evaluate(pl, nl, ifname, resolve_error, link, note, &fw, fw_error, out);
                if (r < 0)
                        goto finish;
        }
        r = 0;

finish:
        rtnl_state_done(&state);
        return r;
}
