/* SPDX-License-Identifier: MIT */
/* RDMA device, port and GID queries through libibverbs, loaded on the first query. The libibverbs
 * surface is kept to a few calls on purpose: the unit tests link tests/unit/fake-verbs.c in place of
 * exactly these (lib/rdma/dlopen-verbs.h). */
#include <stdio.h>

#include "basic/rdma-mtu.h"
#include "config.h"
#include "rdma/rdma-sysfs-read.h"
#include "rdma/rdma-sysfs.h"
#include "rdma/rdma.h"

#if HAVE_LIBIBVERBS
#        include "rdma/dlopen-verbs.h"
#        include "rdma/verbs-provider.h"
#endif

const char *rdma_port_state_to_string(int state, char *buf) {
        static const char *const names[] = { "NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER" };

        if (state >= 0 && (size_t) state < ELEMENTSOF(names))
                return names[state];
        snprintf(buf, RDMA_STATE_STRING_MAX, "UNKNOWN(%d)", state);
        return buf;
}

const char *rdma_phys_state_to_string(unsigned phys_state, char *buf) {
        static const char *const names[] = {
                NULL,
                "SLEEP",
                "POLLING",
                "DISABLED",
                "PORT_CONFIGURATION_TRAINING",
                "LINK_UP",
                "LINK_ERROR_RECOVERY",
                "PHY_TEST",
        };

        if (phys_state < ELEMENTSOF(names) && names[phys_state])
                return names[phys_state];
        snprintf(buf, RDMA_STATE_STRING_MAX, "UNKNOWN(%u)", phys_state);
        return buf;
}

struct in6_addr rdma_ipv4_mapped(struct in_addr a) {
        struct in6_addr m = {};

        m.s6_addr[10] = 0xff;
        m.s6_addr[11] = 0xff;
        memcpy(&m.s6_addr[12], &a.s_addr, 4);
        return m;
}

#if HAVE_LIBIBVERBS

_Static_assert(RDMA_PORT_DOWN == IBV_PORT_DOWN, "port state values differ from libibverbs");
_Static_assert(RDMA_PORT_ACTIVE == IBV_PORT_ACTIVE, "port state values differ from libibverbs");

static RdmaGidType gid_type_from_verbs(uint32_t t) {
        switch (t) {
        case IBV_GID_TYPE_IB:
                return RDMA_GID_IB;
        case IBV_GID_TYPE_ROCE_V1:
                return RDMA_GID_ROCE_V1;
        case IBV_GID_TYPE_ROCE_V2:
                return RDMA_GID_ROCE_V2;
        default:
                return _RDMA_GID_TYPE_INVALID;
        }
}

static RdmaGid gid_from_entry(const struct ibv_gid_entry *e) {
        RdmaGid g = {
                .index = e->gid_index,
                .port = e->port_num,
                .type = gid_type_from_verbs(e->gid_type),
                .ifindex = e->ndev_ifindex,
        };

        memcpy(g.gid.s6_addr, e->gid.raw, sizeof(g.gid.s6_addr));
        return g;
}

/* Older kernels have no GID table query: read the table of each port one index at a time. */
static int query_gids_by_index(struct ibv_context *ctx, struct ibv_gid_entry *entries, size_t *n) {
        for (uint32_t port = 1; port <= RDMA_PORTS_MAX; port++) {
                struct ibv_port_attr attr;

                if (verbs_query_port(ctx, (uint8_t) port, &attr) != 0)
                        break; /* no such port */
                for (int i = 0; i < attr.gid_tbl_len && *n < RDMA_GIDS_MAX; i++) {
                        int r = verbs_query_gid_ex(ctx, port, (uint32_t) i, &entries[*n], 0);

                        if (r == ENODATA || r == EINVAL)
                                continue; /* an empty slot */
                        if (r != 0)
                                return -r;
                        (*n)++;
                }
        }
        return 0;
}

