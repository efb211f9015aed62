/* SPDX-License-Identifier: MIT */
/* Finds each fabric link's PCI device and netdev by walking sysfs below the host root. */
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <strings.h>

#include "basic/strv.h"
#include "nic/netdev-pci.h"
#include "nic/pci-sysfs.h"
#include "snapshot/fabric.h"
#include "snapshot/link-match.h"

/* What sysfs says about a netdev or a PCI device. */
typedef struct Facts {
        char *pci;
        char *driver;
        char *mac;
        PciId id;
        bool has_id;
} Facts;

static void facts_done(Facts *f) {
        free(f->pci);
        free(f->driver);
        free(f->mac);
}

/* Reads the facts of a device directory ("/sys/class/net/X/device" or "/sys/bus/pci/devices/A"). */
static int read_device_facts(const Host *h, const char *dir, Facts *f) {
        _cleanup_(freep) char *driver_path = NULL;
        int r;

        if (asprintf(&driver_path, "%s/driver", dir) < 0)
                return -ENOMEM;
        r = host_readlink_basename(h, driver_path, &f->driver);
        if (r == -ENOMEM)
                return r;
        r = pci_sysfs_id_at(h, dir, &f->id);
        if (r == -ENOMEM)
                return r;
        f->has_id = r >= 0;
        return 0;
}

static bool ids_contain(const ProfileNic *nic, PciId id) {
        for (size_t i = 0; i < nic->n_pci_ids; i++)
                if (nic->pci_ids[i].vendor == id.vendor && nic->pci_ids[i].device == id.device)
                        return true;
        return false;
}

/* For a device without netdev, a match by address or driver is all there is to go by; a match by
 * driver alone may also see a second NIC of the same family (an onboard E810): the pci-ids of the
 * node's NIC (its own nic:, else the profile's) decide then. */
static bool device_matches(const ProfileNic *nic, const LinkMatch *m, const Facts *f) {
        if (m->pci && (!f->pci || strcasecmp(m->pci, f->pci) != 0))
                return false;
        if (m->driver && !streq_ptr(m->driver, f->driver))
                return false;
        if (!m->pci && nic->n_pci_ids > 0)
                return f->has_id && ids_contain(nic, f->id);
        return true;
}

/* The PCI device of a resolved netdev (nic/netdev-pci.h). Returns 1 with *ret_pci, 0 with
 * *ret_problem saying what the interface is instead, <0 on allocation failure. */
static int port_pci_address(
        const Host *h, const char *link, const char *ifname, char **ret_pci, char **ret_problem) {
        _cleanup_(freep) char *device = NULL, *bus = NULL;
        int r;

        r = netdev_pci_address(h, ifname, ret_pci, &device, &bus);
        if (r == -ENOMEM)
                return r;
        if (r >= 0)
                return 1;
        if (r != -EXDEV)
                return asprintf(
                               ret_problem,
                               "%s (link %s) has no device in sysfs: it is a virtual interface, not a "
                               "NIC; match the link to the NIC's port",
                               ifname,
                               link) < 0
                        ? -ENOMEM
                        : 0;
        return asprintf(
                       ret_problem,
                       "%s (link %s) is %s on the %s bus, not a PCI device: the nic. checks need the "
                       "fabric NIC's PCI function",
                       ifname,
                       link,
                       device,
                       bus ?: "unknown") < 0
                ? -ENOMEM
                : 0;
}

/* The netdev through link-match.c, the same resolution the apply path uses: sets ifname, or
 * problem, resolve_error and resolve_errno. <0 only on allocation failure. */
static int resolve_netdev(const NetdevList *netdevs, const LinkMatch *m, FabricPort *port) {
        _cleanup_(freep) char *ifname = NULL, *error = NULL;
        int r;

        r = link_match_resolve_in(netdevs, m, &ifname, &error);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                if (asprintf(&port->problem, "link %s: %s", port->link, error ?: strerror(-r)) < 0)
                        return -ENOMEM;
                port->resolve_error = TAKE_PTR(error);
                port->resolve_errno = r;
                return 0;
        }
        port->ifname = TAKE_PTR(ifname);
        return 0;
}

/* The PCI device and the ifindex of a resolved netdev. */
static int locate_netdev(const NodeContext *c, FabricPort *port) {
        unsigned ifindex;
        int r;

        r = port_pci_address(c->host, port->link, port->ifname, &port->pci, &port->problem);
        if (r < 0)
                return r;
        if (netdev_read_uint(c->host, port->ifname, "ifindex", &ifindex) >= 0 && ifindex <= INT_MAX)
                port->ifindex = (int) ifindex;
        return 0;
}

/* For a device that has no netdev (unbound, or its driver failed to probe): match by address or
 * driver among the PCI devices. */
static int find_by_pci(const NodeContext *c, const LinkMatch *m, FabricPort *port) {
        _cleanup_(strv_freep) char **addresses = NULL;
        int r;

        if (m->name || m->mac || (!m->pci && !m->driver))
                return 0;
        r = host_list_directory(c->host, "/sys/bus/pci/devices", &addresses);
        if (r == -ENOMEM)
                return r;
        STRV_FOREACH(a, addresses) {
                _cleanup_(facts_done) Facts f = {};
                _cleanup_(freep) char *dir = NULL;

                if (!pci_address_is_valid(*a))
                        continue;
                if (asprintf(&dir, "/sys/bus/pci/devices/%s", *a) < 0)
                        return -ENOMEM;
                f.pci = strdup(*a);
                if (!f.pci)
                        return -ENOMEM;
                r = read_device_facts(c->host, dir, &f);
                if (r < 0)
                        return r;
                if (!device_matches(node_context_nic(c), m, &f))
                        continue;
                port->pci = TAKE_PTR(f.pci);
                return 1;
        }
        return 0;
}

