/* SPDX-License-Identifier: MIT */
/* Finding the one netdev a profile link's match (driver, pci, mac, name glob) describes, in sysfs. */
#pragma once

#include "basic/host.h"
#include "profile/profile.h"

/* What sysfs says about one netdev. driver and pci are NULL for virtual devices (no device link). */
typedef struct NetdevInfo {
        char *name;
        char *driver;        /* basename of /sys/class/net/NAME/device/driver */
        char *pci;           /* basename of /sys/class/net/NAME/device, "0000:c2:00.0" */
        char *mac;           /* /sys/class/net/NAME/address, lower case */
        char *permanent_mac; /* ETHTOOL_GPERMADDR on the running system; NULL: none (a veth), or below
                              * --root, where no ioctl reaches the tree */
} NetdevInfo;

void netdev_info_array_free(NetdevInfo *a, size_t n);

/* Every netdev under the host's /sys/class/net, sorted by name. */
int netdev_list(const Host *h, NetdevInfo **ret, size_t *ret_n);

/* The netdev list, listed once for every link to resolve against (and kept in the snapshot). */
typedef struct NetdevList {
        NetdevInfo *netdevs;
        size_t n;
        int error; /* the errno of listing /sys/class/net; 0 when listed */
} NetdevList;

/* Lists the netdevs into ret, keeping the error of listing in ret->error; -ENOMEM only. */
int netdev_list_read(const Host *h, NetdevList *ret);
void netdev_list_done(NetdevList *l);

/* True when the netdev satisfies every field the match sets. Devices without a parent device
 * (lo, veth, bridges) never match a driver or pci field. mac is the permanent address where the
 * device has one: the current one is anybody's with CAP_NET_ADMIN (the user halod) to set. */
bool link_match_test(const LinkMatch *m, const NetdevInfo *n) _pure_;

/* "driver ice, pci 0000:c2:00.0" */
char *link_match_describe(const LinkMatch *m);

/* Resolves the match to exactly one netdev. Returns 0 and its name; -ENOENT when none matches and
 * -ENOTUNIQ when several do, with a message for the user in ret_error that lists the candidates;
 * other negative errno when sysfs cannot be read (ret_error says so). */
int link_match_resolve(const Host *h, const LinkMatch *m, char **ret_ifname, char **ret_error);
/* The same against a list already read. */
int link_match_resolve_in(const NetdevList *l, const LinkMatch *m, char **ret_ifname, char **ret_error);
