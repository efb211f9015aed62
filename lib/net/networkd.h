/* SPDX-License-Identifier: MIT */
/* systemd-networkd's Manager API over sd-bus (org.freedesktop.network1): whether it runs, Reload(),
 * ReconfigureLink() and a link's AdministrativeState, every call with a timeout. */
#pragma once

#include <stdbool.h>
#include <systemd/sd-bus.h>

#define NETWORKD_BUS_NAME "org.freedesktop.network1"
#define NETWORKD_CALL_TIMEOUT_USEC (10U * 1000U * 1000U)

/* Whether org.freedesktop.network1 has an owner on bus (one question to the bus daemon). */
bool networkd_running(sd_bus *bus);
/* Opens the system bus and asks; false when there is no bus. */
bool networkd_running_on_system_bus(void);

/* Manager.Reload(): networkd reads its .network files again and reconfigures the links whose file
 * changed. */
int networkd_reload(sd_bus *bus, char **ret_error);
/* Manager.ReconfigureLink(ifindex): networkd drops the link's configuration and applies its file. */
int networkd_reconfigure_link(sd_bus *bus, int ifindex, char **ret_error);
/* The Link object's AdministrativeState ("configured", "configuring", "failed", "unmanaged",
 * "linger", "pending", "initialized"), found with Manager.GetLinkByIndex(ifindex). */
int networkd_link_state(sd_bus *bus, int ifindex, char **ret_state, char **ret_error);

/* The major version of the systemd that runs as PID 1 (org.freedesktop.systemd1's Version, "252.39-1"
 * is 252), which networkd shares; negative errno when PID 1 does not answer on bus. */
int systemd_major_version(sd_bus *bus);
