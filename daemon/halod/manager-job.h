/* SPDX-License-Identifier: MIT */
/* halod's one job primitive (manager-job.c): a job runs on a worker thread, is published on the
 * loop, then freed. Jobs of one lane run one at a time, in order; the lanes run side by side (the host
 * work and the peer round, see Manager). Each kind of job is a JobType in a file of its own. */
#pragma once

#include <stdbool.h>
#include <systemd/sd-event.h>

#include "basic/time-util.h"

typedef struct Manager Manager;
typedef struct Job Job;

typedef struct JobType {
        const char *name; /* for the log */
        /* On the worker (or on the loop's thread when no thread can be had, or before the loop runs):
         * reads its inputs from data, which holds copies or what stays in force while its lane runs. */
        void (*run)(Job *j, void *data);
        /* On the loop, after run: hands the results to the manager. NULL: nothing to publish. */
        void (*publish)(Manager *m, void *data);
        /* Releases data: after publish, or when the job never ran or never will (halod stops). */
        void (*free)(void *data);
        /* Asks a running job to stop soon (from the loop; may be NULL): halod stops, or its results
         * would be dropped. */
        void (*cancel)(void *data);
        /* Called on the loop when the job leaves the queue to run, to take its inputs from the
         * manager; a negative errno fails the job: publish is not called, free is. May be NULL. */
        int (*capture)(Manager *m, void *data);
        /* Called on the loop, when capture failed, instead of publish (may be NULL). */
        void (*fail)(Manager *m, void *data, int error);
} JobType;

typedef struct JobLane {
        const char *name;
        Job *running;
        Job *queue;
        void (*idle)(Manager *m); /* the lane ran empty (may be NULL) */
        bool abandoned;           /* job_lane_stop() left a worker running: the manager's state stays */
} JobLane;

/* Queues a job of type with its data (taken over: freed by type->free) on lane and starts it when the
 * lane is free. Returns 0, or -ENOMEM with data left to the caller. */
int job_submit(Manager *m, JobLane *lane, const JobType *type, void *data);
/* Runs a job at once on this thread and publishes it, then the jobs publishing queued on the lane:
 * before the loop runs (manager_start()). data is taken over. */
int job_run_now(Manager *m, JobLane *lane, const JobType *type, void *data);
/* The data of a job of type waiting on lane, not yet started, for which match (may be NULL) says
 * yes: a caller may fold its request into it. */
void *job_lane_find_queued(JobLane *lane, const JobType *type, bool (*match)(const void *data));
/* The data of the job running on lane when it is of type, else NULL. */
void *job_lane_running(JobLane *lane, const JobType *type);
bool job_lane_busy(const JobLane *lane) _pure_;

/* From a job's run, on the worker: runs fn(m, userdata) on the loop and waits until it returned (at
 * once, on this thread, when the job runs on the loop's thread; not at all when the loop is gone). */
void job_call_loop(Job *j, void (*fn)(Manager *m, void *userdata), void *userdata);

/* halod stops: cancels the running job, drops the queued ones, and waits for the running one at most
 * grace_usec. A worker that has not ended by then (stuck in a blocking call) is left to the process's
 * exit: its data is not freed, so that nothing it still reads goes away under it. */
void job_lane_stop(JobLane *lane, usec_t grace_usec);
