/* SPDX-License-Identifier: MIT */
/* Reading the snapshot's parts: sysfs for the ports, rtnetlink and firewalld for the links, libpci,
 * ethtool and the kernel log for the NICs (DCB netlink for SNAPSHOT_DCB: snapshot-dcb.c; the host's own
 * facts: snapshot-host.c). */
#include <systemd/sd-bus.h>

#include "basic/strv.h"
#include "net/firewalld.h"
#include "net/ipv4-forwarding.h"
#include "snapshot/snapshot-baseline.h"
#include "snapshot/snapshot-identity.h"
#include "snapshot/snapshot-qos-host.h"
#include "snapshot/snapshot-rdma-name.h"
#include "snapshot/snapshot-rdma.h"
#include "snapshot/snapshot-transport.h"
#include "snapshot/snapshot.h"

void snapshot_init(Snapshot *s, const NodeContext *c) {
        *s = (Snapshot){ .context = c };
}

Snapshot *snapshot_or_own(Snapshot *s, Snapshot *own, const NodeContext *c) {
        if (s)
                return s;
        snapshot_init(own, c);
        return own;
}

static void forget_links(Snapshot *s) {
        rtnl_state_done(&s->kernel);
        s->kernel = (RtnlState){};
        s->kernel_error = 0;
        s->kernel_message = mfree(s->kernel_message);
        for (size_t i = 0; s->zones && i < s->n_ports; i++) {
                free(s->zones[i].zone);
                free(s->zones[i].error);
        }
        s->zones = mfree(s->zones);
        s->firewalld_running = false;
        s->firewalld_zones = strv_free(s->firewalld_zones);
        s->firewalld_zones_error = mfree(s->firewalld_zones_error);
        s->forwarding = mfree(s->forwarding);
}

static void forget_nics(Snapshot *s) {
        for (size_t i = 0; s->nics && i < s->n_ports; i++)
                nic_facts_done(&s->nics[i]);
        s->nics = mfree(s->nics);
        s->pci_ids_found = strv_free(s->pci_ids_found);
        s->pci_ids_found_error = 0;
}

/* Where a link found no PCI device, whether devices with the profile's ids exist elsewhere: nic.pci tells
 * a wrong match from a missing NIC by it. */
static int read_pci_ids_found(Snapshot *s) {
        const ProfileNic *nic = s->context->profile ? node_context_nic(s->context) : NULL;
        bool unlocated = false;

        s->pci_ids_found_error = -ENOMEDIUM;
        for (size_t i = 0; i < s->n_ports; i++)
                unlocated = unlocated || !s->ports[i].pci;
        if (!unlocated || !nic || nic->n_pci_ids == 0)
                return 0;
        s->pci_ids_found_error = pci_devices_find_ids(
                s->context->host, nic->pci_ids, nic->n_pci_ids, &s->pci_ids_found);
        if (s->pci_ids_found_error == -ENOMEM)
                return -ENOMEM;
        if (s->pci_ids_found_error > 0)
                s->pci_ids_found_error = 0;
        return 0;
}

