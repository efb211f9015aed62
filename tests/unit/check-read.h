/* SPDX-License-Identifier: MIT */
/* The tests of the check groups read the facts as the checks' callers do: the parts the registry names
 * for the selection (check_registry_parts()), read once, then the checks judge them. */
#pragma once

#include "check/check-registry.h"
#include "check/checks.h"
#include "tests.h"

/* Reads into s what the checks only selects judge. */
static inline void test_read_for(const NodeContext *c, Snapshot *s, const char *only) {
        ASSERT_OK(snapshot_read(s, check_registry_parts(c, only)));
}

/* The group (its --only prefix, "kernel.") whose checks run adds. */
static inline const char *test_group_of(CheckSnapshotGroupFunc run) {
        for (size_t i = 0; i < check_registry_size; i++)
                if (check_registry[i].run == run)
                        return check_registry[i].group;
        abort();
}

/* Runs the group run with its facts read into s first (NULL: a snapshot of the run's own). */
static inline int test_check_group(const NodeContext *c, Snapshot *s, CheckSnapshotGroupFunc run, CheckList *out) {
        _cleanup_(snapshot_done) Snapshot own = {};

        s = snapshot_or_own(s, &own, c);
        test_read_for(c, s, test_group_of(run));
        return run(c, s, /* before= */ NULL, /* after= */ NULL, out);
}

/* checks_run() with the facts of only read into s first (NULL: a snapshot of the run's own). */
static inline int test_checks_run(const NodeContext *c, Snapshot *s, const char *only, CheckList *out) {
        _cleanup_(snapshot_done) Snapshot own = {};

        s = snapshot_or_own(s, &own, c);
        test_read_for(c, s, only);
        return checks_run(c, s, /* before= */ NULL, /* after= */ NULL, only, out);
}
