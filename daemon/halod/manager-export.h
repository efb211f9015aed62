/* SPDX-License-Identifier: MIT */
/* fabric.env, the CDI spec and the Prometheus textfile after each verify, written by an export job off
 * the loop from the verify's snapshot (manager-export.c). */
#pragma once

#include <stdbool.h>

#include "basic/host.h"
#include "basic/time-util.h"
#include "check/check-fabric-transport.h"
#include "check/check-peer.h"
#include "check/check.h"
#include "profile/profile.h"
#include "snapshot/snapshot.h"

typedef struct Manager Manager;

/* The snapshot of the latest verify, with the host and the context it reads through (a verify job's are
 * gone with it), kept by the manager for the exports: each export job that follows on the host lane
 * (one job at a time) takes it over while it runs and gives it back when it is published, so that
 * the exports read no source the verify read, and read what it did not (the counters, the GIDs) once. */
typedef struct VerifiedSnapshot {
        uint64_t profile_generation; /* of the profile it was read for (Manager.profile_generation) */
        Host host;
        NodeContext context;
        Snapshot snapshot;
} VerifiedSnapshot;

VerifiedSnapshot *verified_snapshot_free(VerifiedSnapshot *v);
/* On the loop, when a verify job publishes, before its checks are: m keeps s, read for c on host (*s is
 * taken over and left empty), instead of the snapshot of the verify before. */
void manager_export_keep_snapshot(Manager *m, const Host *host, const NodeContext *c, Snapshot *s);

/* local: after a local verify (fabric.env too), not only a peer run. */
void manager_export(Manager *m, bool local);
/* Removes the CDI spec when this halod may have written it: on stop, so that no container is given
 * devices and variables that nothing keeps right any more. */
void manager_export_remove(Manager *m);

/* The export job's inputs, copied from the manager when the job starts, and its outputs
 * (daemon/halod/manager-export.c). */
typedef struct ExportJob {
        Host host;
        const Profile *profile;
        const ProfileNode *node;
        const char *runtime_dir;
        const char *cdi_dir; /* NULL: no CDI spec */
        bool fabric_env;     /* fabric.env and the CDI spec too, not only the Prometheus textfile: after
                              * local checks */
        CheckList checks;
        PeerStatusList peers;
        FabricTransportState transport; /* a copy of the manager's transport_published */
        Health health;
        usec_t last_verify_usec;
        VerifiedSnapshot *verified; /* the latest verify's, taken from the manager; NULL: none for this
                                     * profile yet, the job reads its own */

        int fabric_env_result; /* 1: written (it changed), 0: unchanged, negative errno */
        int cdi_spec_result;   /* the same for the CDI spec */
        int metrics_result;    /* 0, or negative errno; 1: no textfile configured */
} ExportJob;
