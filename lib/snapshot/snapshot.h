/* SPDX-License-Identifier: MIT */
/* One snapshot of the host per verify or apply: each link's netdev and PCI device, the kernel's links
 * and addresses, firewalld's zones of the links, the NIC facts, the RDMA devices and the netdev MTUs,
 * and the host's own facts (kernel command line, boot configuration, amdgpu cards, MemTotal), each read
 * at most once and only when something asks for it. The plan (plan/plan.h) compares the profile against
 * it; the checks report from it; the exports take the verify's. This room (lib/snapshot/) holds the
 * readers: the profile-to-port resolution (fabric.h, link-match.h) and each part; plan/ builds on it. */
#pragma once

#include "boot/module-state.h"
#include "net/dcb.h"
#include "net/rtnl.h"
#include "nic/nic-facts.h"
#include "profile/node-context.h"
#include "snapshot/fabric.h"
#include "snapshot/snapshot-host.h"

typedef enum SnapshotPart {
        /* Each link's netdev, from sysfs below the host root (fabric_ports_resolve()): the node's
         * links, or the profile's when no node is selected. */
        SNAPSHOT_PORTS = 1 << 0,
        /* The running kernel's links, IPv4 addresses and main-table IPv4 routes (rtnetlink), each
         * port's IPv4 forwarding switch when the node asks for forwarding (Snapshot.forwarding), and
         * firewalld's runtime zone of each node link that asks for a zone; with SNAPSHOT_PORTS. */
        SNAPSHOT_LINKS = 1 << 1,
        /* Each port's NIC facts (libpci, ETHTOOL_GDRVINFO, ice's DDP); with SNAPSHOT_LOCATED. */
        SNAPSHOT_NICS = 1 << 2,
        /* The DCB state of each node link whose qos: asks for PFC, a trust or a DSCP map (DCB netlink,
         * snapshot-dcb.c), and for an E810 whether its firmware LLDP agent is on; with
         * SNAPSHOT_LINKS, and forgotten with it: it is the running kernel's state too. */
        SNAPSHOT_DCB = 1 << 3,
        /* Each node link's RoCE ECN switches and rdma_cm ToS, where its qos: asks for them, below the
         * host root (snapshot-qos-host.h); with SNAPSHOT_PORTS, forgotten with SNAPSHOT_LINKS. */
        SNAPSHOT_QOS_HOST = 1 << 4,
        /* Each port's pause frames, packets and RDMA hw_counters (snapshot-qos-host.h); with
         * SNAPSHOT_PORTS, forgotten with SNAPSHOT_LINKS. */
        SNAPSHOT_QOS_COUNTERS = 1 << 5,
        /* Each port's RDMA device, its port and GID table (libibverbs, snapshot/snapshot-rdma.h); with
         * SNAPSHOT_LOCATED (the PCI device and ifindex it is found by), forgotten with SNAPSHOT_LINKS:
         * the GID table follows the addresses. */
        SNAPSHOT_RDMA = 1 << 6,
        /* Each port's netdev MTU (snapshot/snapshot-rdma.h): from the kernel's link dump when SNAPSHOT_LINKS
         * has been read, else from sysfs below the host root (the same dev->mtu; the dump is not made for
         * it, as it brings firewalld's zones along); with SNAPSHOT_PORTS, forgotten with SNAPSHOT_LINKS. */
        SNAPSHOT_MTU = 1 << 7,
        /* Each port's PCI device and ifindex (fabric_ports_locate()), without the NIC facts; with
         * SNAPSHOT_PORTS, and forgotten with them: what it filled in cannot be taken back. SNAPSHOT_NICS
         * reads it first. */
        SNAPSHOT_LOCATED = 1 << 8,
        /* The host's own facts (snapshot-host.h), each on its own: the running kernel's command line,
         * the next boot's configuration, the DRM cards amdgpu drives, MemTotal, /etc/hosts below --root. */
        SNAPSHOT_CMDLINE = 1 << 9,
        SNAPSHOT_BOOT = 1 << 10,
        SNAPSHOT_GPUS = 1 << 11,
        SNAPSHOT_MEMINFO = 1 << 12,
        SNAPSHOT_ETC_HOSTS = 1 << 13,
        /* The memlock limits a workload gets (limits/memlock-facts.h): systemd's default for services,
         * pam_limits' files, podman's containers.conf; for rdma.memlock. */
        SNAPSHOT_MEMLOCK = 1 << 14,
        /* /etc/group below the host root: the groups that may open the device nodes. */
        SNAPSHOT_ETC_GROUP = 1 << 15,
        /* The device nodes a workload opens (/dev/infiniband/uverbs*, /dev/kfd, /dev/dri/renderD*) as
         * stat() finds them, whether the kernel has KFD, and where there is no uverbs device the NIC
         * family the PCI bus shows. */
        SNAPSHOT_DEVICES = 1 << 16,
        /* On the running system, the IPv4 addresses NSS gives each other node's hostname (the hosts.
         * checks); below --root nothing: names resolve in the tree's /etc/hosts (SNAPSHOT_ETC_HOSTS). */
        SNAPSHOT_NAMES = 1 << 17,
        /* The state of each port's RDMA module (boot/module-state.h: loaded, and what keeps it from
         * loading at boot), the module the port's NIC family names; with SNAPSHOT_NICS, and the command
         * line when there is a module; forgotten with either. */
        SNAPSHOT_MODULES = 1 << 18,
        /* The .network files in systemd-networkd's directories and the netplan files, as text (the
         * link.<name>.owner checks); with SNAPSHOT_PORTS read too, each port netdev's permanent address
         * and ethtool driver (snapshot-identity.h). */
        SNAPSHOT_NET_CONFIG = 1 << 19,
        /* The fabric's use now (snapshot-transport.h): the TCP sockets between the node's fabric addresses
         * and the other nodes', its RDMA devices' counters and the processes holding QPs on them, for
         * fabric.<node>.transport; with SNAPSHOT_LOCATED, and forgotten with SNAPSHOT_PORTS. */
        SNAPSHOT_TRANSPORT = 1 << 20,
        /* The RDMA baseline file haloctl probe keeps below the host root (snapshot/snapshot-baseline.h),
         * for fabric.<NODE>.baseline. */
        SNAPSHOT_RDMA_BASELINE = 1 << 21,
} SnapshotPart;

