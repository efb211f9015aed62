/* SPDX-License-Identifier: MIT */
/* halod's decisions on halod-helper.service (lib/check/helper-ask.c) as tables: what the stamps say of
 * the last run, when to ask again, and what the helper check says. Times are in seconds for reading. */
#include "basic/macro.h"
#include "check/helper-ask.h"
#include "tests.h"

#define S(x) ((usec_t) (x) *USEC_PER_SEC)

static void test_run_of(void) {
        static const struct {
                usec_t asked, started, ended;
                HelperRun want;
        } cases[] = {
                { S(100), 0, 0, HELPER_RUN_PENDING },          /* the helper never ran */
                { S(100), S(50), S(60), HELPER_RUN_PENDING },  /* its last run ended before halod asked */
                { S(100), S(110), S(60), HELPER_RUN_RUNNING }, /* it started after, and goes on */
                { S(100), S(90), S(60), HELPER_RUN_RUNNING },  /* it started before, and goes on */
                { S(100), S(90), S(120), HELPER_RUN_MISSED },  /* the path unit merged the request in */
                { S(100), S(90), S(100), HELPER_RUN_MISSED },  { S(100), S(110), S(120), HELPER_RUN_DONE },
                { S(100), S(100), S(100), HELPER_RUN_DONE }, /* one tick of a coarse clock */
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                HelperRun r = helper_run_of(cases[i].asked, cases[i].started, cases[i].ended);
                if (r != cases[i].want)
                        fprintf(stderr, "case %zu: %s\n", i, helper_run_to_string(r));
                ASSERT_INT_EQ(r, cases[i].want);
        }
}

static void test_ask(void) {
        static const struct {
                bool wrong, same;
                HelperRun run;
                usec_t now, asked, backoff;
                HelperAsk want;
                usec_t want_backoff;
        } cases[] = {
                { false, false, HELPER_RUN_DONE, S(0), S(0), S(0), HELPER_ASK_NOT, S(0) },
                { true, false, HELPER_RUN_PENDING, S(5), S(0), S(0), HELPER_ASK_NEW, HELPER_BACKOFF_MIN_USEC },
                /* a new difference resets a long back-off */
                { true, false, HELPER_RUN_DONE, S(5), S(0), S(640), HELPER_ASK_NEW, HELPER_BACKOFF_MIN_USEC },
                { true, true, HELPER_RUN_DONE, S(5), S(0), S(10), HELPER_ASK_NOT, S(10) },
                { true, true, HELPER_RUN_DONE, S(10), S(0), S(10), HELPER_ASK_AGAIN, S(20) },
                { true, true, HELPER_RUN_PENDING, S(30), S(0), S(10), HELPER_ASK_AGAIN, S(20) },
                { true, true, HELPER_RUN_DONE, S(4000), S(0), S(1200), HELPER_ASK_AGAIN, HELPER_BACKOFF_MAX_USEC },
                { true,
                  true,
                  HELPER_RUN_DONE,
                  S(4000),
                  S(0),
                  HELPER_BACKOFF_MAX_USEC,
                  HELPER_ASK_AGAIN,
                  HELPER_BACKOFF_MAX_USEC },
                /* the run under way missed the request: again at once, the back-off unchanged */
                { true, true, HELPER_RUN_MISSED, S(1), S(0), S(10), HELPER_ASK_MISSED, S(10) },
                /* a run under way: its end says whether it saw the request, within the back-off */
                { true, true, HELPER_RUN_RUNNING, S(5), S(0), S(10), HELPER_ASK_NOT, S(10) },
                /* and past it (a run that died without its result looks under way for ever) */
                { true, true, HELPER_RUN_RUNNING, S(30), S(0), S(10), HELPER_ASK_AGAIN, S(20) },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                HelperAsk a = helper_ask_decide(
                        cases[i].wrong, cases[i].same, cases[i].run, cases[i].now, cases[i].asked, cases[i].backoff);
                if (a != cases[i].want)
                        fprintf(stderr, "case %zu: %s\n", i, helper_ask_to_string(a));
                ASSERT_INT_EQ(a, cases[i].want);
                ASSERT_INT_EQ(helper_backoff_next(a, cases[i].backoff), cases[i].want_backoff);
        }
}

static void test_verdict(void) {
        static const struct {
                bool wrong;
                HelperAsk ask;
                HelperRun run;
                bool failed_before;
                HelperVerdict want;
        } cases[] = {
                { false, HELPER_ASK_NOT, HELPER_RUN_DONE, true, HELPER_VERDICT_PASS },
                { true, HELPER_ASK_NEW, HELPER_RUN_PENDING, false, HELPER_VERDICT_ASKED },
                { true, HELPER_ASK_NOT, HELPER_RUN_RUNNING, false, HELPER_VERDICT_ASKED },
                { true, HELPER_ASK_NOT, HELPER_RUN_PENDING, false, HELPER_VERDICT_NOT_RUN },
                { true, HELPER_ASK_NOT, HELPER_RUN_DONE, false, HELPER_VERDICT_FAILED },
                { true, HELPER_ASK_MISSED, HELPER_RUN_MISSED, false, HELPER_VERDICT_ASKED },
                /* asking again after the back-off keeps a persistent failure a FAIL: no flapping */
                { true, HELPER_ASK_AGAIN, HELPER_RUN_DONE, true, HELPER_VERDICT_FAILED },
                { true, HELPER_ASK_NOT, HELPER_RUN_PENDING, true, HELPER_VERDICT_FAILED },
                /* a new difference is a new question */
                { true, HELPER_ASK_NEW, HELPER_RUN_DONE, true, HELPER_VERDICT_ASKED },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                HelperVerdict v = helper_verdict(
                        cases[i].wrong, cases[i].ask, cases[i].run, cases[i].failed_before);
                if (v != cases[i].want)
                        fprintf(stderr, "case %zu: %s\n", i, helper_verdict_to_string(v));
                ASSERT_INT_EQ(v, cases[i].want);
        }
}

int main(void) {
        test_run_of();
        test_ask();
        test_verdict();
        return 0;
}
