/* SPDX-License-Identifier: MIT */
/* The RDMA checks: the RDMA module, the device on the fabric netdev, its port, its RoCE GID index, its
 * MTU, and memlock. */
#include <arpa/inet.h>
#include <stdio.h>
#include <sys/stat.h>

#include "basic/rdma-mtu.h"
#include "basic/strv.h"
#include "check/check-rdma.h"
#include "config.h"
#include "nic/ice-ddp.h"
#include "nic/nic-family.h"
#include "rdma/rdma.h"

static const char *gid_type_name(RdmaGidType t) {
        switch (t) {
        case RDMA_GID_ROCE_V2:
                return "RoCE v2";
        case RDMA_GID_ROCE_V1:
                return "RoCE v1";
        case RDMA_GID_IB:
                return "IB";
        default:
                return "unknown type";
        }
}

/* The type as the profile's rdma.gid spells it. */
static const char *gid_type_key(RdmaGidType t) {
        switch (t) {
        case RDMA_GID_ROCE_V2:
                return "roce-v2";
        case RDMA_GID_ROCE_V1:
                return "roce-v1";
        case RDMA_GID_IB:
                return "ib";
        default:
                return "roce-v2";
        }
}

/* What an active MTU of rdma_mtu needs of the netdev MTU, with the driver's reason:
 * "4192 (mlx5 takes 96 bytes of RoCE headers off it)", "4096"; every known rule when unknown. */
static int netdev_mtu_needed_text(unsigned rdma_mtu, RoceMtuDriver driver, char **ret) {
        int r;

        if (driver == ROCE_MTU_DRIVER_UNKNOWN)
                r = asprintf(
                        ret,
                        "%u with irdma, %u with rxe, %u with mlx5",
                        roce_netdev_mtu_needed(rdma_mtu, ROCE_MTU_DRIVER_IRDMA),
                        roce_netdev_mtu_needed(rdma_mtu, ROCE_MTU_DRIVER_RXE),
                        roce_netdev_mtu_needed(rdma_mtu, ROCE_MTU_DRIVER_MLX5));
        else if (roce_mtu_headroom(driver) == 0)
                r = asprintf(ret, "%u", roce_netdev_mtu_needed(rdma_mtu, driver));
        else
                r = asprintf(
                        ret,
                        "%u (%s takes %u bytes of RoCE headers off it)",
                        roce_netdev_mtu_needed(rdma_mtu, driver),
                        roce_mtu_driver_to_string(driver),
                        roce_mtu_headroom(driver));
        return r < 0 ? -ENOMEM : 0;
}