#define SNAPSHOT_HOST_PARTS                                                                         \
        (SNAPSHOT_CMDLINE | SNAPSHOT_BOOT | SNAPSHOT_GPUS | SNAPSHOT_MEMINFO | SNAPSHOT_ETC_HOSTS | \
         SNAPSHOT_MEMLOCK | SNAPSHOT_ETC_GROUP | SNAPSHOT_DEVICES | SNAPSHOT_NAMES | SNAPSHOT_NET_CONFIG)

/* The DCB state of one port's netdev. */
typedef struct SnapshotDcb {
        DcbState state; /* valid when error is 0 */
        int error;      /* -ENOMEDIUM: not asked (the link's qos: asks nothing of DCB, no netdev, a tree
                         * below --root); else net/dcb.h's errno contract (-EOPNOTSUPP: no DCB support) */
        char *message;  /* the kernel's extended ack when it refused; NULL otherwise */
        int lldp_agent; /* an E810's fw-lldp-agent private flag: 1 on, 0 off; negative errno when not known
                         * (-ENOMEDIUM: not an E810, or not asked) */
} SnapshotDcb;

/* snapshot/snapshot-qos-host.h */
typedef struct SnapshotQosHost SnapshotQosHost;
typedef struct SnapshotQosCounters SnapshotQosCounters;
/* snapshot/snapshot-rdma.h */
typedef struct SnapshotRdma SnapshotRdma;
/* snapshot/snapshot-rdma-name.h */
typedef struct SnapshotRdmaName SnapshotRdmaName;
/* snapshot/snapshot-transport.h */
typedef struct FabricTransportSample FabricTransportSample;
/* snapshot/snapshot-identity.h */
typedef struct SnapshotIdentity SnapshotIdentity;
/* snapshot/snapshot-baseline.h */
typedef struct SnapshotRdmaBaseline SnapshotRdmaBaseline;

/* What firewalld said about one link's netdev. */
typedef struct SnapshotZone {
        char *zone;  /* the runtime zone, "" for none; NULL when not asked or not answered */
        char *error; /* why firewalld could not say; NULL when it did or was not asked */
} SnapshotZone;

