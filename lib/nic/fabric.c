/* SPDX-License-Identifier: MIT */
/* Finds each fabric link's PCI device and netdev by walking sysfs below the host root. */
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <strings.h>

#include "basic/strv.h"
#include "nic/fabric.h"
#include "nic/link-match.h"

int pci_netdevs(const Host *h, const char *pci, char ***ret) {
        _cleanup_(freep) char *path = NULL;

        if (asprintf(&path, "/sys/bus/pci/devices/%s/net", pci) < 0)
                return -ENOMEM;
        return host_list_directory(h, path, ret);
}

int netdev_read_uint(const Host *h, const char *ifname, const char *attribute, unsigned *ret) {
        _cleanup_(freep) char *path = NULL, *s = NULL;
        unsigned long v;
        char *end;
        int r;

        if (asprintf(&path, "/sys/class/net/%s/%s", ifname, attribute) < 0)
                return -ENOMEM;
        r = host_read_line(h, path, &s);
        if (r < 0)
                return r;
        errno = 0;
        v = strtoul(s, &end, 10);
        if (errno != 0 || end == s || *end != '\0' || s[0] == '-' || v > UINT_MAX)
                return -EBADMSG;
        *ret = (unsigned) v;
        return 0;
}

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

static bool pci_address_is_valid(const char *s) {
        unsigned domain, bus, slot, function;
        int n = 0;

        return s && sscanf(s, "%4x:%2x:%2x.%1u%n", &domain, &bus, &slot, &function, &n) == 4 &&
                (size_t) n == strlen(s) && strlen(s) == 12 && function < 8;
}

static int read_hex_attribute(const Host *h, const char *dir, const char *name, unsigned *ret) {
        _cleanup_(freep) char *path = NULL, *s = NULL;
        unsigned long v;
        char *end;
        int r;

        if (asprintf(&path, "%s/%s", dir, name) < 0)
                return -ENOMEM;
        r = host_read_line(h, path, &s);
        if (r < 0)
                return r;
        errno = 0;
        v = strtoul(s, &end, 16);
        if (errno != 0 || end == s || *end != '\0' || v > 0xffff)
                return -EBADMSG;
        *ret = (unsigned) v;
        return 0;
}

int pci_sysfs_id(const Host *h, const char *pci, PciId *ret) {
        _cleanup_(freep) char *dir = NULL;
        unsigned vendor, device;
        int r;

        if (asprintf(&dir, "/sys/bus/pci/devices/%s", pci) < 0)
                return -ENOMEM;
        r = read_hex_attribute(h, dir, "vendor", &vendor);
        if (r < 0)
                return r;
        r = read_hex_attribute(h, dir, "device", &device);
        if (r < 0)
                return r;
        *ret = (PciId){ .vendor = vendor, .device = device };
        return 0;
}

/* Reads the facts of a device directory ("/sys/class/net/X/device" or "/sys/bus/pci/devices/A"). */
static int read_device_facts(const Host *h, const char *dir, Facts *f) {
        _cleanup_(freep) char *driver_path = NULL;
        unsigned vendor, device;
        int r;

        if (asprintf(&driver_path, "%s/driver", dir) < 0)
                return -ENOMEM;
        r = host_readlink_basename(h, driver_path, &f->driver);
        if (r == -ENOMEM)
                return r;
        if (read_hex_attribute(h, dir, "vendor", &vendor) >= 0 &&
            read_hex_attribute(h, dir, "device", &device) >= 0) {
                f->id = (PciId){ .vendor = vendor, .device = device };
                f->has_id = true;
        }
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

/* The PCI device a netdev belongs to: its device, or for a virtio NIC the PCI device the virtio device
 * hangs off (…/0000:00:03.0/virtio2/net/eth0). Returns 1 with *ret_pci, 0 with *ret_problem saying
 * what the interface is instead, <0 on allocation failure. */
static int netdev_pci_address(
        const Host *h, const char *link, const char *ifname, char **ret_pci, char **ret_problem) {
        _cleanup_(freep) char *device = NULL, *name = NULL, *subsystem = NULL, *path = NULL, *up = NULL,
                              *parent = NULL;
        const char *base;
        int r;

        if (asprintf(&device, "/sys/class/net/%s/device", ifname) < 0)
                return -ENOMEM;
        r = host_readlink_basename(h, device, &name);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return asprintf(
                               ret_problem,
                               "%s (link %s) has no device in sysfs: it is a virtual interface, not a "
                               "NIC; match the link to the NIC's port",
                               ifname,
                               link) < 0
                        ? -ENOMEM
                        : 0;
        if (pci_address_is_valid(name)) {
                *ret_pci = TAKE_PTR(name);
                return 1;
        }

        if (asprintf(&path, "%s/subsystem", device) < 0)
                return -ENOMEM;
        r = host_readlink_basename(h, path, &subsystem);
        if (r == -ENOMEM)
                return r;
        if (r >= 0 && streq(subsystem, "virtio")) {
                path = mfree(path);
                /* The virtio device's parent directory, as the kernel resolves it. */
                if (asprintf(&path, "%s/..", device) < 0) {
                        path = NULL;
                        return -ENOMEM;
                }
                r = host_path(h, path, &up);
                if (r < 0)
                        return r;
                parent = realpath(up, NULL);
                if (!parent && errno == ENOMEM)
                        return -ENOMEM;
                base = parent ? strrchr(parent, '/') : NULL;
                if (base && pci_address_is_valid(base + 1)) {
                        *ret_pci = strdup(base + 1);
                        return *ret_pci ? 1 : -ENOMEM;
                }
        }
        return asprintf(
                       ret_problem,
                       "%s (link %s) is %s on the %s bus, not a PCI device: the nic. checks need the "
                       "fabric NIC's PCI function",
                       ifname,
                       link,
                       name,
                       r >= 0 ? subsystem : "unknown") < 0
                ? -ENOMEM
                : 0;
}

/* The netdev through lib/nic/link-match.c, the same resolution the apply path uses: sets ifname, or
 * problem, resolve_error and resolve_errno. <0 only on allocation failure. */
static int resolve_netdev(const NodeContext *c, const LinkMatch *m, FabricPort *port) {
        _cleanup_(freep) char *ifname = NULL, *error = NULL;
        int r;

        r = link_match_resolve(c->host, m, &ifname, &error);
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

        r = netdev_pci_address(c->host, port->link, port->ifname, &port->pci, &port->problem);
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

static int fabric_port_resolve(const NodeContext *c, const char *link, const LinkMatch *m, FabricPort *port) {
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
        return resolve_netdev(c, m, port);
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

                        r = fabric_port_resolve(c, nl->link, port_match(c, i), &ports[i]);
                        ports[i].address = nl->address.address;
                        ports[i].has_address = true;
                } else
                        r = fabric_port_resolve(c, c->profile->links[i].name, port_match(c, i), &ports[i]);
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
