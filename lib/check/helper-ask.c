/* SPDX-License-Identifier: MIT */
/* The helper's ask and check decisions (helper-ask.h). */
#include <errno.h>

#include "basic/macro.h"
#include "check/helper-ask.h"

HelperRun helper_run_of(usec_t asked, usec_t started, usec_t ended) {
        if (started > ended)
                return HELPER_RUN_RUNNING;
        if (ended < asked || ended == 0)
                return HELPER_RUN_PENDING;
        /* The same tick counts as after: the file system's clock is coarse, and a run that did see the
         * request is the likelier one. */
        return started >= asked ? HELPER_RUN_DONE : HELPER_RUN_MISSED;
}

HelperAsk helper_ask_decide(
        bool wrong, bool same, HelperRun run, usec_t now_usec, usec_t asked_usec, usec_t backoff_usec) {
        if (!wrong)
                return HELPER_ASK_NOT;
        if (!same)
                return HELPER_ASK_NEW;
        if (run == HELPER_RUN_MISSED)
                return HELPER_ASK_MISSED;
        /* A run under way is no reason to wait longer than the back-off: one that died without its
         * result stamp looks under way for ever. */
        if (now_usec < asked_usec + backoff_usec)
                return HELPER_ASK_NOT;
        return HELPER_ASK_AGAIN;
}

usec_t helper_backoff_next(HelperAsk ask, usec_t backoff_usec) {
        switch (ask) {
        case HELPER_ASK_NEW:
                return HELPER_BACKOFF_MIN_USEC;
        case HELPER_ASK_AGAIN:
                return backoff_usec > HELPER_BACKOFF_MAX_USEC / 2 ? HELPER_BACKOFF_MAX_USEC : backoff_usec * 2;
        default:
                return backoff_usec;
        }
}

HelperVerdict helper_verdict(bool wrong, HelperAsk ask, HelperRun run, bool failed_before) {
        if (!wrong)
                return HELPER_VERDICT_PASS;
        if (failed_before && ask != HELPER_ASK_NEW)
                return HELPER_VERDICT_FAILED;
        if (ask != HELPER_ASK_NOT || run == HELPER_RUN_RUNNING)
                return HELPER_VERDICT_ASKED;
        return run == HELPER_RUN_DONE ? HELPER_VERDICT_FAILED : HELPER_VERDICT_NOT_RUN;
}

static const char *const run_table[_HELPER_RUN_MAX] = {
        [HELPER_RUN_PENDING] = "pending",
        [HELPER_RUN_RUNNING] = "running",
        [HELPER_RUN_MISSED] = "missed",
        [HELPER_RUN_DONE] = "done",
};

static const char *const ask_table[_HELPER_ASK_MAX] = {
        [HELPER_ASK_NOT] = "not",
        [HELPER_ASK_NEW] = "new",
        [HELPER_ASK_AGAIN] = "again",
        [HELPER_ASK_MISSED] = "missed",
};

static const char *const verdict_table[_HELPER_VERDICT_MAX] = {
        [HELPER_VERDICT_PASS] = "pass",
        [HELPER_VERDICT_ASKED] = "asked",
        [HELPER_VERDICT_NOT_RUN] = "not-run",
        [HELPER_VERDICT_FAILED] = "failed",
};

const char *helper_run_to_string(HelperRun r) {
        return r >= 0 && r < _HELPER_RUN_MAX ? run_table[r] : NULL;
}

const char *helper_ask_to_string(HelperAsk a) {
        return a >= 0 && a < _HELPER_ASK_MAX ? ask_table[a] : NULL;
}

const char *helper_verdict_to_string(HelperVerdict v) {
        return v >= 0 && v < _HELPER_VERDICT_MAX ? verdict_table[v] : NULL;
}
