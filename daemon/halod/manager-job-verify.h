/* SPDX-License-Identifier: MIT */
/* The apply+verify job (daemon/halod/manager-job-verify.c): from one snapshot of the host, resolve the
 * links' netdevs, apply the profile, run the local checks, and in enforce mode put back what drifted
 * and check again; then, when something is halod-helper.service's to write, queue the hosts job
 * (manager-job-hosts.h), to which the caller's done passes. On the host lane. */
#pragma once

#include "manager.h"

/* What the job does; only is copied (NULL: every check). */
typedef struct VerifyRequest {
        const char *only; /* the checks to run */
        bool ports;       /* resolve the links' netdevs first (which rtnetlink events are ours) */
        bool apply;       /* apply the profile in force through the backend first */
        bool judge;       /* decide from the plan whether what the checks read drifted (enforce mode) */
        bool enforce;     /* and when it did, re-apply and check again (the caller's budget allows) */
        bool seed_ports;  /* take the links' netdevs as the watch has them instead of listing the
                           * netdevs (a re-check after address and route events, which move none) */
} VerifyRequest;

/* What it found, for its caller: the checks are published and the changes logged already. */
typedef struct VerifyOutcome {
        int apply_result;        /* apply: the number of changes, or negative errno */
        const char *apply_error; /* then: why, or NULL */
        int checks_result;       /* 0, or negative errno */
        bool drifted;            /* judge: the plan differs from the profile (plan_drifted()) */
        bool enforce_attempted;  /* it re-applied */
        int enforce_result;      /* then: the number of changes, or negative errno */
} VerifyOutcome;

/* Runs on the loop once the results are published, the helper check's too when a hosts job follows;
 * userdata is the caller's. */
typedef void (*VerifyDoneFunc)(Manager *m, const VerifyOutcome *o, void *userdata);

/* Queues the job on the host lane. done may be NULL; destroy (may be NULL) releases userdata, also
 * when the job never runs (halod stops); on failure (-ENOMEM) the caller keeps userdata. */
int manager_verify_submit(
        Manager *m, const VerifyRequest *req, VerifyDoneFunc done, void *userdata, void (*destroy)(void *));
/* Runs it at once on this thread and publishes it: for manager_start(), before the loop runs. */
int manager_verify_run_now(Manager *m, const VerifyRequest *req);
