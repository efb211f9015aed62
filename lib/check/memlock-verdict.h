/* SPDX-License-Identifier: MIT */
/* rdma.memlock's verdict as it is built, shared by its parts: the services' and containers' limits
 * (check-rdma-memlock.c) and the login sessions' (check-rdma-memlock-login.c). */
#pragma once

#include "check/check-rdma.h"

#define LIMITS_DROPIN LIMITS_CONF_DROPIN_DIR "/90-rdma.conf"

/* What the check says, sorted by weight: problems fail it, warnings make it warn. */
typedef struct MemlockVerdict {
        char **problems;
        char **warnings;
        char **ok;
        char **actual; /* "services 8 MiB": each limit that was judged */
} MemlockVerdict;

/* Whether a soft limit have meets want (0: no minimum). */
bool memlock_enough(uint64_t have, uint64_t want) _pure_;
/* "8 MiB", or "8 MiB (hard unlimited)" when the hard limit differs; NULL on OOM. */
char *memlock_describe_limit(MemlockLimit l);
/* The login sessions' part: pam_limits' lines for "*" and for each user or group that has its own,
 * and, where no soft line decides, what the program that opens the session hands down. */
int memlock_judge_login(
        const LimitsConf *pam, const MemlockServices *s, uint64_t want, const char *want_s, MemlockVerdict *v);