void snapshot_forget(Snapshot *s, SnapshotPart parts) {
        /* The other parts are indexed by port; and the NIC facts completed the ports (PCI device,
         * ifindex), which cannot be taken back. */
        if (parts & (SNAPSHOT_PORTS | SNAPSHOT_NICS | SNAPSHOT_LOCATED))
                parts |= SNAPSHOT_PORTS | SNAPSHOT_LINKS | SNAPSHOT_NICS | SNAPSHOT_LOCATED;
        /* The DCB state and the host's qos state are the kernel's link state too: a change to the links
         * (an apply) may have changed them. */
        if (parts & SNAPSHOT_LINKS)
                parts |= SNAPSHOT_DCB | SNAPSHOT_QOS_HOST | SNAPSHOT_QOS_COUNTERS | SNAPSHOT_RDMA |
                        SNAPSHOT_MTU;
        /* Which modules and what the command line blocks follow the NIC facts and the command line. */
        if (parts & (SNAPSHOT_NICS | SNAPSHOT_CMDLINE))
                parts |= SNAPSHOT_MODULES;
        if (parts & SNAPSHOT_MODULES)
                snapshot_forget_modules(s);
        if (parts & SNAPSHOT_RDMA_BASELINE)
                snapshot_forget_rdma_baseline(s);
        if (parts & (SNAPSHOT_PORTS | SNAPSHOT_NET_CONFIG))
                snapshot_forget_identities(s);
        if (parts & SNAPSHOT_PORTS)
                parts |= SNAPSHOT_TRANSPORT;
        if (parts & SNAPSHOT_TRANSPORT)
                snapshot_forget_transport(s);
        if (parts & SNAPSHOT_HOST_PARTS)
                snapshot_forget_host(s, parts);
        if (parts & SNAPSHOT_RDMA)
                snapshot_forget_rdma(s);
        if (parts & SNAPSHOT_MTU)
                snapshot_forget_mtu(s);
        if (parts & SNAPSHOT_DCB)
                snapshot_forget_dcb(s);
        if (parts & SNAPSHOT_QOS_HOST)
                snapshot_forget_qos_host(s);
        if (parts & SNAPSHOT_QOS_COUNTERS)
                snapshot_forget_qos_counters(s);
        if (parts & SNAPSHOT_LINKS) {
                forget_links(s);
                snapshot_forget_rdma_names(s);
        }
        if (parts & SNAPSHOT_NICS)
                forget_nics(s);
        if (parts & SNAPSHOT_PORTS) {
                fabric_ports_free(s->ports, s->n_ports);
                s->ports = NULL;
                s->n_ports = 0;
                netdev_list_done(&s->netdevs);
        }
        s->parts &= ~parts;
}

void snapshot_done(Snapshot *s) {
        if (!s)
                return;
        snapshot_forget(s, SNAPSHOT_PORTS | SNAPSHOT_HOST_PARTS | SNAPSHOT_RDMA_BASELINE);
}

bool snapshot_read_kernel(const Snapshot *s) {
        return (s->parts & SNAPSHOT_LINKS) && s->kernel_error >= 0;
}

const RtnlLink *snapshot_kernel_link(const Snapshot *s, size_t i) {
        if (!(s->parts & SNAPSHOT_LINKS) || s->kernel_error < 0 || i >= s->n_ports || !s->ports[i].ifname)
                return NULL;
        return rtnl_state_find_by_name(&s->kernel, s->ports[i].ifname);
}

/* Each port's IPv4 forwarding switch, when the node asks for forwarding (-ENOMEDIUM where not asked). */
static int read_forwarding(Snapshot *s) {
        const NodeContext *c = s->context;

        if (!c->node || !c->node->forwarding || s->kernel_error < 0)
                return 0;
        s->forwarding = calloc(s->n_ports ?: 1, sizeof(int));
        if (!s->forwarding)
                return -ENOMEM;
        for (size_t i = 0; i < s->n_ports; i++) {
                bool on;
                int r;

                if (!s->ports[i].ifname) {
                        s->forwarding[i] = -ENOMEDIUM;
                        continue;
                }
                r = ipv4_forwarding_read(c->host, s->ports[i].ifname, &on);
                s->forwarding[i] = r < 0 ? r : on;
        }
        return 0;
}

static int read_kernel(Snapshot *s) {
        _cleanup_(rtnl_closep) Rtnl *rtnl = NULL;
        int r;

        if (s->before_kernel_read)
                s->before_kernel_read(s->userdata);
        r = rtnl_open(&rtnl);
        if (r >= 0)
                r = rtnl_dump(rtnl, &s->kernel, &s->kernel_message);
        if (r == -ENOMEM)
                return r;
        s->kernel_error = r < 0 ? r : 0;
        return 0;
}

