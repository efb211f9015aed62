/* SPDX-License-Identifier: MIT */
/* link.<name>.owner: which .network files (in networkd's directories) and netplan files take the link's
 * interface besides halod's own, and which one networkd uses: two configurations of one interface undo
 * each other at the next reload. */
#include <stdio.h>
#include <stdlib.h>

#include "basic/strv.h"
#include "check/check-link-owner.h"
#include "net/netplan-match.h"
#include "net/networkd-match.h"
#include "nic/ethtool.h"
#include "nic/link-match.h"

#define NETWORK_FILE_MAX (64U * 1024U)

static bool has_suffix(const char *s, const char *suffix) {
        size_t n = strlen(s), k = strlen(suffix);

        return n > k && streq(s + n - k, suffix);
}

typedef struct NetworkFile {
        char *name;
        char *path;
} NetworkFile;

static int network_file_compare(const void *a, const void *b) {
        return strcmp(((const NetworkFile *) a)->name, ((const NetworkFile *) b)->name);
}

typedef struct NetworkFiles {
        NetworkFile *files;
        size_t n;
} NetworkFiles;

static void network_files_done(NetworkFiles *l) {
        for (size_t i = 0; i < l->n; i++) {
                free(l->files[i].name);
                free(l->files[i].path);
        }
        free(l->files);
}

/* Every .network file networkd would read, one per name (the first directory wins), sorted by name:
 * the order in which networkd tries them. */
static int network_files_list(const Host *h, NetworkFiles *ret) {
        static const char *const dirs[] = { NETWORKD_DIRS };
        _cleanup_(network_files_done) NetworkFiles l = {};

        for (size_t d = 0; d < ELEMENTSOF(dirs); d++) {
                _cleanup_(strv_freep) char **entries = NULL;

                if (host_list_directory(h, dirs[d], &entries) < 0)
                        continue; /* missing, or not readable: nothing networkd reads either */
                STRV_FOREACH(e, entries) {
                        bool seen = false;
                        NetworkFile *n;

                        if (!has_suffix(*e, ".network"))
                                continue;
                        for (size_t i = 0; i < l.n && !seen; i++)
                                seen = streq(l.files[i].name, *e);
                        if (seen)
                                continue;
                        n = reallocarray(l.files, l.n + 1, sizeof(NetworkFile));
                        if (!n)
                                return -ENOMEM;
                        l.files = n;
                        n = &l.files[l.n];
                        *n = (NetworkFile){ .name = strdup(*e) };
                        if (!n->name || asprintf(&n->path, "%s/%s", dirs[d], *e) < 0) {
                                free(n->name);
                                return -ENOMEM;
                        }
                        l.n++;
                }
        }
        if (l.n > 0)
                qsort(l.files, l.n, sizeof(NetworkFile), network_file_compare);
        *ret = l;
        l = (NetworkFiles){};
        return 0;
}

/* "/etc/netplan/01-rdma.yaml (ethernets.rdma0)" for every netplan ethernet that takes id. */
static int netplan_owners(const Host *h, const NetdevIdentity *id, char ***owners) {
        _cleanup_(strv_freep) char **entries = NULL;

        if (host_list_directory(h, NETPLAN_DIR, &entries) < 0)
                return 0;
        STRV_FOREACH(e, entries) {
                _cleanup_(freep) char *path = NULL, *text = NULL;
                _cleanup_(strv_freep) char **ids = NULL;
                size_t size;

                if (!has_suffix(*e, ".yaml"))
                        continue;
                if (asprintf(&path, NETPLAN_DIR "/%s", *e) < 0)
                        return -ENOMEM;
                if (host_read_file(h, path, NETPLAN_FILE_MAX, &text, &size) < 0 ||
                    netplan_file_matches(text, size, id, &ids) < 0)
                        continue; /* unreadable or not YAML: netplan refuses it too */
                STRV_FOREACH(i, ids)
                        if (strv_extendf(owners, "%s (ethernets.%s)", path, *i) < 0)
                                return -ENOMEM;
        }
        return 0;
}

int check_link_owner(const NodeContext *c, const NodeLink *nl, const LinkPlan *lp, CheckList *out) {
        _cleanup_(network_files_done) NetworkFiles files = {};
        _cleanup_(strv_freep) char **foreign = NULL;
        _cleanup_(freep) char *own_name = NULL, *label = NULL, *joined = NULL, *own_path = NULL;
        NetdevInfo *netdevs = NULL;
        size_t n_netdevs = 0;
        const NetworkFile *used = NULL;
        char permanent[18];
        EthtoolDriverInfo info;
        NetdevIdentity id;
        int r;

        if (!lp->ifname)
                return 0;
        label = link_plan_label(lp);
        own_name = networkd_file_name(nl->link);
        if (!label || !own_name)
                return -ENOMEM;

        id = (NetdevIdentity){ .ifname = lp->ifname, .type = "ether" };
        if (netdev_list(c->host, &netdevs, &n_netdevs) >= 0)
                for (size_t i = 0; i < n_netdevs; i++)
                        if (streq(netdevs[i].name, lp->ifname)) {
                                id.mac = netdevs[i].mac;
                                id.driver = netdevs[i].driver;
                        }
        /* The permanent address, and the driver of a device without a parent in sysfs (a veth: networkd
         * matches Driver= against ethtool's answer), are only asked of the running kernel. */
        if (host_is_running_system(c->host)) {
                if (ethtool_get_permanent_address(lp->ifname, permanent) >= 0)
                        id.permanent_mac = permanent;
                if (!id.driver && ethtool_get_driver_info(lp->ifname, &info) >= 0)
                        id.driver = info.driver;
        }

        r = network_files_list(c->host, &files);
        for (size_t i = 0; r >= 0 && i < files.n; i++) {
                _cleanup_(freep) char *text = NULL;
                bool matches;

                if (host_read_file(c->host, files.files[i].path, NETWORK_FILE_MAX, &text, NULL) < 0)
                        continue;
                r = networkd_file_matches(text, &id, &matches);
                if (r < 0 || !matches)
                        continue;
                used = used ?: &files.files[i];
                if (streq(files.files[i].name, own_name)) {
                        own_path = strdup(files.files[i].path);
                        if (!own_path)
                                r = -ENOMEM;
                } else
                        r = strv_extend(&foreign, files.files[i].path);
        }
        if (r >= 0)
                r = netplan_owners(c->host, &id, &foreign);
        netdev_info_array_free(netdevs, n_netdevs);
        if (r < 0)
                return r;

        if (!foreign) {
                if (own_path)
                        return check_list_add_link(
                                out,
                                nl->link,
                                "owner",
                                CHECK_PASS,
                                own_path,
                                own_path,
                                "%s is configured by halod's %s only",
                                label,
                                own_path);
                return check_list_add_link(
                        out,
                        nl->link,
                        "owner",
                        CHECK_SKIP,
                        "",
                        "",
                        "no systemd-networkd or netplan file configures %s",
                        label);
        }
        joined = strv_join(foreign, ", ");
        if (!joined)
                return -ENOMEM;
        return check_list_add_link(
                out,
                nl->link,
                "owner",
                CHECK_WARN,
                own_path ?: "",
                joined,
                "%s is also configured by %s; systemd-networkd uses %s%s; remove the interface from them (or "
                "narrow their [Match]/match:) so that one configuration owns it",
                label,
                joined,
                used ? used->path : "none of the .network files",
                used && !streq(used->name, own_name) && own_path ? ", not halod's file" : "");
}
