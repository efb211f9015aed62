/* SPDX-License-Identifier: MIT */
/* The RDMA probe's baseline (/var/lib/halod/rdma-baseline): per peer, the measurement haloctl probe
 * took first on the path (the baseline) and its latest, each with the node's state when it was taken
 * (NIC firmware, PCIe link, MTU, port speed). The text format (halod(8), FILES), its parser, its writer
 * and the bookkeeping of a new measurement, all pure; rdma-baseline-file.h reads and writes the file. */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "basic/macro.h"

#define RDMA_BASELINE_DIR "/var/lib/halod"
#define RDMA_BASELINE_PATH RDMA_BASELINE_DIR "/rdma-baseline"
/* A node of a cluster of a few dozen peers writes about 1 KiB per peer. */
#define RDMA_BASELINE_FILE_MAX (256U * 1024U)
#define RDMA_BASELINE_FORMAT 1U
/* As the profile's names (node names are at most 63 characters). */
#define RDMA_BASELINE_NAME_MAX 64U
/* ETHTOOL_GDRVINFO's fw_version is 32 bytes; devlink's are shorter than this. */
#define RDMA_BASELINE_FIRMWARE_MAX 64U

/* What the node was when a measurement was taken: a measurement is compared only with one taken in
 * the same state. 0 or "": not known, and then not compared. */
typedef struct RdmaNodeState {
        char firmware[RDMA_BASELINE_FIRMWARE_MAX]; /* the NIC's running firmware (ethtool -i) */
        unsigned pcie_speed_mts;                   /* the PCIe link the NIC trained: MT/s per lane */
        unsigned pcie_width;                       /* and lanes */
        unsigned mtu;                              /* the link's netdev MTU */
        unsigned port_mbit;                        /* the Ethernet speed the port negotiated */
} RdmaNodeState;

/* One run of haloctl probe's RDMA part to a peer. */
typedef struct RdmaMeasurement {
        uint64_t taken_usec; /* CLOCK_REALTIME */
        char link[RDMA_BASELINE_NAME_MAX];
        char device[RDMA_BASELINE_NAME_MAX]; /* this node's RDMA device */
        unsigned path_mtu;                   /* the queue pairs' (RDMA) path MTU */
        unsigned pings;
        uint64_t rtt_median_nsec;
        uint64_t rtt_p99_nsec;
        uint64_t write_bytes; /* the RDMA WRITE bandwidth run */
        uint64_t write_nsec;
        RdmaNodeState state;
} RdmaMeasurement;

typedef struct RdmaBaselinePeer {
        char node[RDMA_BASELINE_NAME_MAX];
        RdmaMeasurement baseline;
        RdmaMeasurement last; /* the latest: the baseline itself right after it was taken */
} RdmaBaselinePeer;

typedef struct RdmaBaselineFile {
        RdmaBaselinePeer *peers;
        size_t n_peers;
} RdmaBaselineFile;

void rdma_baseline_file_done(RdmaBaselineFile *f);
RdmaBaselineFile *rdma_baseline_file_free(RdmaBaselineFile *f);
DEFINE_TRIVIAL_CLEANUP_FUNC(RdmaBaselineFile *, rdma_baseline_file_free);

/* Parses the file's text (NUL-terminated). Returns 0; -EBADMSG with ret_error naming the line and what
 * is wrong with it; -EPROTONOSUPPORT for a format this halod does not know; -ENOMEM. ret_error may be
 * NULL. */
int rdma_baseline_parse(const char *text, RdmaBaselineFile *ret, char **ret_error);
/* The file's text for f. Returns 0 or -ENOMEM. */
int rdma_baseline_format(const RdmaBaselineFile *f, char **ret);

const RdmaBaselinePeer *rdma_baseline_find(const RdmaBaselineFile *f, const char *node) _pure_;

/* The write throughput of m in Gbit/s; 0 when it moved nothing. */
double rdma_measurement_gbit(const RdmaMeasurement *m) _pure_;
/* Whether a and b differ in a field both know; when they do, *ret (may be NULL) says how, in the
 * words of the person at the terminal ("firmware 4.80 0x80015b7c → 4.91 0x8001a2ff"). Returns 1
 * differ, 0 same, -ENOMEM. */
int rdma_node_state_differs(const RdmaNodeState *before, const RdmaNodeState *now, char **ret);

typedef enum RdmaBaselineRecord {
        RDMA_BASELINE_NEW,      /* none for the peer: m is the baseline */
        RDMA_BASELINE_RETAKEN,  /* the node's state differs from the baseline's: m is the new baseline */
        RDMA_BASELINE_REPLACED, /* asked to (haloctl probe --rebaseline): m is the new baseline */
        RDMA_BASELINE_KEPT,     /* m is the latest, held against the baseline */
        _RDMA_BASELINE_RECORD_MAX,
        _RDMA_BASELINE_RECORD_INVALID = -EINVAL,
} RdmaBaselineRecord;

const char *rdma_baseline_record_to_string(RdmaBaselineRecord r) _pure_;

/* Records m, measured to node, in f: as its latest, and as its baseline when there is none, when the
 * state differs from the baseline's, or when rebaseline. Returns what it did, or -ENOMEM, -EINVAL
 * (a node name that does not fit). */
int rdma_baseline_record(RdmaBaselineFile *f, const char *node, const RdmaMeasurement *m, bool rebaseline);
