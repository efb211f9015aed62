/* SPDX-License-Identifier: MIT */
/* The network backends: a small interface, so that a networkd backend can join later. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "profile/profile.h"

/* What the profile wants of one link on this node, with the netdev it resolved to. */
typedef struct LinkConfig {
        const char *link;   /* logical name, "rdma0" */
        const char *ifname; /* resolved netdev, "enp194s0f0np0" */
        uint32_t mtu;       /* 0: leave alone */
        Ipv4Prefix address;
        const char *zone; /* NULL: leave alone */
        bool ipv6;
        /* Take the link over from the configuration that holds it now (haloctl apply --adopt,
         * lib/apply/adopt.h) instead of refusing; halod itself never sets it. */
        bool adopt;
} LinkConfig;

/* lib/apply/adopt.h */
typedef struct Adoptions Adoptions;

typedef struct Backend {
        const char *name; /* "networkmanager", "netlink" */
        /* True when the backend can run on this host now (NetworkManager answers on the bus, ...). */
        bool (*available)(void);
        /* Makes the link match cfg and returns 0; on failure leaves the link as it was, returns
         * negative errno and a one-line message for the user in ret_error (the kernel's extended ack,
         * NetworkManager's reason). */
        int (*apply_link)(const LinkConfig *cfg, char **ret_error);
        /* What apply_link() with cfg->adopt would take over on ifname, and what it took over for link
         * before, appended to list; without ret_error set on success. NULL when the backend takes
         * nothing over (netlink: the kernel's state is nobody's configuration). */
        int (*find_adoptions)(const char *link, const char *ifname, Adoptions *list, char **ret_error);
        /* Gives the link back to what apply_link() with cfg->adopt took it over from; -ENOENT when it
         * took nothing over. NULL together with find_adoptions. */
        int (*unadopt_link)(const LinkConfig *cfg, char **ret_error);
} Backend;

extern const Backend backend_netlink;
/* In every build; without libnm its apply_link says that halod was built without NetworkManager
 * support. Its libnm code is loaded on its first apply_link (lib/apply/nm-module.h), never before. */
extern const Backend backend_networkmanager;

/* NetworkManager when it runs (and libnm was built in), else netlink. Asks the bus, loads nothing. */
const Backend *backend_pick(void);
/* "networkmanager" or "netlink"; NULL for any other name. */
const Backend *backend_by_name(const char *name);
