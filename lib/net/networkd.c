/* SPDX-License-Identifier: MIT */
/* systemd-networkd's Manager API over sd-bus, with networkd's own words in every error. */
#include <stdio.h>
#include <stdlib.h>

#include "basic/errorf.h"
#include "basic/macro.h"
#include "net/bus-util.h"
#include "net/networkd.h"

#define NETWORKD_PATH "/org/freedesktop/network1"
#define NETWORKD_MANAGER_IFACE NETWORKD_BUS_NAME ".Manager"
#define NETWORKD_LINK_IFACE NETWORKD_BUS_NAME ".Link"

static int call_failed(char **ret_error, const sd_bus_error *e, int r, const char *what) {
        return bus_call_failed(ret_error, "systemd-networkd", e, r, what);
}

bool networkd_running(sd_bus *bus) {
        return bus_name_has_owner(bus, NETWORKD_BUS_NAME, /* timeout_usec= */ 0) > 0;
}

bool networkd_running_on_system_bus(void) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;

        if (sd_bus_open_system(&bus) < 0)
                return false;
        return networkd_running(bus);
}

/* One call to the Manager, without activating networkd: a stopped networkd is an error, not a start. */
static int manager_call(
        sd_bus *bus, const char *method, sd_bus_message **ret_reply, char **ret_error, const char *types, ...) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;
        va_list ap;
        int r;

        r = sd_bus_message_new_method_call(
                bus, &m, NETWORKD_BUS_NAME, NETWORKD_PATH, NETWORKD_MANAGER_IFACE, method);
        if (r < 0)
                return call_failed(ret_error, NULL, r, method);
        r = sd_bus_message_set_auto_start(m, false);
        if (r < 0)
                return call_failed(ret_error, NULL, r, method);
        va_start(ap, types);
        r = sd_bus_message_appendv(m, types, ap);
        va_end(ap);
        if (r < 0)
                return call_failed(ret_error, NULL, r, method);
        r = sd_bus_call(bus, m, NETWORKD_CALL_TIMEOUT_USEC, &e, &reply);
        if (r < 0 && sd_bus_error_has_names(&e, SD_BUS_ERROR_SERVICE_UNKNOWN, SD_BUS_ERROR_NAME_HAS_NO_OWNER))
                return errorf(
                        ret_error,
                        -ESRCH,
                        "systemd-networkd does not run (%s has no owner on the system bus); start "
                        "systemd-networkd.service",
                        NETWORKD_BUS_NAME);
        if (r < 0)
                return call_failed(ret_error, &e, r, method);
        if (ret_reply)
                *ret_reply = TAKE_PTR(reply);
        return 0;
}

int networkd_reload(sd_bus *bus, char **ret_error) {
        return manager_call(bus, "Reload", NULL, ret_error, "");
}

int networkd_reconfigure_link(sd_bus *bus, int ifindex, char **ret_error) {
        return manager_call(bus, "ReconfigureLink", NULL, ret_error, "i", (int32_t) ifindex);
}

int networkd_link_state(sd_bus *bus, int ifindex, char **ret_state, char **ret_error) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(freep) char *path = NULL;
        const char *p;
        char *state = NULL;
        int r;

        r = manager_call(bus, "GetLinkByIndex", &reply, ret_error, "i", (int32_t) ifindex);
        if (r < 0)
                return r;
        r = sd_bus_message_read(reply, "so", NULL, &p);
        if (r < 0)
                return call_failed(ret_error, NULL, r, "GetLinkByIndex");
        path = strdup(p);
        if (!path)
                return -ENOMEM;
        r = sd_bus_get_property_string(
                bus, NETWORKD_BUS_NAME, path, NETWORKD_LINK_IFACE, "AdministrativeState", &e, &state);
        if (r < 0)
                return call_failed(ret_error, &e, r, "AdministrativeState");
        *ret_state = state;
        return 0;
}

int systemd_major_version(sd_bus *bus) {
        _cleanup_(freep) char *version = NULL;
        const char *s;
        char *end;
        unsigned long v;
        int r;

        r = sd_bus_get_property_string(
                bus,
                "org.freedesktop.systemd1",
                "/org/freedesktop/systemd1",
                "org.freedesktop.systemd1.Manager",
                "Version",
                /* ret_error= */ NULL,
                &version);
        if (r < 0)
                return r;
        /* "252.39-1~deb12u1", "257.9-1", "systemd 258 (258.1-1.fc43)" on some builds. */
        s = version;
        while (*s && (*s < '0' || *s > '9'))
                s++;
        v = strtoul(s, &end, 10);
        if (end == s || v == 0 || v > 100000)
                return -EBADMSG;
        return (int) v;
}
