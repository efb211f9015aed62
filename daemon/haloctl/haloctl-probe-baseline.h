/* SPDX-License-Identifier: MIT */
/* haloctl probe's RDMA baseline: each RDMA measurement recorded in /var/lib/halod/rdma-baseline with the
 * node's state, and held against the baseline there (fabric.<NODE>.baseline's verdict). */
#pragma once

#include "basic/json-writer.h"
#include "check/check.h"
#include "peer/peer-rdma-probe.h"
#include "rdma/rdma-baseline.h"
#include "snapshot/snapshot.h"

typedef struct ProbeBaseline {
        Snapshot snapshot;      /* the node's state and the file as read */
        RdmaBaselineFile *file; /* the snapshot's, updated; NULL: not to be recorded (read_error says why) */
        const char *read_error; /* why the file cannot be recorded to (untrusted, corrupt); NULL when it can */
        char *write_error;      /* why the file could not be written; NULL when it was, or was not to be */
        bool changed;
} ProbeBaseline;

typedef struct ProbeBaselineRow {
        int recorded;      /* an RdmaBaselineRecord; -1: not recorded */
        char *changes;     /* with RDMA_BASELINE_RETAKEN: how the node changed since the old baseline */
        CheckList verdict; /* fabric.<node>.baseline after this measurement */
} ProbeBaselineRow;

/* Reads the node's state and the baseline file for c. Returns 0 or -ENOMEM. */
int probe_baseline_open(const NodeContext *c, ProbeBaseline *ret);
void probe_baseline_done(ProbeBaseline *b);
/* Records one RDMA measurement to node over link (rebaseline: as the new baseline) and judges it. */
int probe_baseline_add(
        ProbeBaseline *b,
        const char *node,
        const char *link,
        const char *device,
        const RdmaProbeResult *res,
        bool rebaseline,
        ProbeBaselineRow *ret);
void probe_baseline_row_done(ProbeBaselineRow *row);
/* Writes the file when something was recorded; a failure is kept in write_error, for the rows. */
int probe_baseline_save(ProbeBaseline *b);

void probe_baseline_print_row(const ProbeBaseline *b, const ProbeBaselineRow *row);
void probe_baseline_json_row(JsonWriter *w, const ProbeBaseline *b, const ProbeBaselineRow *row);
