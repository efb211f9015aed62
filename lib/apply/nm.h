/* SPDX-License-Identifier: MIT */
/* NetworkManager: the one connection profile halod keeps per link. The program's side, without libnm:
 * the libnm code is in halod-backend-nm.so (lib/apply/nm-module.h), loaded by nm_apply_link() on first use. */
#pragma once

#include <stdbool.h>

#include "apply/backend.h"

/* Every halod profile in NetworkManager is called "halod-<link>"; halod never touches any other. */
#define NM_HALOD_ID_PREFIX "halod-"

/* How long one apply may wait for NetworkManager in total (client start, profile change, activation). */
#define NM_APPLY_TIMEOUT_MS_DEFAULT 20000U

/* True when NetworkManager's bus name has an owner on the system bus ($DBUS_SYSTEM_BUS_ADDRESS is
 * honoured). Answers within about a second even when the bus is slow. Plain sd-bus: loads no module. */
bool nm_running(void);

/* Makes NetworkManager's "halod-<link>" profile match cfg (creating or updating it in place) and
 * activates it on cfg->ifname, waiting at most timeout_ms in total for NetworkManager. Returns 0 when
 * the link is active with these settings (also when nothing had to change). On failure the profile
 * is rolled back (restored, or deleted when this call created it), and a negative errno is returned
 * with a one-line message for the user in ret_error:
 *   -ETIMEDOUT    NetworkManager did not answer in time
 *   -ENOTCONN     NetworkManager is not running
 *   -ENODEV       NetworkManager does not know the interface, or does not manage it
 *   -EBUSY        another (not halod's) connection is active on the interface
 *   -ENOTUNIQ     several profiles are called "halod-<link>"
 *   -ENOENT       firewalld runs and has no zone cfg->zone
 *   -EIO          NetworkManager refused the profile or the activation failed (its reason is given)
 *   -EINVAL       cfg is incomplete
 *   -ELIBACC      halod's NetworkManager module (or libnm) could not be loaded
 *   -ELIBBAD      the module is not one of this halod
 *   -EOPNOTSUPP   halod was built without NetworkManager support */
int nm_apply_link(const LinkConfig *cfg, unsigned timeout_ms, char **ret_error);
