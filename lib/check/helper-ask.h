/* SPDX-License-Identifier: MIT */
/* When halod asks halod-helper.service again, and what its "helper" check says: pure decisions on the
 * times of halod's request and of the helper's "started" and "result" stamps (one clock: the file
 * system's), so that they can be tested as a table (daemon/halod/manager-helper.c acts on them). */
#pragma once

#include <errno.h>
#include <stdbool.h>

#include "basic/time-util.h"

/* halod-helper.service's RuntimeDirectory=, where haloctl leaves HELPER_STAMP_STARTED when a run starts
 * and HELPER_STAMP_RESULT ("exit status N") when it ends. */
#define HELPER_RUNTIME_DIR "/run/halod-helper"
#define HELPER_STAMP_STARTED "started"
#define HELPER_STAMP_RESULT "result"

/* Asking again for the same thing, while it stays wrong: after 10 s, then twice as long each time, up to
 * half an hour. A new difference is asked for at once. */
#define HELPER_BACKOFF_MIN_USEC (10 * USEC_PER_SEC)
#define HELPER_BACKOFF_MAX_USEC (30 * 60 * USEC_PER_SEC)

/* What the helper's stamps say of the runs since halod last asked. */
typedef enum HelperRun {
        HELPER_RUN_PENDING, /* no run ended since halod asked, and none is under way */
        HELPER_RUN_RUNNING, /* a run is under way (it started after the last one ended) */
        HELPER_RUN_MISSED,  /* a run ended after halod asked but started before: the path unit merged the
                             * request into it, and it did not see the change */
        HELPER_RUN_DONE,    /* a run started after halod asked, and ended */
        _HELPER_RUN_MAX,
        _HELPER_RUN_INVALID = -EINVAL,
} HelperRun;

/* asked, started, ended: the mtimes of the request and of the helper's two stamps (0: none). */
HelperRun helper_run_of(usec_t asked, usec_t started, usec_t ended);

typedef enum HelperAsk {
        HELPER_ASK_NOT,    /* nothing to ask, or the back-off has not run out */
        HELPER_ASK_NEW,    /* a difference not asked for yet: at once, the back-off starts anew */
        HELPER_ASK_AGAIN,  /* the same difference, its back-off ran out: the back-off doubles */
        HELPER_ASK_MISSED, /* the same difference, the helper's last run missed the request: at once,
                            * the back-off as it was */
        _HELPER_ASK_MAX,
        _HELPER_ASK_INVALID = -EINVAL,
} HelperAsk;

/* wrong: something of the helper's is wrong now; same: it is what halod last asked for (and asked
 * is true). asked_usec and backoff_usec: when halod last asked (CLOCK_MONOTONIC) and the back-off. */
HelperAsk helper_ask_decide(
        bool wrong, bool same, HelperRun run, usec_t now_usec, usec_t asked_usec, usec_t backoff_usec);
/* The back-off after a decision. */
usec_t helper_backoff_next(HelperAsk ask, usec_t backoff_usec);

typedef enum HelperVerdict {
        HELPER_VERDICT_PASS,    /* nothing is wrong */
        HELPER_VERDICT_ASKED,   /* asked just now, or the helper is running: WARN */
        HELPER_VERDICT_NOT_RUN, /* asked, and no run came: WARN, is halod-helper.path active? */
        HELPER_VERDICT_FAILED,  /* still wrong after a run that saw the request: FAIL */
        _HELPER_VERDICT_MAX,
        _HELPER_VERDICT_INVALID = -EINVAL,
} HelperVerdict;

/* failed_before: the last verdict was FAILED on this same difference; asking again after the back-off
 * does not turn a persistent failure into a WARN (and back at the next run). */
HelperVerdict helper_verdict(bool wrong, HelperAsk ask, HelperRun run, bool failed_before);

const char *helper_run_to_string(HelperRun r);
const char *helper_ask_to_string(HelperAsk a);
const char *helper_verdict_to_string(HelperVerdict v);
