/* SPDX-License-Identifier: MIT */
/* firewalld's zone API over sd-bus, runtime and permanent, every call with a timeout. */
#include <stdio.h>

#include "basic/errorf.h"
#include "basic/macro.h"
#include "basic/strv.h"
#include "net/bus-util.h"
#include "net/firewalld.h"

#define FW_NAME "org.fedoraproject.FirewallD1"
#define FW_PATH "/org/fedoraproject/FirewallD1"
#define FW_ZONE_IFACE FW_NAME ".zone"
#define FW_CONFIG_PATH FW_PATH "/config"
#define FW_CONFIG_IFACE FW_NAME ".config"
#define FW_CONFIG_ZONE_IFACE FW_NAME ".config.zone"

/* firewalld's own words for a failed call when it gave any, else the errno's. */
static int call_failed(char **ret_error, const sd_bus_error *e, int r, const char *what) {
        return bus_call_failed(ret_error, "firewalld", e, r, what);
}

/* sd_bus_call_method() with our timeout: one call, one reply, or an error that says what failed. */
static int
        call(sd_bus *bus,
             const char *path,
             const char *interface,
             const char *method,
             sd_bus_message **ret_reply,
             char **ret_error,
             const char *types,
             ...) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;
        va_list ap;
        int r;

        r = sd_bus_message_new_method_call(bus, &m, FW_NAME, path, interface, method);
        if (r < 0)
                goto fail;
        r = sd_bus_message_set_auto_start(m, false);
        if (r < 0)
                goto fail;
        va_start(ap, types);
        r = sd_bus_message_appendv(m, types, ap);
        va_end(ap);
        if (r < 0)
                goto fail;
        r = sd_bus_call(bus, m, FIREWALLD_CALL_TIMEOUT_USEC, &e, &reply);
        if (r < 0 && sd_bus_error_has_names(&e, SD_BUS_ERROR_SERVICE_UNKNOWN, SD_BUS_ERROR_NAME_HAS_NO_OWNER))
                r = -ESRCH; /* firewalld does not run (any more) */
        if (r < 0)
                goto fail;
        if (ret_reply)
                *ret_reply = TAKE_PTR(reply);
        return 0;

fail:
        return call_failed(ret_error, &e, r, method);
}

static int read_string_reply(sd_bus_message *reply, const char *method, char **ret, char **ret_error) {
        const char *s;
        char *copy;
        int r;

        r = sd_bus_message_read(reply, "s", &s);
        if (r < 0) {
                return call_failed(ret_error, NULL, r, method);
        }
        copy = strdup(s);
        if (!copy)
                return -ENOMEM;
        *ret = copy;
        return 0;
}

int firewalld_is_running(sd_bus *bus) {
        return bus_name_has_owner(bus, FW_NAME, FIREWALLD_CALL_TIMEOUT_USEC);
}

int firewalld_open(sd_bus **ret) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        const char *unique;

        *ret = NULL;
        if (sd_bus_open_system(&bus) < 0)
                return 0;
        /* Waits for Hello's answer, which every first call waits for anyway: a bus that refuses us is
         * "no bus" here, not a failed call later. */
        if (sd_bus_get_unique_name(bus, &unique) < 0)
                return 0;
        *ret = TAKE_PTR(bus);
        return 1;
}

int firewalld_connect(sd_bus **ret) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;

        *ret = NULL;
        if (firewalld_open(&bus) <= 0 || firewalld_is_running(bus) <= 0)
                return 0;
        *ret = TAKE_PTR(bus);
        return 1;
}

int firewalld_get_zones(sd_bus *bus, char ***ret_zones, char **ret_error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        char **zones = NULL;
        int r;

        r = call(bus, FW_PATH, FW_ZONE_IFACE, "getZones", &reply, ret_error, "");
        if (r < 0)
                return r;
        r = sd_bus_message_read_strv(reply, &zones);
        if (r < 0) {
                return call_failed(ret_error, NULL, r, "getZones");
        }
        *ret_zones = zones;
        return 0;
}

