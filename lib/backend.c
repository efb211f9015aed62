/* SPDX-License-Identifier: MIT */
/* Choosing a network backend: NetworkManager when it runs, else rtnetlink directly. */
#include "config.h"

#include "backend.h"
#include "macro.h"

static const Backend *const backends[] = {
#if HAVE_LIBNM
        &backend_networkmanager,
#endif
        &backend_netlink,
};

const Backend *backend_pick(void) {
#if HAVE_LIBNM
        if (backend_networkmanager.available())
                return &backend_networkmanager;
#endif
        return &backend_netlink;
}

const Backend *backend_by_name(const char *name) {
        for (size_t i = 0; i < ELEMENTSOF(backends); i++)
                if (name && streq(backends[i]->name, name))
                        return backends[i];
        return NULL;
}