/* The runtime zone of every node link that wants one, on one connection; the zone list too when some
 * zone is to change (it is the slow call). Whether firewalld runs, its first answer says. */
static int read_zones(Snapshot *s) {
        const NodeContext *c = s->context;
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        bool differs = false;
        int r;

        if (!c->node || s->kernel_error < 0 || !node_wants_zones(c->profile, c->node))
                return 0;
        s->zones = calloc(s->n_ports ?: 1, sizeof(SnapshotZone));
        if (!s->zones)
                return -ENOMEM;

        (void) firewalld_open(&bus);
        for (size_t i = 0; bus && i < s->n_ports; i++) {
                const ProfileLink *pl = profile_find_link(c->profile, c->node->links[i].link);
                SnapshotZone *z = &s->zones[i];

                if (!pl || !pl->firewall_zone || !snapshot_kernel_link(s, i))
                        continue;
                r = firewalld_get_zone_of_interface(bus, s->ports[i].ifname, &z->zone, &z->error);
                if (r == -ENOMEM)
                        return r;
                if (r == -ESRCH) {
                        /* firewalld does not run: the answer for every link. */
                        bus = sd_bus_flush_close_unref(bus);
                        z->error = mfree(z->error);
                } else if (r >= 0 && !streq(z->zone, pl->firewall_zone))
                        differs = true;
        }
        s->firewalld_running = bus != NULL;
        if (bus && differs &&
            firewalld_get_zones(bus, &s->firewalld_zones, &s->firewalld_zones_error) == -ENOMEM)
                return -ENOMEM;
        return 0;
}

static int read_nics(Snapshot *s) {
        int r;

        s->nics = calloc(s->n_ports ?: 1, sizeof(NicFacts));
        if (!s->nics)
                return -ENOMEM;
        for (size_t i = 0; i < s->n_ports; i++) {
                r = nic_facts_gather(s->context->host, s->ports[i].pci, s->ports[i].ifname, &s->nics[i]);
                if (r < 0)
                        return r;
        }
        return read_pci_ids_found(s);
}

int snapshot_seed_ports(Snapshot *s, const FabricPort *ports, size_t n) {
        const ProfileNode *node = s->context->node;
        FabricPorts copy = {};
        int r;

        if (!node || n != node->n_links || (s->parts & (SNAPSHOT_PORTS | SNAPSHOT_LOCATED)))
                return -ESTALE;
        for (size_t i = 0; i < n; i++)
                if (!streq_ptr(ports[i].link, node->links[i].link) || !ports[i].has_address ||
                    ports[i].address.s_addr != node->links[i].address.address.s_addr)
                        return -ESTALE;
        r = fabric_ports_copy(ports, n, &copy);
        if (r < 0)
                return r;
        s->ports = copy.ports;
        s->n_ports = copy.n;
        s->parts |= SNAPSHOT_PORTS | SNAPSHOT_LOCATED;
        return 0;
}

