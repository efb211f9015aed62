/* SPDX-License-Identifier: MIT */
/* An RDMA device and port from sysfs below the host root, its hw_counters, and its uverbs device. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "basic/strv.h"
#include "nic/host-attr.h"
#include "rdma/rdma-hw-counters.h"
#include "rdma/rdma-sysfs.h"

#define INFINIBAND_DIR "/sys/class/infiniband"

/* Whether an entry of the port's GID table belongs to ifname (gid_attrs/ndevs/I: ib_core makes one per
 * slot, and an empty slot cannot be read). */
static int port_has_netdev(const Host *h, const char *ports_dir, const char *port, const char *ifname) {
        _cleanup_(strv_freep) char **entries = NULL;
        _cleanup_(freep) char *dir = NULL;
        int r;

        if (asprintf(&dir, "%s/%s/gid_attrs/ndevs", ports_dir, port) < 0)
                return -ENOMEM;
        r = host_list_directory(h, dir, &entries);
        if (r < 0)
                return r == -ENOMEM ? r : 0;
        STRV_FOREACH(e, entries) {
                _cleanup_(freep) char *path = NULL, *ndev = NULL;

                if (asprintf(&path, "%s/%s", dir, *e) < 0)
                        return -ENOMEM;
                if (host_read_line(h, path, &ndev) == -ENOMEM)
                        return -ENOMEM;
                if (ndev && streq(ndev, ifname))
                        return 1;
        }
        return 0;
}

static int port_of_netdev(const Host *h, const char *device, const char *ifname, unsigned *ret) {
        _cleanup_(strv_freep) char **ports = NULL;
        _cleanup_(freep) char *dir = NULL, *parent = NULL;
        int r;

        if (asprintf(&dir, INFINIBAND_DIR "/%s/ports", device) < 0)
                return -ENOMEM;
        r = host_list_directory(h, dir, &ports);
        if (r < 0)
                return r == -ENOMEM ? r : 0;
        STRV_FOREACH(p, ports) {
                char *end;
                unsigned long n;

                errno = 0;
                n = strtoul(*p, &end, 10);
                if (errno != 0 || *end != '\0' || n == 0 || n > UINT32_MAX)
                        continue;
                r = port_has_netdev(h, dir, *p, ifname);
                if (r < 0)
                        return r;
                if (r > 0) {
                        *ret = (unsigned) n;
                        return 1;
                }
        }
        /* rxe names its netdev in an attribute of its own (rxe_verbs.c, parent_show()); it has one port. */
        dir = mfree(dir);
        if (asprintf(&dir, INFINIBAND_DIR "/%s/parent", device) < 0)
                return -ENOMEM;
        if (host_read_line(h, dir, &parent) == -ENOMEM)
                return -ENOMEM;
        if (parent && streq(parent, ifname)) {
                *ret = 1;
                return 1;
        }
        return 0;
}

int rdma_sysfs_find_device(
        const Host *h, const char *pci, const char *ifname, char **ret_device, unsigned *ret_port) {
        _cleanup_(strv_freep) char **devices = NULL;
        int r;

        r = host_list_directory(h, INFINIBAND_DIR, &devices);
        if (r == -ENOENT)
                return -ENODEV;
        if (r < 0)
                return r;
        STRV_FOREACH(d, devices) {
                unsigned port;

                if (!ifname)
                        break;
                r = port_of_netdev(h, *d, ifname, &port);
                if (r < 0)
                        return r;
                if (r > 0) {
                        char *copy = strdup(*d);

                        if (!copy)
                                return -ENOMEM;
                        *ret_device = copy;
                        *ret_port = port;
                        return 0;
                }
        }
        /* irdma sits below ice's auxiliary device (ice.roce.N), not on the PCI function itself. */
        r = rdma_sysfs_device_of_pci(h, pci, ret_device);
        if (r == -ENOSYS)
                return -ENODEV;
        if (r < 0)
                return r;
        *ret_port = 1;
        return 0;
}

int rdma_sysfs_read_port_counter(
        const Host *h, const char *device, unsigned port, const char *name, uint64_t *ret) {
        _cleanup_(freep) char *path = NULL;

        if (isempty(device) || strchr(device, '/') || isempty(name) || strchr(name, '/') || port == 0)
                return -EINVAL;
        if (asprintf(&path, INFINIBAND_DIR "/%s/ports/%u/counters/%s", device, port, name) < 0)
                return -ENOMEM;
        return host_attr_read_u64(h, path, ret);
}

