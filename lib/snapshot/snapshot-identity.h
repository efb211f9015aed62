/* SPDX-License-Identifier: MIT */
/* What each port's netdev is to networkd's [Match] and netplan's match: beyond the netdev list: its
 * permanent address and, for a netdev without a driver in sysfs (a veth), the driver ethtool names.
 * Read with SNAPSHOT_NET_CONFIG on the running system only (the ioctl answers for the running kernel),
 * for link.<name>.owner. */
#pragma once

#include "nic/ethtool.h"
#include "snapshot/snapshot.h"

typedef struct SnapshotIdentity {
        char permanent[18];     /* ETHTOOL_GPERMADDR, "6c:fe:54:00:00:01"; valid when permanent_error is 0 */
        int permanent_error;    /* -ENOMEDIUM: not asked (no netdev, below --root) */
        EthtoolDriverInfo info; /* ETHTOOL_GDRVINFO; valid when info_error is 0 */
        int info_error;         /* -ENOMEDIUM: not asked (sysfs names the driver, no netdev, below --root) */
} SnapshotIdentity;

/* Read and forgotten by snapshot_read() and snapshot_forget(). */
int snapshot_read_identities(Snapshot *s);
void snapshot_forget_identities(Snapshot *s);
