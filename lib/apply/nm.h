/* SPDX-License-Identifier: MIT */
/* NetworkManager: the one connection profile halod keeps per link. The program's side, without libnm:
 * the libnm code is in halod-backend-nm.so (lib/apply/nm-module.h), loaded by nm_apply_link() on first use. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "apply/backend.h"
#include "basic/macro.h"

/* Every halod profile in NetworkManager is called "halod-<link>"; halod touches no other, except a
 * connection an administrator has it take over (haloctl apply --adopt, below). */
#define NM_HALOD_ID_PREFIX "halod-"

/* A connection taken over by haloctl apply --adopt is kept, renamed "<id> (before halod)", with
 * autoconnect off, and carries in its user setting (NetworkManager's NMSettingUser, "user.data")
 * what haloctl unadopt needs to give it back: the link it was taken over for, its id, its
 * autoconnect ("yes" or "no") and whether it was active ("yes" or "no"). */
#define NM_ADOPT_KEPT_SUFFIX " (before halod)"
#define NM_ADOPT_KEY_LINK "io.halod.adopted-link"
#define NM_ADOPT_KEY_ID "io.halod.original-id"
#define NM_ADOPT_KEY_AUTOCONNECT "io.halod.original-autoconnect"
#define NM_ADOPT_KEY_ACTIVE "io.halod.was-active"

/* NM_SETTINGS_CONNECTION_FLAG_NM_GENERATED and _EXTERNAL of NetworkManager's D-Bus API: its stand-ins
 * for configuration it found on a device, which are nobody's profile. */
#define NM_SETTINGS_FLAGS_NOT_A_PROFILE (0x02U | 0x08U)

/* Whether haloctl apply --adopt takes a NetworkManager connection over for an interface: a user's
 * connection (neither halod's nor one of NetworkManager's stand-ins) that is active on it, or that is
 * bound to it (connection.interface-name) with autoconnect on and was not taken over before (it
 * would come back on its own and fight halod's profile for the link). The one rule for the plan
 * (which asks over sd-bus) and the module (libnm). */
static inline bool nm_adopt_takes_over(
        const char *id, uint32_t settings_flags, bool active_here, bool bound_here, bool autoconnect, bool adopted) {
        if (settings_flags & NM_SETTINGS_FLAGS_NOT_A_PROFILE)
                return false;
        if (id && startswith(id, NM_HALOD_ID_PREFIX))
                return false;
        return active_here || (bound_here && autoconnect && !adopted);
}

/* How long one apply may wait for NetworkManager in total (client start, profile change, activation). */
#define NM_APPLY_TIMEOUT_MS_DEFAULT 20000U

/* True when NetworkManager's bus name has an owner on the system bus ($DBUS_SYSTEM_BUS_ADDRESS is
 * honoured). Answers within about a second even when the bus is slow. Plain sd-bus: loads no module. */
bool nm_running(void);

/* Makes NetworkManager's "halod-<link>" profile match lp->want and lp->address (creating or updating
 * it in place) and activates it on lp->ifname, waiting at most timeout_ms in total for NetworkManager.
 * Returns 0 when the link is active with these settings (also when nothing had to change). On failure the
 * profile is rolled back (restored, or deleted when this call created it), and a negative errno is returned
 * with a one-line message for the user in ret_error:
 *   -ETIMEDOUT    NetworkManager did not answer in time
 *   -ENOTCONN     NetworkManager is not running
 *   -ENODEV       NetworkManager does not know the interface, or does not manage it
 *   -EBUSY        another (not halod's) connection is active on the interface, and lp->adopt is off
 *   -ENOTUNIQ     several profiles are called "halod-<link>"
 *   -ENOENT       firewalld runs and has no zone lp->want.zone
 *   -EIO          NetworkManager refused the profile or the activation failed (its reason is given)
 *   -EINVAL       lp is incomplete
 *   -ELIBACC      halod's NetworkManager module (or libnm) could not be loaded
 *   -ELIBBAD      the module is not one of this halod
 *   -EOPNOTSUPP   halod was built without NetworkManager support */
int nm_apply_link(const LinkPlan *lp, unsigned timeout_ms, char **ret_error);

/* What haloctl apply --adopt would take over on ifname for link (nm_adopt_takes_over()), and what it
 * took over for link before (Adoption.kept), appended to list (lib/apply/adopt.h). Asks
 * NetworkManager over sd-bus ($DBUS_SYSTEM_BUS_ADDRESS is honoured) and loads no module. Finds
 * nothing when NetworkManager does not run or does not know ifname. On failure returns a negative
 * errno and a message for the user in ret_error (-ETIMEDOUT: NetworkManager did not answer). */
int nm_find_adoptions(const char *link, const char *ifname, Adoptions *list, char **ret_error);

/* Gives link back to the connections haloctl apply --adopt took it over from: their id and
 * autoconnect restored and the marks removed, the one that was active activated again on ifname,
 * and halod's profile deleted. On failure the connections are put back as they were (taken over, and
 * halod's profile active again). Errors as nm_apply_link(), and -ENOENT when nothing was taken over
 * for link. */
int nm_unadopt_link(const char *link, const char *ifname, unsigned timeout_ms, char **ret_error);
