/* SPDX-License-Identifier: MIT */
/* A node's health: what halod publishes as its Health property and in the metrics, and what each node
 * tells the others on the peer channel (the wire carries the value, so the order is fixed). */
#pragma once

#include <errno.h>

#include "basic/macro.h"

typedef enum Health {
        HEALTH_STARTING, /* before the first verify */
        HEALTH_HEALTHY,  /* every check passes (or is skipped) */
        HEALTH_DEGRADED, /* some check warns or fails */
        HEALTH_FAILED,   /* halod cannot do its job: the checks could not run, or the profile fails */
        _HEALTH_MAX,
        _HEALTH_INVALID = -EINVAL,
} Health;

const char *health_to_string(Health h) _pure_;
Health health_from_string(const char *s) _pure_;