typedef struct Snapshot {
        const NodeContext *context;
        SnapshotPart parts; /* what has been read */

        /* SNAPSHOT_PORTS: one port per link, in profile order; pci and ifindex with SNAPSHOT_LOCATED; and
         * the netdev list they were resolved against (/sys/class/net, listed once). */
        FabricPort *ports;
        size_t n_ports;
        NetdevList netdevs;

        /* SNAPSHOT_LINKS. kernel_error < 0: the kernel's state could not be read (kernel_message is
         * the kernel's extended ack, or NULL); the other fields are then empty. */
        RtnlState kernel;
        int kernel_error;
        char *kernel_message;
        bool firewalld_running; /* firewalld answered (only asked when a link wants a zone) */
        SnapshotZone *zones;    /* one per port; all NULL for links that want no zone */
        char **firewalld_zones; /* the zones firewalld has: read only when a link's zone is to change */
        char *firewalld_zones_error;
        int *forwarding; /* one per port: 1 on, 0 off, negative errno (-ENOMEDIUM: not asked); NULL
                          * when the node asks for no forwarding */

        /* SNAPSHOT_NICS: one per port. */
        NicFacts *nics;
        /* SNAPSHOT_NICS too, when a port has no PCI device and the node's nic: names pci-ids: the
         * addresses of the devices with those ids (pci_devices_find_ids(); NULL: none), or the errno of
         * looking (pci_ids_found_error; -ENOMEDIUM: not asked). */
        char **pci_ids_found;
        int pci_ids_found_error;

        /* SNAPSHOT_DCB: one per port. */
        SnapshotDcb *dcb;
        /* SNAPSHOT_QOS_HOST, SNAPSHOT_QOS_COUNTERS: one per port. */
        SnapshotQosHost *qos_host;
        SnapshotQosCounters *qos_counters;
        /* SNAPSHOT_MODULES: one per RDMA module the ports' NICs name, in port order. */
        ModuleState *modules;
        size_t n_modules;
        /* SNAPSHOT_RDMA, SNAPSHOT_MTU: one per port. */
        SnapshotRdma *rdma;
        unsigned *mtu;
        /* Each port's RDMA device by sysfs, found once for the parts that read its files (QOS_HOST,
         * QOS_COUNTERS, TRANSPORT; snapshot-rdma-name.h); forgotten with SNAPSHOT_LINKS. */
        SnapshotRdmaName *rdma_names;
        /* SNAPSHOT_TRANSPORT. */
        FabricTransportSample *transport;
        /* SNAPSHOT_NET_CONFIG with SNAPSHOT_PORTS: one per port. */
        SnapshotIdentity *identities;
        /* SNAPSHOT_RDMA_BASELINE. */
        SnapshotRdmaBaseline *rdma_baseline;

        /* SNAPSHOT_CMDLINE, SNAPSHOT_BOOT, SNAPSHOT_GPUS, SNAPSHOT_MEMINFO, SNAPSHOT_ETC_HOSTS,
         * SNAPSHOT_MEMLOCK, SNAPSHOT_ETC_GROUP, SNAPSHOT_DEVICES, SNAPSHOT_NAMES, SNAPSHOT_NET_CONFIG. */
        SnapshotHost host;

        /* Called right before the kernel is read, so that a caller watching rtnetlink can take in the
         * events queued until then: every one of them is reflected in what is read next. */
        void (*before_kernel_read)(void *userdata);
        void *userdata;
} Snapshot;

/* An empty snapshot of the host c describes; c must outlive it. */
void snapshot_init(Snapshot *s, const NodeContext *c);
/* s when the caller passed its snapshot (what it has read is not read again), else own, initialised for
 * c: the caller's own, which it frees with snapshot_done(). */
Snapshot *snapshot_or_own(Snapshot *s, Snapshot *own, const NodeContext *c);
/* The ports as resolved and located before (fabric_ports_find(), or a snapshot's SNAPSHOT_LOCATED),
 * instead of listing the netdevs and their PCI devices again: for a re-check after events that move
 * no netdev (addresses, routes). A copy is taken; the netdev list stays empty, so the owner and NIC
 * checks, which read it, must not be asked for. Returns 0, -ESTALE when ports are not one per node
 * link in its order with its address (another profile's), or -ENOMEM. */
int snapshot_seed_ports(Snapshot *s, const FabricPort *ports, size_t n);
/* Reads the parts that are asked for and not read yet. What the host does wrong is recorded for the
 * plan and the checks to report; returns 0, or -ENOMEM. */
int snapshot_read(Snapshot *s, SnapshotPart parts);
/* The host changed (an apply): the parts are read again when next asked for. Forgetting the ports
 * or the NIC facts forgets every part indexed by port; snapshot_done() forgets all. */
void snapshot_forget(Snapshot *s, SnapshotPart parts);
void snapshot_done(Snapshot *s);

/* snapshot-dcb.c: reads and forgets SNAPSHOT_DCB (snapshot_read() and snapshot_forget() call them). */
int snapshot_read_dcb(Snapshot *s);
void snapshot_forget_dcb(Snapshot *s);

/* snapshot-modules.c: reads and forgets SNAPSHOT_MODULES (snapshot_read() and snapshot_forget() call
 * them), and the state of module, NULL when it was not read. */
int snapshot_read_modules(Snapshot *s);
void snapshot_forget_modules(Snapshot *s);
const ModuleState *snapshot_module_state(const Snapshot *s, const char *module) _pure_;

/* snapshot-host.c: reads and forgets the host's own facts (snapshot_read() and snapshot_forget() call
 * them). */
int snapshot_read_host(Snapshot *s, SnapshotPart parts);
void snapshot_forget_host(Snapshot *s, SnapshotPart parts);

/* Whether every one of parts has been read: a check judges only what its caller read for it. */
static inline bool snapshot_has(const Snapshot *s, SnapshotPart parts) {
        return (s->parts & parts) == parts;
}

/* Whether the kernel's links were read, and could be (SNAPSHOT_LINKS without kernel_error). */
bool snapshot_read_kernel(const Snapshot *s) _pure_;
/* The kernel's view of port i's netdev; NULL when it has none, or the kernel was not read. */
const RtnlLink *snapshot_kernel_link(const Snapshot *s, size_t i) _pure_;
