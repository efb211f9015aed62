/* SPDX-License-Identifier: MIT */
/* The "networkmanager" backend: each link through a halod-<link> profile in NetworkManager. Whether
 * NetworkManager runs is asked with sd-bus; the libnm code is in a module (lib/apply/nm-module.h) that is
 * loaded only when a link is applied, so that halod and haloctl start without libnm and GLib. */

#include "basic/errorf.h"
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <systemd/sd-bus.h>

#include "apply/backend.h"
#include "apply/nm-module.h"
#include "apply/nm.h"
#include "basic/macro.h"
#include "net/bus-util.h"

#define NM_BUS_NAME "org.freedesktop.NetworkManager"
#define NM_RUNNING_TIMEOUT_USEC (1000U * 1000U)

bool nm_running(void) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;

        /* One question to the bus daemon: much cheaper than starting an NMClient. */
        if (sd_bus_open_system(&bus) < 0)
                return false;
        return bus_name_has_owner(bus, NM_BUS_NAME, NM_RUNNING_TIMEOUT_USEC) > 0;
}

#if HAVE_LIBNM
static int load_module(const NmModule **ret, char **ret_error) {
        _cleanup_(freep) char *error = NULL;
        int r;

        r = nm_module_load(ret, &error);
        if (r < 0)
                /* Not the netlink backend instead: with NetworkManager managing the link, the two would
                 * undo each other's changes. */
                return nm_running() ? errorf(ret_error, r, "NetworkManager runs but %s", strna(error))
                                    : errorf(ret_error, r, "%s", strna(error));
        return 0;
}
#endif

int nm_apply_link(const LinkPlan *lp, unsigned timeout_ms, char **ret_error) {
#if HAVE_LIBNM
        const NmModule *module;
        int r;

        r = load_module(&module, ret_error);
        if (r < 0)
                return r;
        return module->apply_link(lp, timeout_ms, ret_error);
#else
        return errorf(
                ret_error,
                -EOPNOTSUPP,
                "halod was built without NetworkManager support (meson -Dlibnm=disabled, or no libnm at build "
                "time), so it cannot configure %s through NetworkManager; install a halod built with libnm, or "
                "use the netlink backend (halod --backend netlink) with NetworkManager stopped or not managing "
                "the interface",
                lp && lp->ifname ? lp->ifname : "links");
#endif
}

int nm_unadopt_link(const char *link, const char *ifname, unsigned timeout_ms, char **ret_error) {
#if HAVE_LIBNM
        const NmModule *module;
        int r;

        r = load_module(&module, ret_error);
        if (r < 0)
                return r;
        return module->unadopt_link(link, ifname, timeout_ms, ret_error);
#else
        return errorf(
                ret_error,
                -EOPNOTSUPP,
                "halod was built without NetworkManager support (meson -Dlibnm=disabled, or no libnm at build "
                "time), so it cannot give %s back to its NetworkManager connection; restore it with nmcli "
                "(the connection's user data io.halod.* says its name and autoconnect)",
                ifname ?: "links");
#endif
}

static bool networkmanager_available(void) {
        /* A build without libnm does not choose NetworkManager by itself (halod(8), --backend). */
        return HAVE_LIBNM && nm_running();
}

static int networkmanager_apply_link(const LinkPlan *lp, char **ret_error) {
        /* NetworkManager makes the changes from the whole profile (lp->want); what the plan found drifted
         * on the host tells the module whether to reapply (link_plan_shows_settings()). */
        return nm_apply_link(lp, NM_APPLY_TIMEOUT_MS_DEFAULT, ret_error);
}

static int networkmanager_unadopt_link(const char *link, const char *ifname, char **ret_error) {
        return nm_unadopt_link(link, ifname, NM_APPLY_TIMEOUT_MS_DEFAULT, ret_error);
}

const Backend backend_networkmanager = {
        .name = "networkmanager",
        .available = networkmanager_available,
        .apply_link = networkmanager_apply_link,
        .find_adoptions = nm_find_adoptions,
        .unadopt_link = networkmanager_unadopt_link,
};
