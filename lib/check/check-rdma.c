/* SPDX-License-Identifier: MIT */
/* The RDMA checks: each port's RDMA device, port and MTU from the snapshot handed to the decisions
 * (check-rdma-driver.c, -gid.c, -mtu.c, -memlock.c), rdma.device and rdma.port judged here. */
#include <stdio.h>

#include "check/check-nic.h"
#include "check/check-rdma.h"
#include "config.h"
#include "nic/ice-ddp.h"
#include "nic/nic-family.h"
#include "rdma/rdma.h"
#include "snapshot/snapshot-rdma.h"

/* One port as the rdma.* checks see it: the snapshot's facts, borrowed. */
typedef struct RdmaPort {
        const FabricPort *port;
        const Snapshot *snapshot; /* for the host's facts */
        const SnapshotRdma *facts;
        const NicFacts *nic;
        RdmaDevice *device; /* NULL: error says why */
        int error;
        unsigned mtu; /* the netdev's; 0 when not known */
        RoceMtuDriver mtu_driver;
        NicFamily family;          /* of the port's PCI device (nic_facts_family()) */
        const char *library_error; /* why libibverbs could not be loaded (SnapshotRdma.library_error) */
} RdmaPort;

/* The driver bound to the port's PCI device (its sysfs driver link), as the NIC facts name it: libpci's,
 * else sysfs's where libpci could not describe the device. */
static const char *bound_driver(const NicFacts *f) {
        if (f->device)
                return f->device->driver;
        return f->sysfs_driver;
}

/* Why an E810 may have no RDMA device: ice's DDP state (devlink, else the kernel log), as the snapshot
 * read it for an E810 port without one (SnapshotRdma.ddp). *ret_blind says that the log could not be
 * read, when that is what leaves the question open. */
static int read_ddp(
        const NodeContext *c,
        const RdmaPort *p,
        IceDdpState *ret_ddp,
        IceDdpSource *ret_source,
        const char **ret_detail,
        char **ret_blind) {
        const SnapshotRdma *d = p->facts;
        int r;

        if (p->family != NIC_FAMILY_E810 || d->ddp_error == -ENOMEDIUM)
                return 0;
        r = d->ddp_error;
        if (r >= 0) {
                *ret_ddp = d->ddp;
                *ret_source = d->ddp_source;
                *ret_detail = d->ddp_detail;
        }
        /* Without devlink and the log, Safe Mode cannot be told from a missing irdma: say so. */
        if (r < 0 && streq_ptr(bound_driver(p->nic), "ice") &&
            asprintf(
                    ret_blind,
                    "; could not look at the kernel log (" ICE_DDP_KMSG
                    ": %s), which says whether ice runs it in Safe Mode: `sudo haloctl check --only "
                    "rdma.device` reads it",
                    strerror(-r)) < 0)
                return -ENOMEM;
        return 0;
}

/* An iWARP device (node type RNIC) where the profile wants RoCE or InfiniBand: irdma runs one protocol
 * at a time, the one ice plugs its auxiliary device for (ice.roce.N or ice.iwarp.N, ice_idc.c), and ice
 * switches it with its devlink parameters enable_roce and enable_iwarp (ice_devlink.c: runtime, and
 * refusing to enable one while the other is on). */
static int check_rdma_device_iwarp(const NodeContext *c, RdmaPort *p, const char *where, PortCheck *ret) {
        const RdmaDevice *d = p->device;
        _cleanup_(freep) char *on = NULL, *fix = NULL;
        const char *want = rdma_gid_type_to_string(c->profile->rdma.gid);

        if (d->parent && asprintf(&on, ", on %s", d->parent) < 0)
                return -ENOMEM;
        if (p->family == NIC_FAMILY_E810 && p->port->pci) {
                if (check_nic_roce_fix(p->port->pci, DEVLINK_PARAM_CMODE_RUNTIME, /* iwarp_on= */ true, &fix) <
                    0)
                        return -ENOMEM;
                return port_check_set(
                        ret,
                        CHECK_FAIL,
                        "RoCE",
                        "iWARP",
                        "%s port %u on %s runs iWARP (node type RNIC%s), not RoCE, so it has no %s GID (rdma.gid): "
                        "switch ice's RDMA protocol with %s (runtime settings: whatever set iWARP at boot sets it "
                        "again)",
                        d->name,
                        d->port,
                        where,
                        strempty(on),
                        want,
                        fix);
        }
        return port_check_set(
                ret,
                CHECK_FAIL,
                "RoCE",
                "iWARP",
                "%s port %u on %s runs iWARP (node type RNIC%s), not RoCE, so it has no %s GID: rdma.gid %s "
                "needs a RoCE device; use a NIC that runs RoCE",
                d->name,
                d->port,
                where,
                strempty(on),
                want,
                want);
}

