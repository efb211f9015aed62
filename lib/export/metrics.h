/* SPDX-License-Identifier: MIT */
/* halod's metrics in node_exporter's textfile-collector format (Prometheus text exposition 0.0.4):
 * the checks, the node's health, the peer rows and the fabric NIC's facts. halod(8), METRICS, lists
 * every metric; conf/prometheus/halod-alerts.yml alerts on them. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "check/check-fabric-transport.h"
#include "check/check-peer.h"
#include "check/check.h"
#include "nic/netdev-errors.h"
#include "nic/pause-counters.h"
#include "peer/health.h"
#include "peer/peer-wire.h"
#include "profile/node-context.h"
#include "rdma/rdma-hw-counters.h"
#include "snapshot/snapshot.h"

/* What halod knows about one fabric NIC port, beyond the checks' summaries: borrowed from the NIC
 * facts of a snapshot (the strings are its), which must outlive it. */
typedef struct MetricsNic {
        const char *link;            /* the logical link, "rdma0" */
        const char *ifname;          /* "enp194s0np0"; NULL when the device has no netdev */
        const char *pci;             /* "0000:c2:00.0"; NULL when no PCI device was found */
        unsigned pcie_width;         /* negotiated lanes; 0 when unknown */
        unsigned pcie_max_width;     /* what the device can do; 0 when unknown */
        unsigned pcie_speed_mts;     /* negotiated transfer rate per lane in MT/s; 0 when unknown */
        unsigned pcie_max_speed_mts; /* 0 when unknown */
        const char *driver;          /* "ice"; NULL when unknown */
        const char *driver_version;  /* "6.18.4" (ETHTOOL_GDRVINFO); NULL when not reported */
        const char *firmware;        /* the whole fw_version string; NULL when not reported */
        const char *version;         /* the version nic.firmware compares: devlink's running one, or
                                      * NULL for the one parsed from firmware (nic_facts_firmware_source()) */
        const char *source;          /* where version comes from: "devlink", "ethtool"; NULL: unknown */
        const char *board_id;        /* devlink's board.id (ice's PBA) or fw.psid (mlx5's PSID) */
        const char *ddp;             /* ice's DDP package, "ICE OS Default Package 1.3.36.0", or
                                      * "safe-mode"; NULL when not ice or not known */
        bool stored_known;           /* devlink reported the firmware, so activation_pending is known */
        bool activation_pending;     /* devlink's stored firmware differs from the running one */
} MetricsNic;

/* Frees the array only: the strings are the snapshot's. */
void metrics_nics_free(MetricsNic *nics, size_t n);

/* One MetricsNic per link of the snapshot's context (its node, or the profile without a node), in
 * profile order, from the NIC facts of s (read into it unless it has them): the PCIe link from libpci
 * below the host root, driver and firmware from devlink and ETHTOOL_GDRVINFO on the running system
 * only (a --root tree has neither to ask), ice's DDP from devlink or the log. A link whose NIC is
 * missing still gets an entry, with what is unknown left NULL/0. The entries point into s. Returns 0 or
 * -ENOMEM (lib/export/metrics-nic.c). */
int metrics_nics_gather(Snapshot *s, MetricsNic **ret, size_t *ret_n);

/* The counters of one fabric port that show whether its lossless class works (metrics-qos.c). */
typedef struct MetricsQos {
        char *link;          /* the logical link */
        char *ifname;        /* NULL when the link has no netdev */
        PauseCounters pause; /* known 0: the driver counts no pause frames, or they were not read */
        char *rdma_device;   /* the netdev's RDMA device; NULL when none */
        unsigned rdma_port;
        uint64_t hw[_RDMA_HW_COUNTER_MAX];
        uint32_t hw_known; /* bit c: the device has hw_counters/<c> */
        bool hw_driver_known;
        RdmaCounterDriver hw_driver; /* whose names those are, when hw_driver_known */
        NetdevCounters netdev;       /* known 0: not read */
        uint64_t packets;            /* rx + tx packets of the netdev */
        bool packets_known;
} MetricsQos;