int rdma_sysfs_read_hw_counter(const Host *h, const char *device, unsigned port, const char *name, uint64_t *ret) {
        _cleanup_(freep) char *path = NULL;

        if (isempty(device) || strchr(device, '/') || isempty(name) || strchr(name, '/') || port == 0)
                return -EINVAL;
        if (asprintf(&path, INFINIBAND_DIR "/%s/ports/%u/hw_counters/%s", device, port, name) < 0)
                return -ENOMEM;
        return host_attr_read_u64(h, path, ret);
}

static const char *const rdma_hw_counter_table[_RDMA_HW_COUNTER_MAX] = {
        [RDMA_HW_NP_ECN_MARKED] = "np_ecn_marked_roce_packets",
        [RDMA_HW_NP_CNP_SENT] = "np_cnp_sent",
        [RDMA_HW_RP_CNP_HANDLED] = "rp_cnp_handled",
        [RDMA_HW_RP_CNP_IGNORED] = "rp_cnp_ignored",
        [RDMA_HW_OUT_OF_SEQUENCE] = "out_of_sequence",
        [RDMA_HW_PACKET_SEQ_ERR] = "packet_seq_err",
        [RDMA_HW_IMPLIED_NAK_SEQ_ERR] = "implied_nak_seq_err",
        [RDMA_HW_LOCAL_ACK_TIMEOUT_ERR] = "local_ack_timeout_err",
        [RDMA_HW_DUPLICATE_REQUEST] = "duplicate_request",
        [RDMA_HW_RNR_NAK_RETRY_ERR] = "rnr_nak_retry_err",
        [RDMA_HW_RETRANSMITTED] = "retransmitted",
        [RDMA_HW_LINK_DOWNED] = "link_downed",
};

DEFINE_STRING_TABLE_LOOKUP_TO_STRING(rdma_hw_counter, RdmaHwCounter);

static const char *const rdma_hw_counter_label_table[_RDMA_HW_COUNTER_MAX] = {
        [RDMA_HW_NP_ECN_MARKED] = "ECN marked",
        [RDMA_HW_NP_CNP_SENT] = "CNP sent",
        [RDMA_HW_RP_CNP_HANDLED] = "CNP handled",
        [RDMA_HW_RP_CNP_IGNORED] = "CNP ignored",
        [RDMA_HW_OUT_OF_SEQUENCE] = "out of sequence",
        [RDMA_HW_PACKET_SEQ_ERR] = "sequence error NAKs",
        [RDMA_HW_IMPLIED_NAK_SEQ_ERR] = "implied sequence errors",
        [RDMA_HW_LOCAL_ACK_TIMEOUT_ERR] = "ack timeouts",
        [RDMA_HW_DUPLICATE_REQUEST] = "duplicate requests",
        [RDMA_HW_RNR_NAK_RETRY_ERR] = "RNR retries exceeded",
        [RDMA_HW_RETRANSMITTED] = "retransmitted",
        [RDMA_HW_LINK_DOWNED] = "link downed",
};

const char *rdma_hw_counter_label(RdmaHwCounter c) {
        if (c < 0 || c >= _RDMA_HW_COUNTER_MAX)
                return NULL;
        return rdma_hw_counter_label_table[c];
}

static const char *const rdma_counter_driver_table[_RDMA_COUNTER_DRIVER_MAX] = {
        [RDMA_COUNTER_DRIVER_MLX5_IB] = "mlx5_ib",
        [RDMA_COUNTER_DRIVER_IRDMA] = "irdma",
        [RDMA_COUNTER_DRIVER_RXE] = "rxe",
};

DEFINE_STRING_TABLE_LOOKUP_TO_STRING(rdma_counter_driver, RdmaCounterDriver);

/* Each driver's file names. mlx5_ib: counters.c (q counters, cong_cnts, roce_accl_cnts). irdma: its
 * irdma_hw_stat_names; on an E810 (GEN2) the congestion notification counters (cnpHandled,
 * cnpIgnored, cnpSent, RxECNMrkd); the retransmission ones ("RTO", "Nak Sequence Error", ...) come
 * with GEN3 hardware only; "RNR received" counts NAKs, not exhausted retries. rxe: rxe_counter_name
 * in rxe_hw_counters.c: out_of_seq_request (a request past the expected PSN), rcvd_seq_err (a
 * sequence error NAK the requester got), completer_retry_err (the requester sent again: an ACK timed
 * out or a NAK asked), retry_rnr_exceeded_err, link_downed; rxe counts no congestion notification. */
