/* SPDX-License-Identifier: MIT */
/* The words of a node's health, as the Health property, haloctl and the metrics show them. */
#include "peer/health.h"

static const char *const health_table[_HEALTH_MAX] = {
        [HEALTH_STARTING] = "starting",
        [HEALTH_HEALTHY] = "healthy",
        [HEALTH_DEGRADED] = "degraded",
        [HEALTH_FAILED] = "failed",
};

DEFINE_STRING_TABLE_LOOKUP(health, Health);