int snapshot_read(Snapshot *s, SnapshotPart parts) {
        int r;

        if (parts & SNAPSHOT_MODULES)
                parts |= SNAPSHOT_NICS;
        if (parts & SNAPSHOT_DCB)
                parts |= SNAPSHOT_LINKS;
        if (parts & (SNAPSHOT_NICS | SNAPSHOT_RDMA | SNAPSHOT_TRANSPORT))
                parts |= SNAPSHOT_LOCATED;
        if (parts &
            (SNAPSHOT_LINKS | SNAPSHOT_LOCATED | SNAPSHOT_QOS_HOST | SNAPSHOT_QOS_COUNTERS | SNAPSHOT_MTU))
                parts |= SNAPSHOT_PORTS;
        parts &= ~s->parts;

        r = snapshot_read_host(s, parts & SNAPSHOT_HOST_PARTS);
        if (r < 0)
                return r;

        if (parts & SNAPSHOT_PORTS) {
                FabricPorts ports = {};

                r = netdev_list_read(s->context->host, &s->netdevs);
                if (r >= 0)
                        r = fabric_ports_resolve_in(s->context, &s->netdevs, &ports);
                if (r < 0) {
                        netdev_list_done(&s->netdevs);
                        return r;
                }
                s->ports = ports.ports;
                s->n_ports = ports.n;
                s->parts |= SNAPSHOT_PORTS;
        }
        if (snapshot_has(s, SNAPSHOT_PORTS | SNAPSHOT_NET_CONFIG) && !s->identities) {
                r = snapshot_read_identities(s);
                if (r < 0)
                        return r;
        }
        if (parts & SNAPSHOT_LINKS) {
                /* Marked read first: snapshot_kernel_link() answers from it while zones are asked. */
                s->parts |= SNAPSHOT_LINKS;
                r = read_kernel(s);
                if (r >= 0)
                        r = read_forwarding(s);
                if (r >= 0)
                        r = read_zones(s);
                if (r < 0) {
                        snapshot_forget(s, SNAPSHOT_LINKS);
                        return r;
                }
        }
        if (parts & SNAPSHOT_LOCATED) {
                r = fabric_ports_locate(s->context, s->ports, s->n_ports);
                if (r < 0) {
                        snapshot_forget(s, SNAPSHOT_LOCATED);
                        return r;
                }
                s->parts |= SNAPSHOT_LOCATED;
        }
        if (parts & SNAPSHOT_NICS) {
                r = read_nics(s);
                if (r < 0) {
                        snapshot_forget(s, SNAPSHOT_NICS);
                        return r;
                }
                s->parts |= SNAPSHOT_NICS;
        }
        if (parts & SNAPSHOT_DCB) {
                r = snapshot_read_dcb(s);
                if (r < 0) {
                        snapshot_forget(s, SNAPSHOT_DCB);
                        return r;
                }
                s->parts |= SNAPSHOT_DCB;
        }
        if (parts & SNAPSHOT_QOS_HOST) {
                r = snapshot_read_qos_host(s);
                if (r < 0) {
                        snapshot_forget(s, SNAPSHOT_QOS_HOST);
                        return r;
                }
                s->parts |= SNAPSHOT_QOS_HOST;
        }
        if (parts & SNAPSHOT_QOS_COUNTERS) {
                r = snapshot_read_qos_counters(s);
                if (r < 0) {
                        snapshot_forget(s, SNAPSHOT_QOS_COUNTERS);
                        return r;
                }
                s->parts |= SNAPSHOT_QOS_COUNTERS;
        }
        if (parts & SNAPSHOT_RDMA) {
                r = snapshot_read_rdma(s);
                if (r < 0) {
                        snapshot_forget(s, SNAPSHOT_RDMA);
                        return r;
                }
                s->parts |= SNAPSHOT_RDMA;
        }
        if (parts & SNAPSHOT_MTU) {
                r = snapshot_read_mtu(s);
                if (r < 0) {
                        snapshot_forget(s, SNAPSHOT_MTU);
                        return r;
                }
                s->parts |= SNAPSHOT_MTU;
        }
        if (parts & SNAPSHOT_TRANSPORT) {
                r = snapshot_read_transport(s);
                if (r < 0) {
                        snapshot_forget(s, SNAPSHOT_TRANSPORT);
                        return r;
                }
                s->parts |= SNAPSHOT_TRANSPORT;
        }
        if (parts & SNAPSHOT_MODULES) {
                r = snapshot_read_modules(s);
                if (r < 0) {
                        snapshot_forget(s, SNAPSHOT_MODULES);
                        return r;
                }
                s->parts |= SNAPSHOT_MODULES;
        }
        if (parts & SNAPSHOT_RDMA_BASELINE) {
                r = snapshot_read_rdma_baseline(s);
                if (r < 0)
                        return r;
                s->parts |= SNAPSHOT_RDMA_BASELINE;
        }
        return 0;
}