int check_rdma_mtu_evaluate(
        const char *device,
        RoceMtuDriver driver,
        uint32_t port,
        unsigned active_mtu,
        unsigned max_mtu,
        const char *ifname,
        unsigned netdev_mtu,
        unsigned min_active_mtu,
        PortCheck *ret) {
        _cleanup_(freep) char *expected = NULL, *actual = NULL, *needed = NULL, *why = NULL, *less = NULL;
        unsigned low, high, headroom = roce_mtu_headroom(driver);

        if (active_mtu == 0)
                return port_check_set(
                        ret, CHECK_FAIL, NULL, NULL, "%s port %u reports no active MTU", device, port);
        if (asprintf(&actual, "%u", active_mtu) < 0)
                return -ENOMEM;
        if (min_active_mtu > 0 && asprintf(&expected, "≥ %u", min_active_mtu) < 0)
                return -ENOMEM;

        if (min_active_mtu > 0 && active_mtu < min_active_mtu) {
                if (netdev_mtu > 0) {
                        if (netdev_mtu_needed_text(min_active_mtu, driver, &needed) < 0)
                                return -ENOMEM;
                        return port_check_set(
                                ret,
                                CHECK_FAIL,
                                expected,
                                actual,
                                "active MTU %u < %u (rdma.min-active-mtu) on %s port %u: %s's MTU is %u; "
                                "an active MTU of %u needs a netdev MTU of at least %s (set the link's mtu, e.g. "
                                "9000)",
                                active_mtu,
                                min_active_mtu,
                                device,
                                port,
                                ifname,
                                netdev_mtu,
                                min_active_mtu,
                                needed);
                }
                return port_check_set(
                        ret,
                        CHECK_FAIL,
                        expected,
                        actual,
                        "active MTU %u < %u (rdma.min-active-mtu) on %s port %u: raise the link's MTU",
                        active_mtu,
                        min_active_mtu,
                        device,
                        port);
        }
        if (netdev_mtu == 0)
                return port_check_set(
                        ret, CHECK_PASS, expected, actual, "active MTU %u on %s port %u", active_mtu, device, port);

        /* A known driver follows its own rule exactly (so mlx5 and rxe give 2048 at 4150, irdma 4096);
         * for an unknown one any known rule's reading is right. */
        high = roce_mtu_for_netdev_mtu(netdev_mtu, driver == ROCE_MTU_DRIVER_UNKNOWN ? 0 : headroom);
        low = driver == ROCE_MTU_DRIVER_UNKNOWN ? roce_mtu_for_netdev_mtu(netdev_mtu, ROCE_HEADROOM_MAX)
                                                : high;
        if (max_mtu > 0) {
                low = low < max_mtu ? low : max_mtu;
                high = high < max_mtu ? high : max_mtu;
        }
        if (driver != ROCE_MTU_DRIVER_UNKNOWN && headroom > 0 &&
            (asprintf(
                     &why,
                     ", as %s takes %u bytes of RoCE headers off the netdev MTU",
                     roce_mtu_driver_to_string(driver),
                     headroom) < 0 ||
             asprintf(&less, ", less %s's %u bytes of RoCE headers", roce_mtu_driver_to_string(driver), headroom) <
                     0))
                return -ENOMEM;
        if (active_mtu < low || active_mtu > high)
                return port_check_set(
                        ret,
                        CHECK_WARN,
                        expected,
                        actual,
                        "active MTU %u of %s port %u does not follow %s's MTU %u (expected %u%s): the RDMA "
                        "port missed an MTU change; set the link down and up again",
                        active_mtu,
                        device,
                        port,
                        ifname,
                        netdev_mtu,
                        high,
                        strempty(why));
        return port_check_set(
                ret,
                CHECK_PASS,
                expected,
                actual,
                "active MTU %u on %s port %u (%s MTU %u%s)",
                active_mtu,
                device,
                port,
                ifname,
                netdev_mtu,
                strempty(less));
}

/* The MTU rule the RDMA device follows, from what the kernel says of it: rxe's own sysfs attribute
 * "parent" (rxe_verbs.c), else the driver of the device it sits on (mlx5_core; irdma, bound to ice's
 * auxiliary device), else its name (mlx5_N, irdmaN). */
static RoceMtuDriver rdma_device_mtu_driver(const Host *h, const char *device) {
        _cleanup_(freep) char *parent = NULL, *link = NULL, *driver = NULL, *name = NULL;
        RoceMtuDriver d;

        if (asprintf(&parent, "/sys/class/infiniband/%s/parent", device) >= 0 &&
            host_read_line(h, parent, &name) >= 0)
                return ROCE_MTU_DRIVER_RXE;
        if (asprintf(&link, "/sys/class/infiniband/%s/device/driver", device) >= 0 &&
            host_readlink_basename(h, link, &driver) >= 0) {
                d = roce_mtu_driver_from_name(driver);
                if (d != ROCE_MTU_DRIVER_UNKNOWN)
                        return d;
        }
        switch (nic_family_from_rdma_device(device)) {
        case NIC_FAMILY_E810:
                return ROCE_MTU_DRIVER_IRDMA;
        case NIC_FAMILY_CONNECTX:
                return ROCE_MTU_DRIVER_MLX5;
        default:
                return ROCE_MTU_DRIVER_UNKNOWN;
        }
}

