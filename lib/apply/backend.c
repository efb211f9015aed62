/* SPDX-License-Identifier: MIT */
/* Choosing a network backend: NetworkManager when it runs, else systemd-networkd when it runs, else
 * rtnetlink directly. */
#include "config.h"

#include <stdio.h>

#include "apply/backend.h"
#include "basic/macro.h"

static const Backend *const backends[] = {
        &backend_networkmanager,
        &backend_networkd,
        &backend_netlink,
};

const Backend *backend_pick_why(char **ret_reason) {
        const Backend *b;
        const char *why;

        /* When NetworkManager runs, its backend is the only right one even if its module turns out to be
         * missing: the netlink backend and NetworkManager would undo each other's changes. The same holds
         * for networkd, which drops addresses and routes it was not told of when it reconfigures a link;
         * NetworkManager first, because where both run NetworkManager is the one that manages the
         * Ethernet links (networkd then usually has no .network file for them). */
        if (backend_networkmanager.available()) {
                b = &backend_networkmanager;
                why = "org.freedesktop.NetworkManager is on the system bus";
        } else if (backend_networkd.available()) {
                b = &backend_networkd;
                why = "org.freedesktop.network1 is on the system bus, NetworkManager is not";
        } else {
                b = &backend_netlink;
                why = "neither NetworkManager nor systemd-networkd is on the system bus";
        }
        if (ret_reason)
                *ret_reason = strdup(why);
        return b;
}

const Backend *backend_pick(void) {
        return backend_pick_why(NULL);
}

const Backend *backend_by_name(const char *name) {
        for (size_t i = 0; i < ELEMENTSOF(backends); i++)
                if (name && streq(backends[i]->name, name))
                        return backends[i];
        return NULL;
}

char *backend_names(void) {
        char *names = NULL;
        size_t size = 0;
        FILE *f;

        f = open_memstream(&names, &size);
        if (!f)
                return NULL;
        for (size_t i = 0; i < ELEMENTSOF(backends); i++)
                fprintf(f,
                        "%s%s",
                        i == 0                                 ? ""
                                : i + 1 < ELEMENTSOF(backends) ? ", "
                                                               : " or ",
                        backends[i]->name);
        if (fclose(f) != 0)
                return mfree(names);
        return names;
}
