/* SPDX-License-Identifier: MIT */
/* Each port's permanent address and ethtool driver, for link.<name>.owner. */
#include <stdlib.h>

#include "snapshot/snapshot-identity.h"

/* The driver sysfs names for the netdev: from the netdev list the ports were resolved against. */
static const char *listed_driver(const NetdevList *netdevs, const char *ifname) {
        const char *driver = NULL;

        for (size_t i = 0; i < netdevs->n; i++)
                if (streq(netdevs->netdevs[i].name, ifname))
                        driver = netdevs->netdevs[i].driver;
        return driver;
}

static void read_one(const Snapshot *s, const char *ifname, SnapshotIdentity *id) {
        *id = (SnapshotIdentity){ .permanent_error = -ENOMEDIUM, .info_error = -ENOMEDIUM };
        if (!ifname || !host_is_running_system(s->context->host))
                return;
        id->permanent_error = ethtool_get_permanent_address(ifname, id->permanent);
        if (id->permanent_error > 0)
                id->permanent_error = 0;
        /* networkd matches Driver= against ethtool's answer where sysfs has no driver (a veth). */
        if (!listed_driver(&s->netdevs, ifname)) {
                id->info_error = ethtool_get_driver_info(ifname, &id->info);
                if (id->info_error > 0)
                        id->info_error = 0;
        }
}

int snapshot_read_identities(Snapshot *s) {
        s->identities = calloc(s->n_ports ?: 1, sizeof(SnapshotIdentity));
        if (!s->identities)
                return -ENOMEM;
        for (size_t i = 0; i < s->n_ports; i++)
                read_one(s, s->ports[i].ifname, &s->identities[i]);
        return 0;
}

void snapshot_forget_identities(Snapshot *s) {
        s->identities = mfree(s->identities);
}
