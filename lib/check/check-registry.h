/* SPDX-License-Identifier: MIT */
/* The registry of check ids: every id or id pattern, its group, the snapshot parts it judges, its
 * section in haloctl(1) and what it judges. The group table, haloctl check --list, the completion and
 * the docs test derive from it; a test holds what the checks emit to it. */
#pragma once

#include "check/checks.h"
#include "snapshot/snapshot.h"

typedef struct CheckRegistryEntry {
        /* "kernel.cmdline", or a pattern whose <NAME> (a link of the profile) or <NODE> (another node)
         * stands for one name: "link.<NAME>.mtu". */
        const char *id;
        /* The prefix that selects its group with --only: "kernel.", or the id itself ("profile"). */
        const char *group;
        /* The function that adds the group's checks for haloctl check and the verify; NULL for the
         * checks run elsewhere (the peer round, the daemon's own). Entries of one function are
         * adjacent, and the functions run in the order of their first entry. */
        CheckSnapshotGroupFunc run;
        /* The snapshot parts it judges, which the caller of the checks reads for it before they run
         * (check_registry_parts(), check-parts.h); 0: none. */
        SnapshotPart parts;
        /* Its section under CHECKS in haloctl(1) ("## kernel."). */
        const char *section;
        /* What it judges, one line. */
        const char *judges;
} CheckRegistryEntry;

/* Every check, in the order the checks run. */
extern const CheckRegistryEntry check_registry[];
extern const size_t check_registry_size;

/* True when id is an id that pattern stands for: equal, or each <…> of pattern matched by one
 * non-empty name without a dot. */
bool check_registry_id_matches(const char *pattern, const char *id) _pure_;
/* The entry id belongs to (its own line before a pattern's); NULL for an id no entry knows. */
const CheckRegistryEntry *check_registry_find(const char *id) _pure_;
/* How many checks the group function run adds for each node (for each link or peer, a pattern's). */
size_t check_registry_count(CheckSnapshotGroupFunc run) _pure_;
/* The snapshot part's name ("nics"); NULL for a value that is not one part. */
const char *snapshot_part_name(SnapshotPart part);