static int check_rdma_device_port(const NodeContext *c, RdmaPort *p, PortCheck *ret) {
        const char *where = p->port->ifname ?: p->port->pci, *detail = NULL;
        _cleanup_(freep) char *blind = NULL, *load = NULL;
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
        if (p->error >= 0 && p->device->node_type == RDMA_NODE_RNIC)
                return check_rdma_device_iwarp(c, p, where, ret);
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

        family = p->family;
        r = read_ddp(c, p, &ddp, &source, &detail, &blind);
        if (r < 0)
                return r;
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
        if (p->error == -ELIBACC || p->error == -ELIBBAD)
                /* libibverbs is loaded on first use: say why it could not be, and what to install. */
                return port_check_set(
                        ret,
                        CHECK_FAIL,
                        NULL,
                        NULL,
                        "%s",
                        p->library_error ?: "libibverbs.so.1 could not be loaded");
        if (!host_is_running_system(c->host))
                return port_check_set(
                        ret,
                        CHECK_FAIL,
                        NULL,
                        NULL,
                        "cannot read the RDMA device of %s from the tree's /sys/class/infiniband: %s",
                        where,
                        p->error == -EBADMSG ? "an attribute of its port is not as ib_core writes it (state "
                                               "\"4: ACTIVE\", phys_state \"5: LinkUp\")"
                                             : strerror(-p->error));
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

static int check_rdma_gid_port(const NodeContext *c, RdmaPort *p, PortCheck *ret) {
        if (!p->device)
                return port_check_set(ret, CHECK_SKIP, NULL, NULL, "no RDMA device (see rdma.device)");
        if (p->device->node_type == RDMA_NODE_RNIC)
                return port_check_set(
                        ret,
                        CHECK_SKIP,
                        NULL,
                        NULL,
                        "%s port %u runs iWARP, whose GID is the MAC address, not an IP one (see rdma.device)",
                        p->device->name,
                        p->device->port);
        if (!p->port->has_address)
                return port_check_set(
                        ret,
                        CHECK_SKIP,
                        NULL,
                        NULL,
                        "no node is selected, so there is no address to look up (use --node)");
        /* The live table, read back when the snapshot was read (rdma/rdma.h), right before the checks. */
        return check_rdma_gid_evaluate(
                p->device,
                c->profile->rdma.gid,
                p->port->address,
                p->port->ifname,
                p->facts->gid_error,
                &p->facts->gid,
                ret);
}

/* A device read from sysfs has no active MTU (ib_core's sysfs has no such attribute): the driver computes
 * it from the netdev MTU when asked (irdma_query_port(), mlx5's iboe_get_mtu(), rxe's
 * eth_mtu_int_to_enum()), so it is derived here by the same rule; for an unknown driver by the rule that
 * leaves the least. */
static int check_rdma_mtu_derived(const NodeContext *c, RdmaPort *p, PortCheck *ret) {
        const RdmaDevice *d = p->device;
        _cleanup_(freep) char *summary = NULL;
        unsigned active;
        int r;

        if (p->mtu == 0)
                return port_check_set(
                        ret,
                        CHECK_WARN,
                        NULL,
                        NULL,
                        "could not look at the MTU of %s port %u: sysfs has no active MTU, and the MTU of %s, "
                        "from which the driver computes it, could not be read",
                        d->name,
                        d->port,
                        strna(p->port->ifname));
        active = roce_mtu_for_netdev_mtu(p->mtu, roce_mtu_headroom(p->mtu_driver));
        r = check_rdma_mtu_evaluate(
                d->name,
                p->mtu_driver,
                d->port,
                active,
                /* max_mtu= */ 0,
                strna(p->port->ifname),
                p->mtu,
                c->profile->rdma.min_active_mtu,
                ret);
        if (r < 0 || active == 0)
                return r;
        if (asprintf(
                    &summary,
                    "%s; from the netdev MTU by %s's rule, as sysfs has no active MTU",
                    ret->summary,
                    roce_mtu_driver_to_string(p->mtu_driver) ?: "the strictest known driver") < 0)
                return -ENOMEM;
        free(ret->summary);
        ret->summary = TAKE_PTR(summary);
        return 0;
}

static int check_rdma_mtu_port(const NodeContext *c, RdmaPort *p, PortCheck *ret) {
        if (!p->device)
                return port_check_set(ret, CHECK_SKIP, NULL, NULL, "no RDMA device (see rdma.device)");
        if (!p->device->context && p->device->active_mtu == 0)
                return check_rdma_mtu_derived(c, p, ret);
        return check_rdma_mtu_evaluate(
                p->device->name,
                p->mtu_driver,
                p->device->port,
                p->device->active_mtu,
                p->device->max_mtu,
                strna(p->port->ifname),
                p->mtu,
                c->profile->rdma.min_active_mtu,
                ret);
}

/* ice in Safe Mode gives irdma no device to bind (its RDMA capability is off), so irdma is not loaded
 * for it and loading it by hand changes nothing: the fix is nic.driver's. */
static int rdma_driver_safe_mode(const NodeContext *c, const RdmaPort *p, const char *module, PortCheck *ret) {
        _cleanup_(freep) char *blind = NULL;
        const char *detail = NULL;
        IceDdpState ddp = ICE_DDP_UNKNOWN;
        IceDdpSource source = ICE_DDP_SOURCE_NONE;
        int r;

        r = read_ddp(c, p, &ddp, &source, &detail, &blind);
        if (r < 0 || ddp != ICE_DDP_SAFE_MODE)
                return r;
        port_check_done(ret);
        return port_check_set(
                ret,
                CHECK_FAIL,
                "loaded, and loads at boot",
                "not loaded",
                "%s is not loaded: ice runs %s in Safe Mode (%s; %s), which offers %s no RDMA device, so "
                "loading it by hand changes nothing; see nic.driver for the fix",
                module,
                p->port->pci,
                ice_ddp_cause_to_string(ice_ddp_safe_mode_cause(detail)),
                ice_ddp_source_to_string(source),
                module);
}

static int check_rdma_driver_port(const NodeContext *c, RdmaPort *p, PortCheck *ret) {
        const char *module = nic_family_rdma_module(p->family), *driver = bound_driver(p->nic);
        int r;

        if (!snapshot_has(p->snapshot, SNAPSHOT_MODULES)) /* its caller did not read it */
                return port_check_set(ret, CHECK_SKIP, NULL, NULL, "rdma.driver is not selected");
        if (!p->port->pci)
                return port_check_set(
                        ret,
                        CHECK_SKIP,
                        NULL,
                        NULL,
                        "no fabric NIC found for link %s, so no RDMA module to look for (see nic.pci)",
                        p->port->link);
        r = check_rdma_driver_evaluate(
                snapshot_module_state(p->snapshot, module), driver ?: nic_family_driver(p->family), module, ret);
        if (r < 0 || ret->outcome != CHECK_FAIL || !streq_ptr(ret->actual, "not loaded"))
                return r;
        return rdma_driver_safe_mode(c, p, module, ret);
}

typedef int (*RdmaPortCheck)(const NodeContext *c, RdmaPort *p, PortCheck *ret);

static int add_check(CheckList *out, const char *id, bool required, PortCheck *p) {
        return check_list_add(
                out, id, check_outcome_soften(p->outcome, required), p->expected, p->actual, "%s", p->summary);
}

/* From the snapshot's memlock facts (s NULL: one of its own); family: the fabric NIC's, whose RDMA module
 * rdma.memlock names when there is no uverbs device. */
static int check_rdma_memlock(const NodeContext *c, const Snapshot *s, NicFamily family, CheckList *out) {
        _cleanup_(port_check_done) PortCheck p = {};
        _cleanup_(freep) char *reboot = NULL;
        int r;

        if (!snapshot_has(s, SNAPSHOT_MEMLOCK | SNAPSHOT_ETC_GROUP | SNAPSHOT_DEVICES))
                return 0; /* not selected: its caller did not read it */
        r = check_rdma_memlock_evaluate(&s->host.memlock, &s->host, family, c->profile->rdma.memlock, &p);
        if (r >= 0)
                r = check_rdma_memlock_pending_reboot(&s->host.memlock, c->profile->rdma.memlock, &reboot);
        if (r >= 0)
                r = add_check(out, "rdma.memlock", c->profile->rdma.required, &p);
        if (r < 0 || !reboot)
                return r;
        return check_list_set_pending_reboot(out, "%s", reboot);
}

/* The skip of every rdma.* check when there is nothing to check. */
static int skip_all(
        const NodeContext *c,
        const Snapshot *s,
        const char *const *ids,
        size_t n,
        const char *reason,
        CheckList *out) {
        for (size_t i = 0; i < n; i++) {
                int r = check_list_skip(out, ids[i], "%s", reason);

                if (r < 0)
                        return r;
        }
        return c->profile->rdma.present ? check_rdma_memlock(c, s, NIC_FAMILY_UNKNOWN, out)
                                        : check_list_skip(out, "rdma.memlock", "%s", reason);
}

/* Each port's check k, one check per link. */
static int add_port_checks(
        const NodeContext *c,
        const Snapshot *s,
        RdmaPort *rdma,
        const char *id,
        RdmaPortCheck func,
        CheckList *out) {
        PortCheck *results;
        int r = 0;

        results = calloc(s->n_ports, sizeof(PortCheck));
        if (!results)
                return -ENOMEM;
        for (size_t i = 0; i < s->n_ports && r >= 0; i++) {
                r = func(c, &rdma[i], &results[i]);
                results[i].outcome = check_outcome_soften(results[i].outcome, c->profile->rdma.required);
        }
        if (r >= 0)
                r = check_list_add_ports(out, id, s->ports, results, s->n_ports);
        port_checks_free(results, s->n_ports);
        return r;
}

int check_rdma(
        const NodeContext *c, const Snapshot *s, const CheckHistory *before, CheckHistory *after, CheckList *out) {
        static const char *const ids[] = { "rdma.driver", "rdma.device", "rdma.port", "rdma.gid", "rdma.mtu" };
        static const RdmaPortCheck funcs[] = {
                check_rdma_driver_port, check_rdma_device_port, check_rdma_port_port,
                check_rdma_gid_port,    check_rdma_mtu_port,
        };
        _cleanup_(freep) RdmaPort *rdma = NULL;
        NicFamily family = _NIC_FAMILY_INVALID; /* none seen yet */
        int r;

        if (!c->profile->rdma.present)
                return skip_all(c, s, ids, ELEMENTSOF(ids), "the profile has no rdma: section", out);
        /* A host tree's RDMA facts come from its sysfs: only the running system needs libibverbs. */
        if (!HAVE_LIBIBVERBS && host_is_running_system(c->host))
                return skip_all(
                        c,
                        s,
                        ids,
                        ELEMENTSOF(ids),
                        "halod was built without libibverbs: rebuild it with libibverbs (rdma-core) to check RDMA",
                        out);

        if (!snapshot_has(s, SNAPSHOT_RDMA | SNAPSHOT_MTU | SNAPSHOT_NICS))
                return check_rdma_memlock(c, s, NIC_FAMILY_UNKNOWN, out); /* only rdma.memlock is selected */
        if (s->n_ports == 0)
                return skip_all(
                        c,
                        s,
                        ids,
                        ELEMENTSOF(ids),
                        "the profile names no links, so there is no fabric netdev to check",
                        out);

        rdma = calloc(s->n_ports, sizeof(RdmaPort));
        if (!rdma)
                return -ENOMEM;
        for (size_t i = 0; i < s->n_ports; i++) {
                rdma[i] = (RdmaPort){
                        .port = &s->ports[i],
                        .snapshot = s,
                        .facts = &s->rdma[i],
                        .nic = &s->nics[i],
                        .mtu = snapshot_port_mtu(s, i),
                        .family = nic_facts_family(&s->nics[i]),
                        .library_error = s->rdma[i].library_error,
                };
                rdma[i].device = snapshot_rdma_device(s, i, &rdma[i].error);
                if (rdma[i].device)
                        rdma[i].mtu_driver = s->rdma[i].mtu_driver;
                /* The fabric NIC's family: the one its ports share, unknown when they differ. */
                if (rdma[i].family != NIC_FAMILY_UNKNOWN)
                        family = family == _NIC_FAMILY_INVALID || family == rdma[i].family
                                ? rdma[i].family
                                : NIC_FAMILY_UNKNOWN;
        }
        for (size_t k = 0; k < ELEMENTSOF(ids); k++) {
                r = add_port_checks(c, s, rdma, ids[k], funcs[k], out);
                if (r < 0)
                        return r;
        }
        return check_rdma_memlock(c, s, family == _NIC_FAMILY_INVALID ? NIC_FAMILY_UNKNOWN : family, out);
}
