/* SPDX-License-Identifier: MIT */
/* rdma.gid's decision: whether the port's GID table has an entry of the profile's type for the link's
 * address, and what it has instead. */
#include <arpa/inet.h>
#include <stdio.h>

#include "basic/strv.h"
#include "check/check-rdma.h"

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

/* No entry of type want for the address: what is there instead, the same address with another type
 * or nothing. */
static int check_rdma_gid_missing(
        const RdmaDevice *d,
        RdmaGidType want,
        struct in_addr address,
        const char *ip,
        const char *ifname,
        const char *expected,
        PortCheck *ret) {
        struct in6_addr mapped = rdma_ipv4_mapped(address);
        _cleanup_(freep) char *table = NULL;
        int r;

        r = describe_gids(d, &table);
        if (r < 0)
                return r;
        /* The kernel adds one entry per address for each GID type the port's driver declares
         * (roce_gid_mgmt.c: the port's core capability flags), and nothing else changes that set:
         * rdma_cm's default_roce_mode only picks among existing entries for rdma_cm's own
         * connections. So a missing type is the device's, not a setting's. */
        for (size_t i = 0; i < d->n_gids; i++) {
                if (memcmp(&d->gids[i].gid, &mapped, sizeof(mapped)) != 0)
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
                                d->name,
                                d->gids[i].index,
                                ip,
                                d->name,
                                d->port);
                return port_check_set(
                        ret,
                        CHECK_FAIL,
                        expected,
                        table,
                        "%s has a %s GID (index %u) for %s but no %s one: the kernel lists an entry of each "
                        "type the port supports, and %s port %u does not do %s (irdma and rxe register RoCE v2 "
                        "only); set rdma.gid: %s, the type it has",
                        d->name,
                        gid_type_name(d->gids[i].type),
                        d->gids[i].index,
                        ip,
                        gid_type_name(want),
                        d->name,
                        d->port,
                        gid_type_name(want),
                        gid_type_key(d->gids[i].type));
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
                d->name,
                d->port,
                table,
                ip,
                strna(ifname));
}

int check_rdma_gid_evaluate(
        const RdmaDevice *d,
        RdmaGidType want,
        struct in_addr address,
        const char *ifname,
        int found,
        const RdmaGid *g,
        PortCheck *ret) {
        char ip[INET_ADDRSTRLEN];
        _cleanup_(freep) char *expected = NULL, *actual = NULL;

        if (!inet_ntop(AF_INET, &address, ip, sizeof(ip)))
                return -errno;
        if (asprintf(&expected, "%s ::ffff:%s", gid_type_name(want), ip) < 0)
                return -ENOMEM;

        if (found >= 0) {
                if (asprintf(&actual, "%u", g->index) < 0)
                        return -ENOMEM;
                return port_check_set(
                        ret,
                        CHECK_PASS,
                        expected,
                        actual,
                        "%s GID index %u for %s",
                        gid_type_name(want),
                        g->index,
                        ip);
        }
        if (found == -EAGAIN)
                return port_check_set(
                        ret,
                        CHECK_WARN,
                        expected,
                        NULL,
                        "the GID table of %s port %u kept changing while it was read (addresses coming "
                        "and going?): run the check again",
                        d->name,
                        d->port);
        if (found != -ENOENT)
                return port_check_set(
                        ret,
                        CHECK_FAIL,
                        expected,
                        NULL,
                        "cannot read the GID table of %s port %u: %s",
                        d->name,
                        d->port,
                        strerror(-found));
        return check_rdma_gid_missing(d, want, address, ip, ifname, expected, ret);
}
