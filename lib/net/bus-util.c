/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "basic/errorf.h"
#include "basic/macro.h"
#include "net/bus-util.h"

int bus_name_has_owner(sd_bus *bus, const char *name, uint64_t timeout_usec) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;
        int has_owner, r;

        r = sd_bus_message_new_method_call(
                bus, &m, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner");
        if (r < 0)
                return r;
        r = sd_bus_message_append(m, "s", name);
        if (r < 0)
                return r;
        r = sd_bus_call(bus, m, timeout_usec, /* ret_error= */ NULL, &reply);
        if (r < 0)
                return r;
        r = sd_bus_message_read(reply, "b", &has_owner);
        if (r < 0)
                return r;
        return has_owner ? 1 : 0;
}

int bus_call_failed(char **ret_error, const char *service, const sd_bus_error *e, int r, const char *what) {
        return errorf(
                ret_error,
                r,
                "%s: %s: %s",
                service,
                what,
                e && sd_bus_error_is_set(e) && e->message ? e->message : strerror(-r));
}