int firewalld_check_zone(sd_bus *bus, const char *zone, char **ret_error) {
        _cleanup_(strv_freep) char **zones = NULL;
        _cleanup_(freep) char *list = NULL;
        int r;

        r = firewalld_get_zones(bus, &zones, ret_error);
        if (r < 0)
                return r;
        if (strv_contains(zones, zone))
                return 0;

        list = strv_join(zones, ", ");
        if (!list)
                return -ENOMEM;
        return errorf(
                ret_error,
                -ENOENT,
                "firewalld has no zone '%s' (zones: %s); fix firewall-zone in the profile "
                "or create the zone with firewall-cmd --permanent --new-zone=%s",
                zone,
                list,
                zone);
}

int firewalld_get_zone_of_interface(sd_bus *bus, const char *ifname, char **ret_zone, char **ret_error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        int r;

        r = call(bus, FW_PATH, FW_ZONE_IFACE, "getZoneOfInterface", &reply, ret_error, "s", ifname);
        if (r < 0)
                return r;
        return read_string_reply(reply, "getZoneOfInterface", ret_zone, ret_error);
}

int firewalld_get_permanent_zone_of_interface(sd_bus *bus, const char *ifname, char **ret_zone, char **ret_error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(freep) char *zone = NULL;
        int r;

        r = call(bus, FW_CONFIG_PATH, FW_CONFIG_IFACE, "getZoneOfInterface", &reply, ret_error, "s", ifname);
        if (r < 0)
                return r;
        r = read_string_reply(reply, "getZoneOfInterface", &zone, ret_error);
        if (r < 0)
                return r;
        /* Several zone files naming the interface come back as one line with an error text. */
        if (strchr(zone, ' '))
                return errorf(ret_error, -ENOTUNIQ, "firewalld's permanent configuration: %s", zone);
        *ret_zone = TAKE_PTR(zone);
        return 0;
}

int firewalld_change_zone_of_interface(sd_bus *bus, const char *zone, const char *ifname, char **ret_error) {
        return call(bus, FW_PATH, FW_ZONE_IFACE, "changeZoneOfInterface", NULL, ret_error, "ss", zone, ifname);
}

int firewalld_remove_interface(sd_bus *bus, const char *ifname, char **ret_error) {
        /* An empty zone: "whichever zone it is in". */
        return call(bus, FW_PATH, FW_ZONE_IFACE, "removeInterface", NULL, ret_error, "ss", "", ifname);
}

static int config_zone_call(
        sd_bus *bus, const char *zone, const char *method, const char *ifname, char **ret_error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        const char *path;
        int r;

        r = call(bus, FW_CONFIG_PATH, FW_CONFIG_IFACE, "getZoneByName", &reply, ret_error, "s", zone);
        if (r < 0)
                return r;
        r = sd_bus_message_read(reply, "o", &path);
        if (r < 0) {
                return call_failed(ret_error, NULL, r, "getZoneByName");
        }
        return call(bus, path, FW_CONFIG_ZONE_IFACE, method, NULL, ret_error, "s", ifname);
}

int firewalld_set_permanent_zone_of_interface(
        sd_bus *bus, const char *zone, const char *ifname, char **ret_error) {
        _cleanup_(freep) char *old = NULL;
        int r;

        r = firewalld_get_permanent_zone_of_interface(bus, ifname, &old, ret_error);
        if (r < 0)
                return r;
        if (streq(old, zone))
                return 0;

        /* firewalld refuses a second zone for an interface (ZONE_CONFLICT): take it out of the old
         * zone first, and put it back there if the new zone does not take it. */
        if (!isempty(old)) {
                r = config_zone_call(bus, old, "removeInterface", ifname, ret_error);
                if (r < 0)
                        return r;
        }
        if (!isempty(zone)) {
                r = config_zone_call(bus, zone, "addInterface", ifname, ret_error);
                if (r < 0) {
                        if (!isempty(old))
                                (void) config_zone_call(bus, old, "addInterface", ifname, NULL);
                        return r;
                }
        }
        return 0;
}