static const char *const rdma_hw_counter_names_table[_RDMA_HW_COUNTER_MAX][_RDMA_COUNTER_DRIVER_MAX] = {
        [RDMA_HW_NP_ECN_MARKED] = { "np_ecn_marked_roce_packets", "RxECNMrkd", NULL },
        [RDMA_HW_NP_CNP_SENT] = { "np_cnp_sent", "cnpSent", NULL },
        [RDMA_HW_RP_CNP_HANDLED] = { "rp_cnp_handled", "cnpHandled", NULL },
        [RDMA_HW_RP_CNP_IGNORED] = { "rp_cnp_ignored", "cnpIgnored", NULL },
        [RDMA_HW_OUT_OF_SEQUENCE] = { "out_of_sequence", "Rcvd Out of order packets", "out_of_seq_request" },
        [RDMA_HW_PACKET_SEQ_ERR] = { "packet_seq_err", "Nak Sequence Error", "rcvd_seq_err" },
        [RDMA_HW_IMPLIED_NAK_SEQ_ERR] = { "implied_nak_seq_err", "Nak Sequence Error Implied", NULL },
        [RDMA_HW_LOCAL_ACK_TIMEOUT_ERR] = { "local_ack_timeout_err", "RTO", NULL },
        [RDMA_HW_DUPLICATE_REQUEST] = { "duplicate_request", NULL, "duplicate_request" },
        [RDMA_HW_RNR_NAK_RETRY_ERR] = { "rnr_nak_retry_err", NULL, "retry_rnr_exceeded_err" },
        [RDMA_HW_RETRANSMITTED] = { "roce_adp_retrans", NULL, "completer_retry_err" },
        [RDMA_HW_LINK_DOWNED] = { NULL, NULL, "link_downed" },
};

/* A file each driver makes whatever its generation or capabilities: how the driver is told. */
static const char *const rdma_counter_driver_marker[_RDMA_COUNTER_DRIVER_MAX] = {
        [RDMA_COUNTER_DRIVER_MLX5_IB] = "out_of_sequence",
        [RDMA_COUNTER_DRIVER_IRDMA] = "ip4InOctets",
        [RDMA_COUNTER_DRIVER_RXE] = "sent_pkts",
};

const char *rdma_hw_counter_name(RdmaHwCounter c, RdmaCounterDriver d) {
        if (c < 0 || c >= _RDMA_HW_COUNTER_MAX || d < 0 || d >= _RDMA_COUNTER_DRIVER_MAX)
                return NULL;
        return rdma_hw_counter_names_table[c][d];
}

int rdma_sysfs_read_hw_family(const Host *h, const char *device, unsigned port, RdmaHwCounter c, uint64_t *ret) {
        if (c < 0 || c >= _RDMA_HW_COUNTER_MAX)
                return -EINVAL;
        for (RdmaCounterDriver d = 0; d < _RDMA_COUNTER_DRIVER_MAX; d++) {
                const char *name = rdma_hw_counter_name(c, d);
                int r;

                if (!name)
                        continue;
                r = rdma_sysfs_read_hw_counter(h, device, port, name, ret);
                if (r != -ENOENT)
                        return r;
        }
        return -ENOENT;
}

static int rdma_sysfs_hw_driver(const Host *h, const char *device, unsigned port, RdmaCounterDriver *ret) {
        for (RdmaCounterDriver d = 0; d < _RDMA_COUNTER_DRIVER_MAX; d++) {
                uint64_t v;
                int r = rdma_sysfs_read_hw_counter(h, device, port, rdma_counter_driver_marker[d], &v);

                if (r == -ENOMEM)
                        return r;
                if (r >= 0) {
                        *ret = d;
                        return 0;
                }
        }
        return -ENOENT;
}

