/* SPDX-License-Identifier: MIT */
/* The network backends: a small interface, so that a networkd backend can join later. */
#pragma once

#include <stdbool.h>

#include "plan/plan.h"
#include "profile/profile.h"

/* lib/apply/adopt.h */
typedef struct Adoptions Adoptions;

typedef struct Backend {
        const char *name; /* "networkmanager", "networkd", "netlink" */
        /* True when the backend can run on this host now (NetworkManager answers on the bus, ...). */
        bool (*available)(void);
        /* Makes the link what its plan says: the changes it lists, from the state it was computed from
         * (the backend does not read the link's state again), and lp->want for a backend that configures
         * the link whole; with lp->adopt taking the link over (lib/apply/adopt.h) instead of refusing.
         * Returns 0; on failure leaves the link as it was, returns negative errno and a one-line message
         * for the user in ret_error (the kernel's extended ack, NetworkManager's reason). */
        int (*apply_link)(const LinkPlan *lp, char **ret_error);
        /* What apply_link() with lp->adopt would take over on ifname, and what it took over for link
         * before, appended to list; without ret_error set on success. NULL when the backend takes
         * nothing over (netlink: the kernel's state is nobody's configuration). */
        int (*find_adoptions)(const char *link, const char *ifname, Adoptions *list, char **ret_error);
        /* Gives link (on ifname) back to what apply_link() with lp->adopt took it over from; -ENOENT when
         * it took nothing over. NULL together with find_adoptions. */
        int (*unadopt_link)(const char *link, const char *ifname, char **ret_error);
        /* The backend makes the link's routes and forwarding itself, from lp->want (networkd drops routes it
         * was not told of): apply_node() then calls it for a routes-only change too and does not set them
         * over rtnetlink. */
        bool carries_routes;
        /* Optional, for a backend that keeps a link's configuration in a file (networkd): the file's
         * text before apply_link() (NULL in *ret_saved: there was none), and putting it and the link
         * back when a later step of the same apply fails (another link, the host's qos part, /etc/hosts,
         * the read-back from the kernel), what failed appended to errors. Both NULL or both set. */
        int (*save_link)(const LinkPlan *lp, char **ret_saved, char **ret_error);
        void (*restore_link)(const LinkPlan *lp, const char *saved, char ***errors);
} Backend;

extern const Backend backend_netlink;
/* In every build; without libnm its apply_link says that halod was built without NetworkManager
 * support. Its libnm code is loaded on its first apply_link (lib/apply/nm-module.h), never before. */
extern const Backend backend_networkmanager;

/* systemd-networkd through halod's .network files (lib/apply/backend-networkd.c). */
extern const Backend backend_networkd;

/* NetworkManager when it runs (and libnm was built in), else networkd when it runs, else netlink. Asks
 * the bus, loads nothing. */
const Backend *backend_pick(void);
/* The same, and why, for the user: "networkd: org.freedesktop.network1 is on the bus, NetworkManager
 * is not". ret_reason may be NULL; on ENOMEM it is NULL and the backend is still returned. */
const Backend *backend_pick_why(char **ret_reason);
/* "networkmanager", "networkd" or "netlink"; NULL for any other name. */
const Backend *backend_by_name(const char *name);
/* "networkmanager, networkd or netlink": the names backend_by_name() knows, for a usage error; NULL when
 * out of memory. */
char *backend_names(void);
