/* SPDX-License-Identifier: MIT */
/* What the manager published, shared instead of copied: the facts one verify read (VerifiedFacts, one
 * per verify) and the checks in force (PublishedChecks, one per publish: a verify, a hosts job, a peer
 * round). Neither changes once published; the export job that follows a publish borrows both, and
 * whichever lets go last, the manager or the job, frees them. References are taken and dropped on the
 * loop only (a job's free runs there), so the counts need no atomics. */
#pragma once

#include <stdint.h>

#include "basic/host.h"
#include "check/check.h"
#include "profile/node-context.h"
#include "snapshot/snapshot.h"

typedef struct ExportFacts ExportFacts;

/* The snapshot of one verify, with the host and the context it reads through (a verify job's are gone
 * with the job). The exports read it on the host lane, one job at a time, while nothing else does:
 * the first export of a verify reads into it what the verify did not (the NIC facts, the counters,
 * the GIDs, for the metrics) and keeps what it derived (exported), so that the exports after it (a
 * hosts job's, a peer round's) derive nothing again and open no device. */
typedef struct VerifiedFacts {
        unsigned n_ref;
        uint64_t profile_generation; /* of the profile it was read for (Manager.profile_generation) */
        Host host;
        NodeContext context;
        Snapshot snapshot;
        ExportFacts *exported; /* NULL until an export derived something (manager-export.c) */
} VerifiedFacts;

/* Takes over *s, read for c on host (left empty); NULL when out of memory (*s is then untouched). */
VerifiedFacts *
        verified_facts_new(uint64_t profile_generation, const Host *host, const NodeContext *c, Snapshot *s);
VerifiedFacts *verified_facts_ref(VerifiedFacts *v);
VerifiedFacts *verified_facts_unref(VerifiedFacts *v);
DEFINE_TRIVIAL_CLEANUP_FUNC(VerifiedFacts *, verified_facts_unref);

/* The checks as published on the bus, local and peer checks merged. */
typedef struct PublishedChecks {
        unsigned n_ref;
        CheckList list;
} PublishedChecks;

/* Takes over *list (left empty). Returns 0 or -ENOMEM (*list is then untouched). */
int published_checks_new(CheckList *list, PublishedChecks **ret);
PublishedChecks *published_checks_ref(PublishedChecks *p);
PublishedChecks *published_checks_unref(PublishedChecks *p);
DEFINE_TRIVIAL_CLEANUP_FUNC(PublishedChecks *, published_checks_unref);
/* p's list, or an empty one for NULL (nothing published yet). */
const CheckList *published_checks_list(const PublishedChecks *p) _pure_;