typedef struct RdmaPort {
        const FabricPort *port;
        RdmaDevice *device;
        int error;
} RdmaPort;

/* Whether the PCI device's bound driver is driver (its sysfs driver link). */
static bool nic_is_driven_by(const Host *h, const char *pci, const char *driver) {
        _cleanup_(freep) char *link = NULL, *bound = NULL;

        return asprintf(&link, "/sys/bus/pci/devices/%s/driver", pci) >= 0 &&
                host_readlink_basename(h, link, &bound) >= 0 && streq(bound, driver);
}

static int check_rdma_device_port(const NodeContext *c, RdmaPort *p, PortCheck *ret) {
        const char *where = p->port->ifname ?: p->port->pci;
        _cleanup_(freep) char *detail = NULL, *blind = NULL, *load = NULL;
        IceDdpState ddp = ICE_DDP_UNKNOWN;
        IceDdpSource source = ICE_DDP_SOURCE_NONE;
        NicFamily family;
        int r;

        if (!where)
                return port_check_set(
                        ret,
                        CHECK_FAIL,
                        NULL,
                        NULL,
                        "no RDMA device: no fabric NIC found for link %s (see nic.pci)",
                        p->port->link);
        if (p->error >= 0)
                return port_check_set(
                        ret,
                        CHECK_PASS,
                        NULL,
                        p->device->name,
                        "%s port %u on %s",
                        p->device->name,
                        p->device->port,
                        where);

        family = nic_family_of_pci(c->host, p->port->pci);
        /* Only ice has a DDP package to miss: neither devlink nor the log is asked for another NIC. */
        if (family == NIC_FAMILY_E810) {
                r = ice_ddp_state_read(c->host, p->port->pci, &ddp, &source, &detail);
                if (r == -ENOMEM)
                        return r;
                /* Without devlink and the log, Safe Mode cannot be told from a missing irdma: say so. */
                if (r < 0 && nic_is_driven_by(c->host, p->port->pci, "ice") &&
                    asprintf(
                            &blind,
                            "; could not look at the kernel log (" ICE_DDP_KMSG
                            ": %s), which says whether ice runs it in Safe Mode: `sudo haloctl check --only "
                            "rdma.device` reads it",
                            strerror(-r)) < 0)
                        return -ENOMEM;
        }
        if (ddp == ICE_DDP_SAFE_MODE)
                return port_check_set(
                        ret,
                        CHECK_FAIL,
                        NULL,
                        NULL,
                        "no RDMA device on %s: ice runs %s in Safe Mode (%s; %s), "
                        "which turns RDMA off; see nic.driver for the fix",
                        where,
                        p->port->pci,
                        ice_ddp_cause_to_string(ice_ddp_safe_mode_cause(detail)),
                        ice_ddp_source_to_string(source));
        if (p->error == -ENODEV || p->error == -ENOSYS) {
                load = nic_family_modprobe(family, NIC_MODULE_RDMA);
                if (!load)
                        return -ENOMEM;
                return port_check_set(
                        ret,
                        CHECK_FAIL,
                        NULL,
                        NULL,
                        "no RDMA device on %s%s: load the RDMA driver (%s), then `rdma link` lists it%s",
                        where,
                        p->error == -ENOSYS ? " (the kernel offers no RDMA devices at all)" : "",
                        load,
                        strempty(blind));
        }
        if (p->error == -ELIBACC || p->error == -ELIBBAD) {
                _cleanup_(freep) char *why = NULL;

                /* libibverbs is loaded on first use: say why it could not be, and what to install. */
                if (rdma_library_load(&why) == -ENOMEM)
                        return -ENOMEM;
                return port_check_set(
                        ret, CHECK_FAIL, NULL, NULL, "%s", why ?: "libibverbs.so.1 could not be loaded");
        }
        return port_check_set(
                ret, CHECK_FAIL, NULL, NULL, "cannot list the RDMA devices: %s", strerror(-p->error));
}