/* The valid entries of every port's GID table; only port's when port > 0. */
static int query_gids(struct ibv_context *ctx, uint32_t port, RdmaGid **ret, size_t *ret_n) {
        _cleanup_(freep) struct ibv_gid_entry *entries = NULL;
        _cleanup_(freep) RdmaGid *gids = NULL;
        size_t n = 0, k = 0;
        ssize_t q;

        entries = calloc(RDMA_GIDS_MAX, sizeof(struct ibv_gid_entry));
        if (!entries)
                return -ENOMEM;
        q = verbs_query_gid_table(ctx, entries, RDMA_GIDS_MAX, 0);
        if (q == -EOPNOTSUPP || q == -ENOSYS) {
                int r = query_gids_by_index(ctx, entries, &n);

                if (r < 0)
                        return r;
        } else if (q < 0)
                return (int) q;
        else
                n = (size_t) q > RDMA_GIDS_MAX ? RDMA_GIDS_MAX : (size_t) q;

        gids = calloc(n > 0 ? n : 1, sizeof(RdmaGid));
        if (!gids)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++)
                if (port == 0 || entries[i].port_num == port)
                        gids[k++] = gid_from_entry(&entries[i]);
        *ret = TAKE_PTR(gids);
        *ret_n = k;
        return 0;
}

static int query_port(RdmaDevice *d) {
        struct ibv_port_attr attr;
        int r;

        r = verbs_query_port((struct ibv_context *) d->context, (uint8_t) d->port, &attr);
        if (r != 0)
                return r > 0 ? -r : -EIO;
        d->state = attr.state;
        d->phys_state = attr.phys_state;
        d->link_layer = attr.link_layer;
        d->active_mtu = rdma_mtu_to_bytes(attr.active_mtu);
        d->max_mtu = rdma_mtu_to_bytes(attr.max_mtu);
        return 0;
}

RdmaDevice *rdma_device_free(RdmaDevice *d) {
        if (!d)
                return NULL;
        if (d->context)
                (void) sym_ibv_close_device((struct ibv_context *) d->context);
        free(d->name);
        free(d->parent);
        free(d->gids);
        return mfree(d);
}

static void ibv_free_device_listp(struct ibv_device ***l) {
        if (*l)
                sym_ibv_free_device_list(*l);
}

/* Opens dev and decides whether it is the one: 1 with the port, 0 when it is not, <0 on error. */
/* pci_device: the RDMA device below the PCI function of the port (rdma_sysfs_device_of_pci()), or NULL. */
static int device_matches(
        struct ibv_device *dev,
        const char *pci_device,
        int ifindex,
        struct ibv_context **ret_ctx,
        uint32_t *ret_port) {
        _cleanup_(freep) RdmaGid *gids = NULL;
        struct ibv_context *ctx;
        const char *name = sym_ibv_get_device_name(dev);
        bool by_pci;
        uint32_t port = 0;
        size_t n = 0;
        int r;

        if (!name)
                return 0;
        by_pci = streq_ptr(name, pci_device);

        ctx = sym_ibv_open_device(dev);
        if (!ctx)
                return by_pci ? negative_errno() : 0;

        r = query_gids(ctx, 0, &gids, &n);
        if (r < 0 && !by_pci) {
                (void) sym_ibv_close_device(ctx);
                return 0;
        }
        for (size_t i = 0; ifindex > 0 && i < n && port == 0; i++)
                if (gids[i].ifindex == (uint32_t) ifindex)
                        port = gids[i].port;
        if (port == 0 && by_pci)
                port = 1; /* no address yet, so no GID on the netdev: the PCI parent decides */
        if (port == 0) {
                (void) sym_ibv_close_device(ctx);
                return 0;
        }
        *ret_ctx = ctx;
        *ret_port = port;
        return 1;
}

/* libibverbs lists the devices through the kernel's RDMA netlink family, else from
 * /sys/class/infiniband_verbs; both come with ib_core, which also makes /sys/class/infiniband.
 * Without it ibv_get_device_list() can only fail with ENOSYS: say so without loading libibverbs
 * and its libnl, which is what most machines would otherwise pay for nothing. The devices are the
 * running kernel's: a host tree's are read from its sysfs (rdma/rdma-sysfs-read.h). */
static bool kernel_has_rdma(void) {
        if (DLOPEN_VERBS_LINKED)
                return true; /* the test double plays the kernel (fake_verbs_setup()'s list_errno) */
        return access("/sys/class/infiniband", F_OK) >= 0 || errno != ENOENT;
}

int rdma_library_load(char **ret_error) {
        return dlopen_verbs(ret_error);
}

