/* SPDX-License-Identifier: MIT */
/* Host work off the event loop (daemon/manager-work.c): loading the profile, applying it, resolving
 * the links' netdevs, running the local checks and writing the exports, by a worker thread, one job
 * at a time; the loop publishes each job's results and goes on answering D-Bus meanwhile. */
#pragma once

#include "manager-export.h"
#include "manager.h"

/* The steps of a job, run in this order; the apply and the checks of one job read one snapshot of the
 * host (snapshot/snapshot.h), so the checks report from what the apply read back. */
typedef enum WorkStep {
        WORK_LOAD = 1U << 0,   /* read and validate the profile file, pick the node */
        WORK_PORTS = 1U << 1,  /* resolve the links' netdevs (which rtnetlink events are ours) */
        WORK_APPLY = 1U << 2,  /* apply the profile in force through the backend */
        WORK_CHECKS = 1U << 3, /* run the local checks that only selects */
        /* after the checks, when a link check of the selection fails or warns: apply (mode: enforce,
         * the caller decided it may) and, when that changed something, run the checks again */
        WORK_ENFORCE = 1U << 4,
        WORK_EXPORT = 1U << 5,     /* write the Prometheus textfile (when the profile names one) */
        WORK_EXPORT_ENV = 1U << 6, /* and fabric.env: after local checks */
} WorkStep;

/* What a job found, for its caller: the checks are published, the changes logged already. */
typedef struct WorkResult {
        int load_result; /* WORK_LOAD: 0, or negative errno with the reasons in load_error */
        char *load_error;
        Profile *loaded; /* WORK_LOAD: the caller takes it over (TAKE_PTR), with loaded_node */
        const ProfileNode *loaded_node;
        int apply_result; /* WORK_APPLY: the number of changes, or negative errno with apply_error */
        char *apply_error;
        int checks_result;      /* WORK_CHECKS: 0, 1 when they did not run, or negative errno */
        bool enforce_attempted; /* WORK_ENFORCE: links were wrong, and it applied */
        int enforce_result;     /* then: the number of changes, or negative errno */
        bool helper_ran;        /* a full verify, or links to change through halod-helper.service */
        int helper_result;      /* then: manager_helper_step()'s result (manager-helper.h) */
} WorkResult;

/* Runs on the loop when the job's results are published; userdata is the caller's. */
typedef void (*WorkDoneFunc)(Manager *m, WorkResult *result, void *userdata);

/* Queues a job of steps (WorkStep flags, run in their order) for the checks only selects (copied;
 * NULL: all). done, when not NULL, runs once the results are published; destroy (may be NULL) then
 * releases userdata, also when the job never ran (halod stops). Returns 0 or -ENOMEM. */
int manager_work_submit(
        Manager *m, unsigned steps, const char *only, WorkDoneFunc done, void *userdata, void (*destroy)(void *));
/* Runs a job at once on this thread and publishes its results: for manager_start(), before the loop
 * runs. The result is the caller's to release with work_result_done(). */
int manager_work_run(Manager *m, unsigned steps, const char *only, WorkResult *ret);
/* Whether a job runs or waits. */
bool manager_work_busy(const Manager *m) _pure_;
void work_result_done(WorkResult *r);
/* Waits for the running job and drops the queued ones: halod stops. */
void manager_work_done(Manager *m);