static int check_rdma_port_port(const NodeContext *c, RdmaPort *p, PortCheck *ret) {
        char s1[RDMA_STATE_STRING_MAX], s2[RDMA_STATE_STRING_MAX];
        _cleanup_(freep) char *actual = NULL;
        const RdmaDevice *d = p->device;
        const char *state, *phys;

        if (!d)
                return port_check_set(ret, CHECK_SKIP, NULL, NULL, "no RDMA device (see rdma.device)");
        state = rdma_port_state_to_string(d->state, s1);
        phys = rdma_phys_state_to_string(d->phys_state, s2);
        if (asprintf(&actual, "%s/%s", state, phys) < 0)
                return -ENOMEM;
        if (d->state == RDMA_PORT_ACTIVE && d->phys_state == RDMA_PHYS_STATE_LINK_UP)
                return port_check_set(
                        ret,
                        CHECK_PASS,
                        "ACTIVE/LINK_UP",
                        actual,
                        "%s port %u is ACTIVE, LINK_UP",
                        d->name,
                        d->port);
        return port_check_set(
                ret,
                CHECK_FAIL,
                "ACTIVE/LINK_UP",
                actual,
                "%s port %u is %s (physical state %s): check the cable and the peer, and that %s is up "
                "(`ip link set %s up`)",
                d->name,
                d->port,
                state,
                phys,
                strna(p->port->ifname),
                strna(p->port->ifname));
}

static int describe_gids(const RdmaDevice *d, char **ret) {
        _cleanup_(strv_freep) char **l = NULL;

        for (size_t i = 0; i < d->n_gids; i++) {
                char a[INET6_ADDRSTRLEN];

                if (!inet_ntop(AF_INET6, &d->gids[i].gid, a, sizeof(a)))
                        return -errno;
                if (strv_extendf(&l, "%u %s %s", d->gids[i].index, a, gid_type_name(d->gids[i].type)) < 0)
                        return -ENOMEM;
        }
        *ret = l ? strv_join(l, ", ") : strdup("empty");
        return *ret ? 0 : -ENOMEM;
}

