/* SPDX-License-Identifier: MIT */
/* The memlock limit every service gets by default: the systemd manager's DefaultLimitMEMLOCK. */
#include "basic/errorf.h"
#include "limits/memlock-sources.h"

#define SYSTEMD_DESTINATION "org.freedesktop.systemd1"
#define SYSTEMD_PATH "/org/freedesktop/systemd1"
#define SYSTEMD_MANAGER "org.freedesktop.systemd1.Manager"

static int get_u64(sd_bus *bus, const char *property, uint64_t *ret, char **ret_error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        uint64_t v;
        int r;

        r = sd_bus_message_new_method_call(
                bus, &m, SYSTEMD_DESTINATION, SYSTEMD_PATH, "org.freedesktop.DBus.Properties", "Get");
        if (r >= 0)
                r = sd_bus_message_set_auto_start(m, false);
        if (r >= 0)
                r = sd_bus_message_append(m, "ss", SYSTEMD_MANAGER, property);
        if (r < 0)
                return errorf(ret_error, r, "cannot ask systemd for %s: %s", property, strerror(-r));
        r = sd_bus_call(bus, m, SYSTEMD_CALL_TIMEOUT_USEC, &error, &reply);
        if (r < 0)
                return errorf(
                        ret_error,
                        r,
                        "systemd did not answer for %s: %s",
                        property,
                        error.message ?: strerror(-r));
        r = sd_bus_message_read(reply, "v", "t", &v);
        if (r < 0)
                return errorf(ret_error, r, "systemd's %s is not a number: %s", property, strerror(-r));
        *ret = v;
        return 0;
}

int systemd_default_memlock(sd_bus *bus, MemlockLimit *ret, char **ret_error) {
        MemlockLimit l;
        int r;

        /* sd-bus hands out RLIM_INFINITY as UINT64_MAX, which is MEMLOCK_UNLIMITED. */
        r = get_u64(bus, "DefaultLimitMEMLOCKSoft", &l.soft, ret_error);
        if (r < 0)
                return r;
        r = get_u64(bus, "DefaultLimitMEMLOCK", &l.hard, ret_error);
        if (r < 0)
                return r;
        *ret = l;
        return 0;
}
