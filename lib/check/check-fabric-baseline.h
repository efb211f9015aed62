/* SPDX-License-Identifier: MIT */
/* fabric.<NODE>.baseline: haloctl probe's latest RDMA measurement to the peer against the baseline it
 * recorded (rdma/rdma-baseline.h) and against what the NIC's PCIe link and port speed allow. A baseline
 * taken in another state of the node (firmware, PCIe link, MTU, port speed) is not compared: it is
 * stale, and the next haloctl probe re-takes it. The verdict is pure: the snapshot read the file and
 * the node's state. */
#pragma once

#include "check/check-history.h"
#include "check/check.h"
#include "profile/node-context.h"
#include "rdma/rdma-baseline.h"
#include "snapshot/snapshot.h"

/* The latest RDMA WRITE throughput warns below this share of the baseline's: a run repeats within a
 * few percent on an idle path,
 * while what degrades a RoCE path (retransmission on a lossy cable, pause frames, a PCIe link that
 * trained down, a CPU held in a deep power state) costs a quarter or more. */
#define FABRIC_BASELINE_WRITE_MIN_PERCENT 75U
/* The latest median round trip warns above this share of the baseline's: the median of up to 1000 RC
 * round trips moves by a few hundred nanoseconds between runs (5 µs on the E810 over a DAC), and
 * half as much again is a retransmission, an interrupt moderation change or an added hop. */
#define FABRIC_BASELINE_RTT_MAX_PERCENT 150U
/* The latest RDMA WRITE throughput warns below this share of the ceiling, the smaller of the PCIe
 * link's rate after its line encoding and the port's speed: PCIe's packet headers take 10-20% of a
 * link (the guide's E810 moved 50.6 Gbit/s through a 63 Gbit/s x4 Gen4 slot, 80%), so 60% leaves the
 * protocol's own cost aside and still catches a path that moves half of what it could. */
#define FABRIC_CEILING_MIN_PERCENT 60U

/* What the verdict judges for one peer. */
typedef struct FabricBaselineFacts {
        const char *node;             /* the peer */
        int file_error;               /* reading the baseline file: 0, -ENOENT (none yet), or why not */
        const char *file_message;     /* with file_error other than -ENOENT: why, for the user */
        const RdmaBaselinePeer *peer; /* its records; NULL: none for the peer */
        RdmaNodeState now;            /* the node's state now on the peer's link (unknown fields 0, "") */
} FabricBaselineFacts;

/* The smaller of the PCIe link's rate (pcie_link_gbit()) and the port's speed in Gbit/s, 0 when neither
 * is known; *ret (may be NULL) says which: "PCIe 16 GT/s x4", "the port's 25000 Mbit/s". Returns the
 * ceiling, or a negative number for -ENOMEM. */
double rdma_node_state_ceiling(const RdmaNodeState *s, char **ret);

/* Adds fabric.<node>.baseline for f. Returns 0 or -ENOMEM. */
int check_fabric_baseline_evaluate(const FabricBaselineFacts *f, CheckList *out);

/* The group: fabric.<NODE>.baseline for each node this one shares a link with or reaches by a route.
 * s holds SNAPSHOT_RDMA_BASELINE, SNAPSHOT_NICS and SNAPSHOT_MTU when the registry's parts were read. */
int check_fabric_baseline(
        const NodeContext *c, const Snapshot *s, const CheckHistory *before, CheckHistory *after, CheckList *out);
