/* SPDX-License-Identifier: MIT */
/* Choosing a network backend: NetworkManager when it runs, else rtnetlink directly. */
#include "config.h"

#include "apply/backend.h"
#include "basic/macro.h"

static const Backend *const backends[] = {
        &backend_networkmanager,
        &backend_netlink,
};

const Backend *backend_pick(void) {
        /* When NetworkManager runs, its backend is the only right one even if its module turns out to be
         * missing: the netlink backend and NetworkManager would undo each other's changes. */
        if (backend_networkmanager.available())
                return &backend_networkmanager;
        return &backend_netlink;
}

const Backend *backend_by_name(const char *name) {
        for (size_t i = 0; i < ELEMENTSOF(backends); i++)
                if (name && streq(backends[i]->name, name))
                        return backends[i];
        return NULL;
}

uint32_t link_plan_drift(const LinkPlan *lp) {
        uint32_t drift = 0;

        if (!lp)
                return 0;
        if (lp->mtu_from != lp->mtu_to)
                drift |= LINK_DRIFT_MTU;
        if (lp->add_address)
                drift |= LINK_DRIFT_ADDRESS;
        if (lp->zone_to)
                drift |= LINK_DRIFT_ZONE;
        return drift;
}
