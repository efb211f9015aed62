/* SPDX-License-Identifier: MIT */
/* Reading an RDMA device, its port and its GID table from sysfs below the host root, in the words of
 * drivers/infiniband/core/sysfs.c. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "basic/strv.h"
#include "nic/pci-sysfs.h"
#include "rdma/rdma-sysfs-read.h"
#include "rdma/rdma-sysfs.h"

#define INFINIBAND_DIR "/sys/class/infiniband"

int rdma_sysfs_parse_numbered(const char *s, unsigned *ret) {
        unsigned long n;
        char *end;

        if (!s || *s < '0' || *s > '9')
                return -EBADMSG;
        errno = 0;
        n = strtoul(s, &end, 10);
        if (errno != 0 || n > INT_MAX || *end != ':')
                return -EBADMSG;
        *ret = (unsigned) n;
        return 0;
}

static int hex_digit(char c) {
        if (c >= '0' && c <= '9')
                return c - '0';
        if (c >= 'a' && c <= 'f')
                return c - 'a' + 10;
        if (c >= 'A' && c <= 'F')
                return c - 'A' + 10;
        return -1;
}

int rdma_sysfs_parse_gid(const char *s, struct in6_addr *ret) {
        struct in6_addr a = {};

        if (!s)
                return -EBADMSG;
        /* %pI6 (lib/vsprintf.c, ip6_string()): every group printed as four digits, no "::". */
        for (size_t g = 0; g < 8; g++) {
                unsigned v = 0;

                for (size_t i = 0; i < 4; i++) {
                        int d = hex_digit(*s++);

                        if (d < 0)
                                return -EBADMSG;
                        v = v << 4 | (unsigned) d;
                }
                if (*s != (g < 7 ? ':' : '\0'))
                        return -EBADMSG;
                if (g < 7)
                        s++;
                a.s6_addr[2 * g] = (uint8_t) (v >> 8);
                a.s6_addr[2 * g + 1] = (uint8_t) v;
        }
        *ret = a;
        return 0;
}

int rdma_sysfs_parse_gid_type(const char *s, unsigned link_layer, RdmaGidType *ret) {
        if (streq_ptr(s, "RoCE v2"))
                *ret = RDMA_GID_ROCE_V2;
        else if (streq_ptr(s, "IB/RoCE v1"))
                /* IB_GID_TYPE_IB and IB_GID_TYPE_ROCE are one value: the link layer tells them apart. */
                *ret = link_layer == RDMA_LINK_LAYER_INFINIBAND ? RDMA_GID_IB : RDMA_GID_ROCE_V1;
        else
                return -EBADMSG;
        return 0;
}

int rdma_sysfs_parse_link_layer(const char *s, unsigned *ret) {
        if (streq_ptr(s, "InfiniBand"))
                *ret = RDMA_LINK_LAYER_INFINIBAND;
        else if (streq_ptr(s, "Ethernet"))
                *ret = RDMA_LINK_LAYER_ETHERNET;
        else if (streq_ptr(s, "Unknown"))
                *ret = RDMA_LINK_LAYER_UNSPECIFIED;
        else
                return -EBADMSG;
        return 0;
}

int rdma_gid_table_find(const RdmaDevice *d, RdmaGidType type, struct in_addr address, RdmaGid *ret) {
        struct in6_addr want = rdma_ipv4_mapped(address);

        for (size_t i = 0; i < d->n_gids; i++)
                if (d->gids[i].type == type && memcmp(&d->gids[i].gid, &want, sizeof(want)) == 0) {
                        *ret = d->gids[i];
                        return 0;
                }
        return -ENOENT;
}

/* A numbered attribute of the port ("state", "phys_state"): 0, or -EBADMSG, or the errno of reading. */
static int read_port_numbered(const Host *h, const char *device, uint32_t port, const char *name, unsigned *ret) {
        _cleanup_(freep) char *path = NULL, *text = NULL;
        int r;

        if (asprintf(&path, INFINIBAND_DIR "/%s/ports/%u/%s", device, port, name) < 0)
                return -ENOMEM;
        r = host_read_line(h, path, &text);
        if (r < 0)
                return r;
        return rdma_sysfs_parse_numbered(text, ret);
}

/* DIR/NAME/INDEX of a port's GID table ("gids", "gid_attrs/types", "gid_attrs/ndevs"). */
static int read_table_line(const Host *h, const char *dir, const char *name, uint32_t index, char **ret) {
        _cleanup_(freep) char *path = NULL;

        if (asprintf(&path, "%s/%s/%u", dir, name, index) < 0)
                return -ENOMEM;
        return host_read_line(h, path, ret);
}

/* Entry index of the port's table: 1 with it in *ret, 0 for an empty slot (ib_core prints the zero GID
 * and refuses to read its type with EINVAL; a tree may leave the type out), or a negative errno. */