int rdma_device_find(const Host *h, const char *pci, int ifindex, RdmaDevice **ret) {
        _cleanup_(ibv_free_device_listp) struct ibv_device **list = NULL;
        _cleanup_(rdma_device_freep) RdmaDevice *d = NULL;
        _cleanup_(freep) char *pci_device = NULL;
        int n = 0, r;

        if (!kernel_has_rdma())
                return -ENOSYS;
        r = dlopen_verbs(/* ret_error= */ NULL);
        if (r < 0)
                return r;
        /* Only the providers of the devices there are, not all of rdma-core's (RSS). */
        (void) verbs_provider_preload();

        errno = 0;
        list = sym_ibv_get_device_list(&n);
        if (!list)
                return errno > 0 ? -errno : -ENOSYS;

        /* irdma sits below ice's auxiliary device (ice.roce.N), mlx5 on the function itself. */
        r = rdma_sysfs_device_of_pci(h, pci, &pci_device);
        if (r == -ENOMEM)
                return r;
        for (int i = 0; i < n && list[i]; i++) {
                struct ibv_context *ctx = NULL;
                uint32_t port = 0;

                r = device_matches(list[i], pci_device, ifindex, &ctx, &port);
                if (r < 0)
                        return r;
                if (r == 0)
                        continue;

                d = calloc(1, sizeof(RdmaDevice));
                if (!d) {
                        (void) sym_ibv_close_device(ctx);
                        return -ENOMEM;
                }
                d->context = ctx;
                d->port = port;
                d->node_type = list[i]->node_type;
                d->name = strdup(sym_ibv_get_device_name(list[i]));
                if (!d->name)
                        return -ENOMEM;
                r = rdma_sysfs_parent(h, d->name, &d->parent);
                if (r == -ENOMEM)
                        return r;
                r = query_port(d);
                if (r < 0)
                        return r;
                r = query_gids(ctx, port, &d->gids, &d->n_gids);
                if (r < 0)
                        return r;
                *ret = TAKE_PTR(d);
                return 0;
        }
        return -ENODEV;
}

#        define RDMA_GID_ATTEMPTS 3

int rdma_device_find_gid(RdmaDevice *d, RdmaGidType type, struct in_addr address, RdmaGid *ret) {
        struct in6_addr want = rdma_ipv4_mapped(address);

        if (!d)
                return -EINVAL;
        if (!d->context)
                return rdma_gid_table_find(d, type, address, ret);

        for (int attempt = 0; attempt < RDMA_GID_ATTEMPTS; attempt++) {
                _cleanup_(freep) RdmaGid *gids = NULL;
                struct ibv_gid_entry e = {};
                const RdmaGid *found = NULL;
                size_t n = 0;
                int r;

                r = query_gids((struct ibv_context *) d->context, d->port, &gids, &n);
                if (r < 0)
                        return r;
                for (size_t i = 0; i < n && !found; i++)
                        if (gids[i].type == type && memcmp(&gids[i].gid, &want, sizeof(want)) == 0)
                                found = &gids[i];
                if (!found)
                        return -ENOENT;

                r = verbs_query_gid_ex((struct ibv_context *) d->context, d->port, found->index, &e, 0);
                if (r == 0 && gid_type_from_verbs(e.gid_type) == type &&
                    memcmp(e.gid.raw, &want, sizeof(want)) == 0) {
                        *ret = *found;
                        return 0;
                }
                if (r != 0 && r != ENODATA && r != EINVAL)
                        return -r;
                /* The entry moved (or vanished) between the two reads: read the table again. */
        }
        return -EAGAIN;
}

#else

int rdma_library_load(char **ret_error) {
        if (ret_error)
                *ret_error = strdup("halod was built without libibverbs");
        return -EOPNOTSUPP;
}

RdmaDevice *rdma_device_free(RdmaDevice *d) {
        if (!d)
                return NULL;
        free(d->name);
        free(d->parent);
        free(d->gids);
        return mfree(d);
}

int rdma_device_find(const Host *h, const char *pci, int ifindex, RdmaDevice **ret) {
        return -EOPNOTSUPP;
}

int rdma_device_find_gid(RdmaDevice *d, RdmaGidType type, struct in_addr address, RdmaGid *ret) {
        if (!d)
                return -EINVAL;
        /* A device read from sysfs needs no libibverbs. */
        return d->context ? -EOPNOTSUPP : rdma_gid_table_find(d, type, address, ret);
}

#endif