static int fabric_port_resolve(const NetdevList *netdevs, const char *link, const LinkMatch *m, FabricPort *port) {
        port->link = strdup(link);
        if (!port->link)
                return -ENOMEM;
        if (!m || link_match_is_empty(m)) {
                port->resolve_errno = -EINVAL;
                return asprintf(
                               &port->problem,
                               "link %s has no match: give it one (driver, pci, mac or name) in the profile",
                               link) < 0
                        ? -ENOMEM
                        : 0;
        }
        return resolve_netdev(netdevs, m, port);
}

static int fabric_port_locate(const NodeContext *c, const LinkMatch *m, FabricPort *port) {
        _cleanup_(freep) char *what = NULL;
        int r;

        if (port->ifname)
                return locate_netdev(c, port);
        /* Several netdevs match, or sysfs could not be read: the problem says so. */
        if (port->resolve_errno != -ENOENT)
                return 0;

        r = find_by_pci(c, m, port);
        if (r <= 0)
                return r; /* nothing: the problem from link-match says what is there */

        port->problem = mfree(port->problem);
        what = link_match_describe(m);
        if (!what)
                return -ENOMEM;
        r = asprintf(
                &port->problem,
                "PCI device %s of link %s (%s) has no network interface: is its driver bound? "
                "`lspci -k -s %s` and the kernel log (`journalctl -k`) say why",
                port->pci,
                port->link,
                what,
                port->pci);
        return r < 0 ? -ENOMEM : 0;
}

void fabric_ports_free(FabricPort *ports, size_t n) {
        for (size_t i = 0; ports && i < n; i++) {
                free(ports[i].link);
                free(ports[i].pci);
                free(ports[i].ifname);
                free(ports[i].problem);
                free(ports[i].resolve_error);
        }
        free(ports);
}

/* strdup() of s, NULL for NULL; false when out of memory. */
static bool dup_string(const char *s, char **ret) {
        *ret = s ? strdup(s) : NULL;
        return !s || *ret;
}

int fabric_ports_copy(const FabricPort *ports, size_t n, FabricPorts *ret) {
        _cleanup_(fabric_ports_done) FabricPorts p = {};

        if (n > 0) {
                p.ports = calloc(n, sizeof(FabricPort));
                if (!p.ports)
                        return -ENOMEM;
        }
        for (size_t i = 0; i < n; i++) {
                FabricPort *c = &p.ports[i];

                *c = ports[i];
                c->link = c->pci = c->ifname = c->problem = c->resolve_error = NULL;
                p.n++;
                if (!dup_string(ports[i].link, &c->link) || !dup_string(ports[i].pci, &c->pci) ||
                    !dup_string(ports[i].ifname, &c->ifname) || !dup_string(ports[i].problem, &c->problem) ||
                    !dup_string(ports[i].resolve_error, &c->resolve_error))
                        return -ENOMEM;
        }
        *ret = p;
        p = (FabricPorts){};
        return 0;
}

static const LinkMatch *port_match(const NodeContext *c, size_t i) {
        if (c->node)
                return profile_node_link_match(c->profile, &c->node->links[i]);
        return &c->profile->links[i].match;
}

void fabric_ports_done(FabricPorts *p) {
        if (!p)
                return;
        fabric_ports_free(p->ports, p->n);
        *p = (FabricPorts){};
}

int fabric_ports_resolve(const NodeContext *c, FabricPorts *ret) {
        _cleanup_(netdev_list_done) NetdevList netdevs = {};
        int r;

        r = netdev_list_read(c->host, &netdevs);
        if (r < 0)
                return r;
        return fabric_ports_resolve_in(c, &netdevs, ret);
}

int fabric_ports_resolve_in(const NodeContext *c, const NetdevList *netdevs, FabricPorts *ret) {
        _cleanup_(fabric_ports_done) FabricPorts p = {};
        size_t n = c->node ? c->node->n_links : c->profile->n_links;
        FabricPort *ports;
        int r;

        if (n > 0) {
                p.ports = calloc(n, sizeof(FabricPort));
                if (!p.ports)
                        return -ENOMEM;
                p.n = n;
        }
        ports = p.ports;
        for (size_t i = 0; i < n; i++) {
                if (c->node) {
                        const NodeLink *nl = &c->node->links[i];

                        r = fabric_port_resolve(netdevs, nl->link, port_match(c, i), &ports[i]);
                        ports[i].address = nl->address.address;
                        ports[i].has_address = true;
                } else
                        r = fabric_port_resolve(
                                netdevs, c->profile->links[i].name, port_match(c, i), &ports[i]);
                if (r < 0)
                        return r;
        }
        *ret = p;
        p = (FabricPorts){};
        return 0;
}

int fabric_ports_locate(const NodeContext *c, FabricPort *ports, size_t n) {
        for (size_t i = 0; i < n; i++) {
                int r = fabric_port_locate(c, port_match(c, i), &ports[i]);
                if (r < 0)
                        return r;
        }
        return 0;
}

int fabric_ports_find(const NodeContext *c, FabricPorts *ret) {
        _cleanup_(fabric_ports_done) FabricPorts p = {};
        int r;

        r = fabric_ports_resolve(c, &p);
        if (r >= 0)
                r = fabric_ports_locate(c, p.ports, p.n);
        if (r < 0)
                return r;
        *ret = p;
        p = (FabricPorts){};
        return 0;
}