int rdma_sysfs_read_hw_counters(
        const Host *h,
        const char *device,
        unsigned port,
        RdmaCounterDriver *ret_driver,
        uint64_t values[static _RDMA_HW_COUNTER_MAX],
        uint32_t *ret_known) {
        RdmaCounterDriver d;
        uint32_t known = 0;
        int r;

        r = rdma_sysfs_hw_driver(h, device, port, &d);
        if (r < 0)
                return r;
        for (RdmaHwCounter c = 0; c < _RDMA_HW_COUNTER_MAX; c++) {
                const char *name = rdma_hw_counter_name(c, d);

                if (name)
                        r = rdma_sysfs_read_hw_counter(h, device, port, name, &values[c]);
                else if (c == RDMA_HW_LINK_DOWNED && d == RDMA_COUNTER_DRIVER_MLX5_IB)
                        r = rdma_sysfs_read_port_counter(h, device, port, "link_downed", &values[c]);
                else
                        continue;
                if (r == -ENOMEM)
                        return r;
                if (r >= 0)
                        known |= 1U << c;
        }
        *ret_driver = d;
        *ret_known = known;
        return 0;
}

/* Whether pci is one of the components of the resolved path p. */
static bool path_has_component(const char *p, const char *pci) {
        size_t l = strlen(pci);

        for (const char *s = p; (s = strstr(s, pci)); s += l)
                if (s > p && s[-1] == '/' && (s[l] == '/' || s[l] == '\0'))
                        return true;
        return false;
}

int rdma_sysfs_device_of_pci(const Host *h, const char *pci, char **ret) {
        _cleanup_(strv_freep) char **devices = NULL;
        int r;

        if (isempty(pci))
                return -ENODEV;
        r = host_list_directory(h, "/sys/class/infiniband", &devices);
        if (r == -ENOENT)
                return -ENOSYS;
        if (r < 0)
                return r;

        STRV_FOREACH(d, devices) {
                _cleanup_(freep) char *link = NULL, *path = NULL;
                char resolved[PATH_MAX];

                if (asprintf(&link, "/sys/class/infiniband/%s/device", *d) < 0)
                        return -ENOMEM;
                r = host_path(h, link, &path);
                if (r < 0)
                        return r;
                /* Resolved in full: below a fixture root the relative links stay inside the tree. A link
                 * that does not resolve (a tree whose class directory is not the kernel's link into
                 * /sys/devices) still names its device. */
                if (!realpath(path, resolved)) {
                        _cleanup_(freep) char *parent = NULL;

                        r = host_readlink_basename(h, link, &parent);
                        if (r == -ENOMEM)
                                return r;
                        if (r < 0 || !streq(parent, pci))
                                continue;
                        *ret = strdup(*d);
                        return *ret ? 0 : -ENOMEM;
                }
                if (path_has_component(resolved, pci)) {
                        *ret = strdup(*d);
                        return *ret ? 0 : -ENOMEM;
                }
        }
        return -ENODEV;
}

int rdma_sysfs_uverbs_of_device(const Host *h, const char *ibdev, char **ret) {
        _cleanup_(strv_freep) char **entries = NULL;
        int r;

        r = host_list_directory(h, "/sys/class/infiniband_verbs", &entries);
        if (r == -ENOENT)
                return -ENOSYS;
        if (r < 0)
                return r;

        STRV_FOREACH(e, entries) {
                _cleanup_(freep) char *attribute = NULL, *name = NULL;

                /* Beside the uverbsN devices the class holds abi_version. */
                if (!startswith(*e, "uverbs"))
                        continue;
                if (asprintf(&attribute, "/sys/class/infiniband_verbs/%s/ibdev", *e) < 0)
                        return -ENOMEM;
                r = host_read_line(h, attribute, &name);
                if (r == -ENOMEM)
                        return r;
                if (r >= 0 && streq(name, ibdev)) {
                        *ret = strdup(*e);
                        return *ret ? 0 : -ENOMEM;
                }
        }
        return -ENODEV;
}

int rdma_sysfs_parent(const Host *h, const char *ibdev, char **ret) {
        _cleanup_(freep) char *link = NULL, *parent = NULL;
        int r;

        if (asprintf(&link, INFINIBAND_DIR "/%s/device", ibdev) < 0)
                return -ENOMEM;
        r = host_readlink_basename(h, link, &parent);
        if (r == -ENOMEM)
                return r;
        *ret = r >= 0 ? TAKE_PTR(parent) : NULL;
        return 0;
}
