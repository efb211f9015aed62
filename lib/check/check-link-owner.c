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
#include "snapshot/link-match.h"
#include "snapshot/snapshot-identity.h"

/* "/etc/netplan/01-rdma.yaml (ethernets.rdma0)" for every netplan ethernet that takes id. */
static int netplan_owners(const SnapshotConfFiles *files, const NetdevIdentity *id, char ***owners) {
        int r;

        if (files->error < 0)
                return files->error;
        for (size_t k = 0; k < files->n; k++) {
                const SnapshotConfFile *f = &files->files[k];
                _cleanup_(strv_freep) char **ids = NULL;

                r = f->error;
                if (r >= 0)
                        r = netplan_file_matches(f->text, f->size, id, &ids);
                if (r == -ENOMEM)
                        return r;
                if (r < 0)
                        continue; /* unreadable or not YAML: netplan refuses it too */
                STRV_FOREACH(i, ids)
                        if (strv_extendf(owners, "%s (ethernets.%s)", f->path, *i) < 0)
                                return -ENOMEM;
        }
        return 0;
}

/* What the link's netdev is to networkd's [Match] and netplan's match:; the strings point into the
 * snapshot's netdev list and port identity (the permanent address and ethtool's driver, which only the
 * running kernel answers). */
static NetdevIdentity owner_identity(const Snapshot *s, size_t port, const char *ifname) {
        const SnapshotIdentity *facts = s->identities && port < s->n_ports ? &s->identities[port] : NULL;
        NetdevIdentity id = { .ifname = ifname, .type = "ether" };

        for (size_t i = 0; i < s->netdevs.n; i++)
                if (streq(s->netdevs.netdevs[i].name, ifname)) {
                        id.mac = s->netdevs.netdevs[i].mac;
                        id.driver = s->netdevs.netdevs[i].driver;
                }
        if (facts && facts->permanent_error >= 0)
                id.permanent_mac = facts->permanent;
        if (facts && !id.driver && facts->info_error >= 0)
                id.driver = facts->info.driver;
        return id;
}

/* The files that take the netdev: halod's own, the others, and the one networkd uses. */
typedef struct LinkOwners {
        char *own_path; /* halod's .network file, when it takes the netdev */
        char **foreign; /* the other .network files and netplan ethernets */
        char *used;     /* the .network file networkd uses: the first that matches; NULL: none */
} LinkOwners;

static void link_owners_done(LinkOwners *o) {
        free(o->own_path);
        strv_free(o->foreign);
        free(o->used);
}

/* Every .network file networkd would read, in the order in which it tries them. */
static int networkd_owners(
        const SnapshotConfFiles *files, const NetdevIdentity *id, const char *own_name, LinkOwners *o) {
        int r;

        if (files->error < 0)
                return files->error;
        for (size_t k = 0; k < files->n; k++) {
                const char *path = files->files[k].path;
                bool matches;

                if (files->files[k].error < 0)
                        continue; /* unreadable: networkd cannot read it either */
                r = networkd_file_matches(files->files[k].text, id, &matches);
                if (r < 0)
                        return r;
                if (!matches)
                        continue;
                if (!o->used && !(o->used = strdup(path)))
                        return -ENOMEM;
                if (streq(strrchr(path, '/') + 1, own_name)) {
                        free(o->own_path);
                        o->own_path = strdup(path);
                        if (!o->own_path)
                                return -ENOMEM;
                } else if (strv_extend(&o->foreign, path) < 0)
                        return -ENOMEM;
        }
        return 0;
}

static int owner_evaluate(
        const NodeLink *nl, const char *label, const char *own_name, const LinkOwners *o, CheckList *out) {
        _cleanup_(freep) char *joined = NULL;

        if (!o->foreign) {
                if (o->own_path)
                        return check_list_add_link(
                                out,
                                nl->link,
                                "owner",
                                CHECK_PASS,
                                o->own_path,
                                o->own_path,
                                "%s is configured by halod's %s only",
                                label,
                                o->own_path);
                return check_list_skip_link(
                        out, nl->link, "owner", "no systemd-networkd or netplan file configures %s", label);
        }
        joined = strv_join(o->foreign, ", ");
        if (!joined)
                return -ENOMEM;
        return check_list_add_link(
                out,
                nl->link,
                "owner",
                CHECK_WARN,
                o->own_path ?: "",
                joined,
                "%s is also configured by %s; systemd-networkd uses %s%s; remove the interface from them (or "
                "narrow their [Match]/match:) so that one configuration owns it",
                label,
                joined,
                o->used ?: "none of the .network files",
                o->used && !streq(strrchr(o->used, '/') + 1, own_name) && o->own_path ? ", not halod's file"
                                                                                      : "");
}

int check_link_owner(
        const NodeContext *c,
        const Snapshot *s,
        size_t port,
        const NodeLink *nl,
        const LinkPlan *lp,
        CheckList *out) {
        NetdevIdentity id;
        _cleanup_(link_owners_done) LinkOwners owners = {};
        _cleanup_(freep) char *own_name = NULL, *label = NULL;
        int r;

        if (!lp->ifname)
                return 0;
        label = link_plan_label(lp);
        own_name = networkd_file_name(nl->link);
        if (!label || !own_name)
                return -ENOMEM;

        id = owner_identity(s, port, lp->ifname);
        r = networkd_owners(&s->host.network_files, &id, own_name, &owners);
        if (r >= 0)
                r = netplan_owners(&s->host.netplan_files, &id, &owners.foreign);
        if (r < 0)
                return r;
        return owner_evaluate(nl, label, own_name, &owners, out);
}
