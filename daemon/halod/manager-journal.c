/* SPDX-License-Identifier: MIT */
/* The journal's account of a verify: each check that fails, drifts or recovers, once per transition. */
#include <string.h>

#include "log.h"
#include "manager-journal.h"

static bool outcome_is_bad(CheckOutcome o) {
        return o == CHECK_FAIL || o == CHECK_WARN;
}

static void log_check_failed(const Check *c, bool drift) {
        const char *link = c->link;
        LogFields f = {
                .message_id = drift && link ? HALOD_MESSAGE_DRIFT : HALOD_MESSAGE_CHECK_FAILED,
                .check = c->id,
                .link = link,
                .expected = c->expected,
                .actual = c->actual,
        };

        if (drift && link)
                log_struct(
                        LOG_WARNING,
                        &f,
                        "Drift detected on link %s: %s %s: %s",
                        link,
                        c->id,
                        check_outcome_to_string(c->outcome),
                        c->summary);
        else
                log_struct(
                        c->outcome == CHECK_FAIL ? LOG_ERR : LOG_WARNING,
                        &f,
                        "Check %s %s: %s",
                        c->id,
                        c->outcome == CHECK_FAIL ? "failed" : "warns",
                        c->summary);
}

static void log_check_recovered(const Check *c, const Check *old) {
        LogFields f = {
                .message_id = HALOD_MESSAGE_CHECK_RECOVERED,
                .check = c->id,
                .link = c->link,
                .expected = c->expected,
                .actual = c->actual,
        };

        log_struct(
                LOG_NOTICE,
                &f,
                "Check %s recovered (%s → %s): %s",
                c->id,
                check_outcome_to_string(old->outcome),
                check_outcome_to_string(c->outcome),
                c->summary);
}

/* fabric.<node>.transport: the verify job logs its verdict's own transitions into and out of the
 * fallback, which a verify that cannot judge (a skip) does not interrupt. */
static bool logged_by_verdict(const char *id) {
        size_t n = strlen(id);

        return startswith(id, "fabric.") && n > strlen(".transport") &&
                streq(id + n - strlen(".transport"), ".transport");
}

void manager_journal_transition(Manager *m, const Check *c, const Check *old, bool drift) {
        if (logged_by_verdict(c->id))
                return;
        if (outcome_is_bad(c->outcome) && (!old || old->outcome != c->outcome))
                /* A check that was never seen before is not drift: it is how things were. */
                log_check_failed(c, drift && old);
        else if (!outcome_is_bad(c->outcome) && old && outcome_is_bad(old->outcome))
                log_check_recovered(c, old);
}