static int read_gid(
        const Host *h, const char *device, uint32_t port, uint32_t index, unsigned link_layer, RdmaGid *ret) {
        _cleanup_(freep) char *dir = NULL, *text = NULL, *type = NULL, *ndev = NULL;
        static const struct in6_addr zero = {};
        RdmaGid g = { .index = index, .port = port };
        unsigned ifindex = 0;
        int r;

        if (asprintf(&dir, INFINIBAND_DIR "/%s/ports/%u", device, port) < 0)
                return -ENOMEM;
        r = read_table_line(h, dir, "gids", index, &text);
        if (r < 0)
                return r;
        r = rdma_sysfs_parse_gid(text, &g.gid);
        if (r < 0 || memcmp(&g.gid, &zero, sizeof(zero)) == 0)
                return r;
        r = read_table_line(h, dir, "gid_attrs/types", index, &type);
        if (r < 0)
                return r == -ENOMEM ? r : 0;
        if (rdma_sysfs_parse_gid_type(type, link_layer, &g.type) < 0)
                g.type = _RDMA_GID_TYPE_INVALID; /* a type this code does not know, kept to be shown */
        if (read_table_line(h, dir, "gid_attrs/ndevs", index, &ndev) == -ENOMEM)
                return -ENOMEM;
        if (ndev && netdev_read_uint(h, ndev, "ifindex", &ifindex) == -ENOMEM)
                return -ENOMEM;
        g.ifindex = ifindex;
        *ret = g;
        return 1;
}

/* The valid entries of the port's GID table, in index order. */
static int read_gid_table(
        const Host *h, const char *device, uint32_t port, unsigned link_layer, RdmaGid **ret, size_t *ret_n) {
        _cleanup_(strv_freep) char **entries = NULL;
        _cleanup_(freep) RdmaGid *gids = NULL;
        _cleanup_(freep) char *dir = NULL;
        size_t n = 0, max;
        int r;

        if (asprintf(&dir, INFINIBAND_DIR "/%s/ports/%u/gids", device, port) < 0)
                return -ENOMEM;
        r = host_list_directory(h, dir, &entries);
        if (r < 0 && r != -ENOENT)
                return r;
        max = strv_length(entries);
        gids = calloc(max > 0 ? max : 1, sizeof(RdmaGid));
        if (!gids)
                return -ENOMEM;
        /* Sorted as strings ("10" before "2"): read by number, as ib_core numbers them. */
        for (uint32_t index = 0, seen = 0; seen < max && index < RDMA_GIDS_MAX; index++) {
                _cleanup_(freep) char *name = NULL;

                if (asprintf(&name, "%u", index) < 0)
                        return -ENOMEM;
                if (!strv_contains(entries, name))
                        continue;
                seen++;
                r = read_gid(h, device, port, index, link_layer, &gids[n]);
                if (r == -ENOMEM)
                        return r;
                if (r > 0)
                        n++; /* else empty, or not readable: not an entry anyone can use */
        }
        *ret = TAKE_PTR(gids);
        *ret_n = n;
        return 0;
}

static unsigned read_link_layer(const Host *h, const char *device, uint32_t port) {
        _cleanup_(freep) char *path = NULL, *text = NULL;
        unsigned l = RDMA_LINK_LAYER_UNSPECIFIED;

        if (asprintf(&path, INFINIBAND_DIR "/%s/ports/%u/link_layer", device, port) >= 0 &&
            host_read_line(h, path, &text) >= 0)
                (void) rdma_sysfs_parse_link_layer(text, &l);
        return l;
}

int rdma_device_read_sysfs(const Host *h, const char *pci, const char *ifname, RdmaDevice **ret) {
        _cleanup_(rdma_device_freep) RdmaDevice *d = NULL;
        _cleanup_(freep) char *path = NULL, *node_type = NULL;
        _cleanup_(strv_freep) char **devices = NULL;
        unsigned state, phys_state, type;
        int r;

        d = calloc(1, sizeof(RdmaDevice));
        if (!d)
                return -ENOMEM;
        /* rdma_sysfs_find_device() says -ENODEV for both: tell "no RDMA at all" from "none here". */
        r = host_list_directory(h, INFINIBAND_DIR, &devices);
        if (r == -ENOENT)
                return -ENOSYS;
        if (r < 0)
                return r;
        r = rdma_sysfs_find_device(h, pci, ifname, &d->name, &d->port);
        if (r < 0)
                return r;

        if (asprintf(&path, INFINIBAND_DIR "/%s/node_type", d->name) < 0)
                return -ENOMEM;
        r = host_read_line(h, path, &node_type);
        if (r == -ENOMEM)
                return r;
        if (r >= 0 && rdma_sysfs_parse_numbered(node_type, &type) >= 0)
                d->node_type = (int) type;
        r = rdma_sysfs_parent(h, d->name, &d->parent);
        if (r < 0)
                return r;

        r = read_port_numbered(h, d->name, d->port, "state", &state);
        if (r < 0)
                return r;
        r = read_port_numbered(h, d->name, d->port, "phys_state", &phys_state);
        if (r < 0)
                return r;
        d->state = (int) state;
        d->phys_state = phys_state;
        d->link_layer = read_link_layer(h, d->name, d->port);
        r = read_gid_table(h, d->name, d->port, d->link_layer, &d->gids, &d->n_gids);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(d);
        return 0;
}