void metrics_qos_free(MetricsQos *q, size_t n);
/* One MetricsQos per port of the snapshot s of c (read into it unless it has them; NULL: one of its
 * own): pause frames through ETHTOOL_GSTATS on the running system only, hw_counters below the host
 * root. Returns 0 or -ENOMEM. */
int metrics_qos_gather(const NodeContext *c, Snapshot *s, MetricsQos **ret, size_t *ret_n);
/* halod_qos_pause_frames_total and the halod_rdma_*_total families (metrics_render() calls it). */
void metrics_render_qos(FILE *f, const MetricsQos *q, size_t n);
/* The same counters under the one vocabulary of the fabric health checks, beside the raw ones:
 * halod_fabric_events_total{event=,source=,driver=}, halod_fabric_packets_total and
 * halod_fabric_counted (metrics-fabric.c; metrics_render_qos() calls it). */
void metrics_render_fabric(FILE *f, const MetricsQos *q, size_t n);

/* The GID index of one port's address (metrics-rdma.c). */
typedef struct MetricsGid {
        char *link;   /* the logical link */
        char *device; /* the RDMA device, "irdma0" */
        uint32_t port;
        uint32_t index; /* what NCCL_IB_GID_INDEX must be */
} MetricsGid;

void metrics_gids_free(MetricsGid *g, size_t n);
/* One MetricsGid per port of the snapshot s of c (read into it unless it has them; NULL: one of its
 * own) whose RDMA device has a GID of the profile's rdma.gid type for the link's address, from
 * libibverbs; a port without one gets none. Returns 0 or -ENOMEM. */
int metrics_gids_gather(const NodeContext *c, Snapshot *s, MetricsGid **ret, size_t *ret_n);
/* halod_rdma_gid_index (metrics_render() calls it). */
void metrics_render_gids(FILE *f, const MetricsGid *g, size_t n);

/* The halod_fabric_* families (metrics-transport.c; metrics_render() calls it): TCP bytes per peer,
 * the fallback per peer, the RDMA devices' bytes or packets, the QPs per process. t may be NULL. */
void metrics_render_transport(FILE *f, const FabricTransportState *t);

typedef struct MetricsInput {
        const char *cluster; /* NULL: no halod_node_info */
        const char *node;
        const char *profile_digest; /* hex SHA-256 of the profile (profile/profile-digest.h); NULL: unknown */
        Health health;              /* the daemon's Health property */
        const CheckList *checks;
        const PeerStatusList *peers; /* NULL when health.peers is off */
        const MetricsNic *nics;
        size_t n_nics;
        const MetricsQos *qos; /* pause and RDMA counters per port; NULL: none */
        size_t n_qos;
        const MetricsGid *gids; /* NULL: none */
        size_t n_gids;
        uint64_t last_verify_usec; /* CLOCK_REALTIME µs of the verify the checks come from; 0: none */
        const FabricTransportState *transport; /* the fabric's use (a copy of the daemon's); NULL: none */
} MetricsInput;

/* The exposition text, each family with its HELP and TYPE lines, families in a fixed order and
 * samples in input order. Returns 0 or -ENOMEM; -EINVAL for a health out of range. */
int metrics_render(const MetricsInput *in, char **ret);

/* Renders and writes path atomically (a temporary file beside it, then rename(2)), mode 0644.
 * node_exporter reads only "*.prom" files, so it never sees the temporary one. */
int metrics_write_textfile(const MetricsInput *in, const char *path);

/* A label value escaped for the text format: '\\' → "\\\\", '"' → "\\\"", newline → "\\n"; bytes that
 * are not valid UTF-8, and other control characters, become '?', since Prometheus rejects a file
 * whose label values are not UTF-8. Appends to f. */
void metrics_write_label_value(FILE *f, const char *value);
