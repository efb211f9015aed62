/* SPDX-License-Identifier: MIT */
/* Time as halod counts it: microseconds (usec_t) and nanoseconds (nsec_t), read from one clock. */
#pragma once

#include <stdint.h>
#include <time.h>

#include "basic/macro.h"

typedef uint64_t usec_t;
typedef uint64_t nsec_t;

#define USEC_PER_MSEC ((usec_t) 1000ULL)
#define USEC_PER_SEC ((usec_t) 1000000ULL)
#define USEC_PER_MINUTE (60ULL * USEC_PER_SEC)
#define USEC_PER_HOUR (60ULL * USEC_PER_MINUTE)
#define NSEC_PER_USEC ((nsec_t) 1000ULL)
#define NSEC_PER_MSEC ((nsec_t) 1000000ULL)
#define NSEC_PER_SEC ((nsec_t) 1000000000ULL)

usec_t timespec_load(const struct timespec *ts) _pure_;

/* The clock (CLOCK_MONOTONIC, CLOCK_REALTIME, ...) now, in µs or ns. */
usec_t now(clockid_t clock);
nsec_t now_nsec(clockid_t clock);