static int check_rdma_gid_port(const NodeContext *c, RdmaPort *p, PortCheck *ret) {
        RdmaGidType want = c->profile->rdma.gid;
        struct in6_addr mapped;
        char ip[INET_ADDRSTRLEN];
        _cleanup_(freep) char *expected = NULL, *actual = NULL, *table = NULL;
        RdmaGid g;
        int r;

        if (!p->device)
                return port_check_set(ret, CHECK_SKIP, NULL, NULL, "no RDMA device (see rdma.device)");
        if (!p->port->has_address)
                return port_check_set(
                        ret,
                        CHECK_SKIP,
                        NULL,
                        NULL,
                        "no node is selected, so there is no address to look up (use --node)");
        if (!inet_ntop(AF_INET, &p->port->address, ip, sizeof(ip)))
                return -errno;
        if (asprintf(&expected, "%s ::ffff:%s", gid_type_name(want), ip) < 0)
                return -ENOMEM;

        r = rdma_device_find_gid(p->device, want, p->port->address, &g);
        if (r >= 0) {
                if (asprintf(&actual, "%u", g.index) < 0)
                        return -ENOMEM;
                return port_check_set(
                        ret,
                        CHECK_PASS,
                        expected,
                        actual,
                        "%s GID index %u for %s",
                        gid_type_name(want),
                        g.index,
                        ip);
        }
        if (r == -EAGAIN)
                return port_check_set(
                        ret,
                        CHECK_WARN,
                        expected,
                        NULL,
                        "the GID table of %s port %u kept changing while it was read (addresses coming "
                        "and going?): run the check again",
                        p->device->name,
                        p->device->port);
        if (r != -ENOENT)
                return port_check_set(
                        ret,
                        CHECK_FAIL,
                        expected,
                        NULL,
                        "cannot read the GID table of %s port %u: %s",
                        p->device->name,
                        p->device->port,
                        strerror(-r));

        /* Say what is there instead: the same address with another type, or nothing. */
        mapped = rdma_ipv4_mapped(p->port->address);
        r = describe_gids(p->device, &table);
        if (r < 0)
                return r;
        /* The kernel adds one entry per address for each GID type the port's driver declares
         * (roce_gid_mgmt.c: the port's core capability flags), and nothing else changes that set:
         * rdma_cm's default_roce_mode only picks among existing entries for rdma_cm's own
         * connections. So a missing type is the device's, not a setting's. */
        for (size_t i = 0; i < p->device->n_gids; i++) {
                if (memcmp(&p->device->gids[i].gid, &mapped, sizeof(mapped)) != 0)
                        continue;
                if (want == RDMA_GID_ROCE_V2)
                        return port_check_set(
                                ret,
                                CHECK_FAIL,
                                expected,
                                table,
                                "%s has a RoCE v1 GID (index %u) for %s but no RoCE v2 one: the kernel lists "
                                "an entry of each type the port supports, so %s port %u does not do RoCE v2 "
                                "(irdma, rxe and mlx5 on a ConnectX-4 or newer do; mlx5 lists v2 only when the "
                                "firmware reports it); no rdma_cm setting adds the entry. Update the NIC's "
                                "firmware or use a NIC with RoCE v2, or set rdma.gid: roce-v1 when every node "
                                "runs RoCE v1",
                                p->device->name,
                                p->device->gids[i].index,
                                ip,
                                p->device->name,
                                p->device->port);
                return port_check_set(
                        ret,
                        CHECK_FAIL,
                        expected,
                        table,
                        "%s has a %s GID (index %u) for %s but no %s one: the kernel lists an entry of each "
                        "type the port supports, and %s port %u does not do %s (irdma and rxe register RoCE v2 "
                        "only); set rdma.gid: %s, the type it has",
                        p->device->name,
                        gid_type_name(p->device->gids[i].type),
                        p->device->gids[i].index,
                        ip,
                        gid_type_name(want),
                        p->device->name,
                        p->device->port,
                        gid_type_name(want),
                        gid_type_key(p->device->gids[i].type));
        }
        return port_check_set(
                ret,
                CHECK_FAIL,
                expected,
                table,
                "no %s GID for %s on %s port %u (table: %s): is %s configured on %s? `ip addr` and "
                "`rdma link` show it",
                gid_type_name(want),
                ip,
                p->device->name,
                p->device->port,
                table,
                ip,
                strna(p->port->ifname));
}

static int check_rdma_mtu_port(const NodeContext *c, RdmaPort *p, PortCheck *ret) {
        unsigned netdev_mtu = 0;

        if (!p->device)
                return port_check_set(ret, CHECK_SKIP, NULL, NULL, "no RDMA device (see rdma.device)");
        if (p->port->ifname)
                (void) netdev_read_uint(c->host, p->port->ifname, "mtu", &netdev_mtu);
        return check_rdma_mtu_evaluate(
                p->device->name,
                rdma_device_mtu_driver(c->host, p->device->name),
                p->device->port,
                p->device->active_mtu,
                p->device->max_mtu,
                strna(p->port->ifname),
                netdev_mtu,
                c->profile->rdma.min_active_mtu,
                ret);
}

static int check_rdma_driver_port(const NodeContext *c, RdmaPort *p, PortCheck *ret) {
        _cleanup_(freep) char *link = NULL, *driver = NULL;
        NicFamily family;

        if (!p->port->pci)
                return port_check_set(
                        ret,
                        CHECK_SKIP,
                        NULL,
                        NULL,
                        "no fabric NIC found for link %s, so no RDMA module to look for (see nic.pci)",
                        p->port->link);
        if (asprintf(&link, "/sys/bus/pci/devices/%s/driver", p->port->pci) < 0)
                return -ENOMEM;
        if (host_readlink_basename(c->host, link, &driver) == -ENOMEM)
                return -ENOMEM;
        family = nic_family_of_pci(c->host, p->port->pci);
        return check_rdma_driver_evaluate(
                c->host, driver ?: nic_family_driver(family), nic_family_rdma_module(family), ret);
}

