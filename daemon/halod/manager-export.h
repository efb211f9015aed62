/* SPDX-License-Identifier: MIT */
/* fabric.env, the CDI spec and the Prometheus textfile after each verify, written by an export job off
 * the loop from the verify's facts and the published checks, borrowed (manager-export.c). */
#pragma once

#include <stdbool.h>

#include "basic/host.h"
#include "basic/time-util.h"
#include "check/check-fabric-transport.h"
#include "check/check-peer.h"
#include "check/check.h"
#include "export/fabric-env.h"
#include "export/metrics.h"
#include "manager-published.h"
#include "profile/profile.h"
#include "snapshot/snapshot.h"

typedef struct Manager Manager;

/* What the exports derive from one verify's facts, kept with them (VerifiedFacts.exported) so that
 * each is derived once per verify: fabric.env's values, and the metrics' NIC, counter and GID figures
 * (the NIC figures point into the facts). */
struct ExportFacts {
        bool env_derived;
        int env_result; /* of fabric_env_derive(): 0, or negative errno */
        FabricEnv env;
        bool metrics_gathered;
        int metrics_result; /* 0, or negative errno */
        MetricsNic *nics;
        size_t n_nics;
        MetricsQos *qos;
        size_t n_qos;
        MetricsGid *gids;
        size_t n_gids;
};

ExportFacts *export_facts_free(ExportFacts *x);

/* On the loop, when a verify job publishes, before its checks are: m keeps s, read for c on host (*s is
 * taken over and left empty), for the exports, instead of the facts of the verify before. */
void manager_export_keep_snapshot(Manager *m, const Host *host, const NodeContext *c, Snapshot *s);

/* local: after a local verify (fabric.env too), not only a peer run. */
void manager_export(Manager *m, bool local);
/* Removes the CDI spec when this halod may have written it: on stop, so that no container is given
 * devices and variables that nothing keeps right any more. */
void manager_export_remove(Manager *m);

/* The export job's inputs, taken from the manager when the job starts (the published checks and the
 * latest verify's facts borrowed, the rest copied), and its outputs (daemon/halod/manager-export.c). */
typedef struct ExportJob {
        Host host;
        const Profile *profile;
        const ProfileNode *node;
        const char *runtime_dir;
        const char *cdi_dir;     /* NULL: no CDI spec */
        bool fabric_env;         /* fabric.env and the CDI spec too, not only the Prometheus textfile: after
                                  * local checks */
        PublishedChecks *checks; /* a reference to the manager's; NULL: no textfile to write */
        PeerStatusList peers;
        FabricTransportState transport; /* a copy of the manager's transport_published */
        Health health;
        usec_t last_verify_usec;
        VerifiedFacts *verified; /* a reference to the latest verify's facts; NULL: none for this
                                  * profile yet, the job reads its own */

        int fabric_env_result; /* 1: written (it changed), 0: unchanged, negative errno */
        int cdi_spec_result;   /* the same for the CDI spec */
        int metrics_result;    /* 0, or negative errno; 1: no textfile configured */
} ExportJob;
