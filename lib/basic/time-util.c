/* SPDX-License-Identifier: MIT */
/* Reading the clocks in microseconds and nanoseconds. */
#include "basic/time-util.h"

usec_t timespec_load(const struct timespec *ts) {
        return (usec_t) ts->tv_sec * USEC_PER_SEC + (usec_t) ts->tv_nsec / NSEC_PER_USEC;
}

static nsec_t timespec_load_nsec(const struct timespec *ts) {
        return (nsec_t) ts->tv_sec * NSEC_PER_SEC + (nsec_t) ts->tv_nsec;
}

usec_t now(clockid_t clock) {
        struct timespec ts;

        /* Fails only for a clock id that does not exist, which the callers do not pass. */
        (void) clock_gettime(clock, &ts);
        return timespec_load(&ts);
}

nsec_t now_nsec(clockid_t clock) {
        struct timespec ts;

        (void) clock_gettime(clock, &ts);
        return timespec_load_nsec(&ts);
}
