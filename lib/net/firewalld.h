/* SPDX-License-Identifier: MIT */
/* firewalld's D-Bus API (org.fedoraproject.FirewallD1) through sd-bus: the zone of an interface, at
 * runtime and in the permanent configuration that survives `firewall-cmd --reload`. */
#pragma once

#include <stdbool.h>
#include <systemd/sd-bus.h>

/* firewalld answers within milliseconds; a hung one must not hang halod. */
#define FIREWALLD_CALL_TIMEOUT_USEC (10U * 1000U * 1000U)

/* Every function takes a bus on the system bus (sd_bus_open_system(), which honours
 * DBUS_SYSTEM_BUS_ADDRESS). Failures return negative errno and, when ret_error is not NULL, a
 * one-line reason for the user in *ret_error (firewalld's own, "INVALID_ZONE: foo"). */

/* Connects to the system bus. Returns 1 and the bus when firewalld runs; 0 and NULL when there is no
 * system bus or firewalld does not own its name there. */
int firewalld_connect(sd_bus **ret);

/* Connects to the system bus without asking whether firewalld runs: the first call says so itself
 * (-ESRCH below), which saves a round trip to the bus daemon. Returns 1 and the bus when the
 * connection is up (Hello answered), 0 and NULL when there is no system bus. For callers that ask
 * firewalld once or twice and treat "not running" as an answer, like plan_node() and the link checks. */
int firewalld_open(sd_bus **ret);

/* Every call goes out without auto-start, so asking never activates a firewalld that does not run. A
 * call to a firewalld that does not own its bus name (ServiceUnknown, NameHasNoOwner) returns -ESRCH. */

/* > 0 when firewalld owns its bus name, 0 when it does not run. */
int firewalld_is_running(sd_bus *bus);

/* The runtime zones. */
int firewalld_get_zones(sd_bus *bus, char ***ret_zones, char **ret_error);
/* 0 when the zone exists; -ENOENT (with a message that lists the zones) when it does not. */
int firewalld_check_zone(sd_bus *bus, const char *zone, char **ret_error);

/* The runtime zone of an interface; "" when it is in none (then the default zone applies). */
int firewalld_get_zone_of_interface(sd_bus *bus, const char *ifname, char **ret_zone, char **ret_error);
/* The zone the permanent configuration puts the interface in; "" when none. */
int firewalld_get_permanent_zone_of_interface(sd_bus *bus, const char *ifname, char **ret_zone, char **ret_error);

/* Runtime: moves the interface into zone (changeZoneOfInterface). zone "" means the default zone. */
int firewalld_change_zone_of_interface(sd_bus *bus, const char *zone, const char *ifname, char **ret_error);
/* Runtime: takes the interface out of whatever zone it is in. */
int firewalld_remove_interface(sd_bus *bus, const char *ifname, char **ret_error);
/* Permanent: puts the interface in zone's configuration and takes it out of the zone that had it;
 * zone "" only takes it out. */
int firewalld_set_permanent_zone_of_interface(sd_bus *bus, const char *zone, const char *ifname, char **ret_error);
