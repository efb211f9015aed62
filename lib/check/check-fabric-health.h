/* SPDX-License-Identifier: MIT */
/* The fabric's health from its counters, as rates between two verifies: fabric.<link>.loss
 * (retransmission and sequence errors against the packets moved), fabric.<link>.congestion (CNPs,
 * ECN marks and pause frames), link.<link>.flaps (the carrier going down, and the RDMA port's
 * link_downed, per hour) and nic.<link>.errors (CRC, frame and PHY symbol errors, and packets the host
 * missed). The counters are facts the snapshot read (SNAPSHOT_QOS_COUNTERS, each driver's own names
 * normalised by nic/rdma-sysfs.h and nic/netdev-errors.h); the check is pure: the previous verify's
 * samples go in, the new ones come out, and only the daemon keeps them, as for fabric.<node>.transport.
 *
 * qos.<link>.pause stays as it is: it answers another question (a pause storm: more pause frames than
 * traffic, on a link whose qos: asks for PFC) and its history is the daemon's already;
 * fabric.<link>.congestion counts the same pause frames as one congestion signal among others. */
#pragma once

#include "basic/time-util.h"
#include "check/check.h"
#include "profile/node-context.h"
#include "snapshot/snapshot-qos-host.h"

/* Thresholds (halod.yaml(5) and haloctl(1) say where each comes from). */
#define FABRIC_IDLE_PACKETS 1000U         /* fewer packets between two verifies: the fabric is idle */
#define FABRIC_LOSS_WARN_PPM 10U          /* 1e-5 of the packets: RoCE has no loss budget */
#define FABRIC_LOSS_FAIL_PPM 10000U       /* 1e-2: go-back-N RoCE moves mostly retransmissions */
#define FABRIC_LOSS_MIN_EVENTS 5U         /* fewer events are not a rate */
#define FABRIC_CONGESTION_WARN_PPM 10000U /* 1 % of the packets drew a congestion signal */
#define FABRIC_FLAPS_WARN_PER_HOUR 2U     /* a DAC does not go down by itself twice an hour */
#define FABRIC_ERRORS_WARN_PPB 100U       /* 1e-7 frames: IEEE 802.3's BER 1e-12 on 9000-byte frames */
#define FABRIC_ERRORS_FAIL_PPM 100U       /* 1e-4 frames */
#define FABRIC_ERRORS_FAIL_MIN 10U        /* and at least this many */
#define FABRIC_MISSED_WARN_PPM 1000U      /* 1e-3 of the packets dropped for want of ring space */
#define FABRIC_FLAP_EVENTS_MAX 16U

/* One port's counters at one verify. */
typedef struct FabricHealthSample {
        char *ifname;
        usec_t when; /* CLOCK_MONOTONIC */
        uint64_t packets;
        bool packets_known;
        uint64_t hw[_RDMA_HW_COUNTER_MAX];
        uint32_t hw_known;
        uint64_t pause;
        bool pause_known;
        NetdevCounters netdev;
        /* The verifies of the last hour that saw the link go down, and how often each. */
        usec_t flap_at[FABRIC_FLAP_EVENTS_MAX];
        uint64_t flap_n[FABRIC_FLAP_EVENTS_MAX];
        size_t n_flap_events;
} FabricHealthSample;

typedef struct FabricHealthHistory {
        FabricHealthSample *samples;
        size_t n;
} FabricHealthHistory;

void fabric_health_history_done(FabricHealthHistory *h);
const FabricHealthSample *fabric_health_history_find(const FabricHealthHistory *h, const char *ifname) _pure_;
/* A copy of h that owns its names. Returns 0 or -ENOMEM. */
int fabric_health_history_copy(const FabricHealthHistory *h, FabricHealthHistory *ret);

/* Judges the counters s read (SNAPSHOT_QOS_COUNTERS, read by the caller) against before (NULL or empty:
 * the first verify, "measuring") and fills after (empty on entry) with this verify's samples. Returns
 * 0 or -ENOMEM. */
int check_fabric_health(
        const NodeContext *c,
        const Snapshot *s,
        const FabricHealthHistory *before,
        FabricHealthHistory *after,
        CheckList *out);
