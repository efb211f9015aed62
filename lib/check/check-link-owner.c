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

/* "/etc/netplan/01-rdma.yaml (ethernets.rdma0)" for every netplan ethernet that takes id. */
static int netplan_owners(const Host *h, const NetdevIdentity *id, char ***owners) {
        static const char *const dirs[] = { NETPLAN_DIR };
        _cleanup_(strv_freep) char **files = NULL;
        int r;

        r = host_conf_files(h, dirs, ELEMENTSOF(dirs), ".yaml", &files);
        if (r < 0)
                return r;
        STRV_FOREACH(f, files) {
                _cleanup_(strv_freep) char **ids = NULL;
                _cleanup_(freep) char *text = NULL;
                size_t size;

                r = host_read_file(h, *f, NETPLAN_FILE_MAX, &text, &size);
                if (r >= 0)
                        r = netplan_file_matches(text, size, id, &ids);
                if (r == -ENOMEM)
                        return r;
                if (r < 0)
                        continue; /* unreadable or not YAML: netplan refuses it too */
                STRV_FOREACH(i, ids)
                        if (strv_extendf(owners, "%s (ethernets.%s)", *f, *i) < 0)
                                return -ENOMEM;
        }
        return 0;
}

int check_link_owner(const NodeContext *c, const NodeLink *nl, const LinkPlan *lp, CheckList *out) {
        static const char *const dirs[] = { NETWORKD_DIRS };
        _cleanup_(strv_freep) char **files = NULL, **foreign = NULL;
        _cleanup_(freep) char *own_name = NULL, *label = NULL, *joined = NULL, *own_path = NULL;
        NetdevInfo *netdevs = NULL;
        size_t n_netdevs = 0;
        const char *used = NULL;
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

        /* Every .network file networkd would read, in the order in which it tries them. */
        r = host_conf_files(c->host, dirs, ELEMENTSOF(dirs), ".network", &files);
        STRV_FOREACH(f, files) {
                _cleanup_(freep) char *text = NULL;
                bool matches;

                if (r < 0)
                        break;
                r = host_read_file(c->host, *f, NETWORK_FILE_MAX, &text, NULL);
                if (r == -ENOMEM)
                        break;
                if (r < 0) {
                        r = 0; /* unreadable: networkd cannot read it either */
                        continue;
                }
                r = networkd_file_matches(text, &id, &matches);
                if (r < 0)
                        break;
                if (!matches)
                        continue;
                used = used ?: *f;
                if (streq(strrchr(*f, '/') + 1, own_name)) {
                        own_path = strdup(*f);
                        if (!own_path)
                                r = -ENOMEM;
                } else
                        r = strv_extend(&foreign, *f);
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
                return check_list_skip_link(
                        out, nl->link, "owner", "no systemd-networkd or netplan file configures %s", label);
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
                used ?: "none of the .network files",
                used && !streq(strrchr(used, '/') + 1, own_name) && own_path ? ", not halod's file" : "");
}