typedef int (*RdmaPortCheck)(const NodeContext *c, RdmaPort *p, PortCheck *ret);

static int add_check(CheckList *out, const char *id, bool required, PortCheck *p) {
        return check_list_add(
                out, id, check_outcome_soften(p->outcome, required), p->expected, p->actual, "%s", p->summary);
}

static int check_rdma_memlock(const NodeContext *c, CheckList *out) {
        _cleanup_(port_check_done) PortCheck p = {};
        int r;

        r = check_rdma_memlock_run(c, &p);
        if (r < 0)
                return r;
        return add_check(out, "rdma.memlock", c->profile->rdma.required, &p);
}

int check_rdma(const NodeContext *c, CheckList *out) {
        static const char *const ids[] = { "rdma.driver", "rdma.device", "rdma.port", "rdma.gid", "rdma.mtu" };
        static const RdmaPortCheck funcs[] = {
                check_rdma_driver_port, check_rdma_device_port, check_rdma_port_port,
                check_rdma_gid_port,    check_rdma_mtu_port,
        };
        bool required = c->profile->rdma.required;
        _cleanup_(fabric_ports_done) FabricPorts found = {};
        FabricPort *ports;
        RdmaPort *rdma = NULL;
        const char *skip = NULL;
        size_t n;
        int r = 0;

        if (!c->profile->rdma.present) {
                skip = "the profile has no rdma: section";
                for (size_t i = 0; i < ELEMENTSOF(ids); i++)
                        if ((r = check_list_add(out, ids[i], CHECK_SKIP, NULL, NULL, "%s", skip)) < 0)
                                return r;
                return check_list_add(out, "rdma.memlock", CHECK_SKIP, NULL, NULL, "%s", skip);
        }

        if (!HAVE_LIBIBVERBS)
                skip = "halod was built without libibverbs: rebuild it with libibverbs (rdma-core) to check RDMA";
        else {
                /* With --root the devices still come from libibverbs (the running kernel), matched to
                 * the tree's netdevs by their sysfs PCI parent and GID ifindex: the tests feed a
                 * fixture tree and a fake libibverbs together. */
                r = fabric_ports_find(c, &found);
                if (r < 0)
                        return r;
                if (found.n == 0)
                        skip = "the profile names no links, so there is no fabric netdev to check";
        }
        if (skip) {
                for (size_t i = 0; i < ELEMENTSOF(ids) && r >= 0; i++)
                        r = check_list_add(out, ids[i], CHECK_SKIP, NULL, NULL, "%s", skip);
                return r < 0 ? r : check_rdma_memlock(c, out);
        }

        ports = found.ports;
        n = found.n;
        rdma = calloc(n, sizeof(RdmaPort));
        if (!rdma)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                rdma[i] = (RdmaPort){ .port = &ports[i], .error = -ENODEV };
                if (ports[i].ifname || ports[i].pci) {
                        rdma[i].error = rdma_device_find(
                                c->host, ports[i].pci, ports[i].ifindex, &rdma[i].device);
                        if (rdma[i].error == -ENOMEM) {
                                r = -ENOMEM;
                                break;
                        }
                }
        }

        for (size_t k = 0; k < ELEMENTSOF(ids) && r >= 0; k++) {
                PortCheck *results = calloc(n, sizeof(PortCheck));

                if (!results) {
                        r = -ENOMEM;
                        break;
                }
                for (size_t i = 0; i < n && r >= 0; i++) {
                        r = funcs[k](c, &rdma[i], &results[i]);
                        results[i].outcome = check_outcome_soften(results[i].outcome, required);
                }
                if (r >= 0)
                        r = check_list_add_ports(out, ids[k], ports, results, n);
                port_checks_free(results, n);
        }
        for (size_t i = 0; i < n; i++)
                rdma_device_free(rdma[i].device);
        free(rdma);
        return r < 0 ? r : check_rdma_memlock(c, out);
}
