/* SPDX-License-Identifier: MIT */
/* The skip of a peer check whose peer the echo run did not reach, shared by peer.<node>.mtu, .latency,
 * .profile (check-peer.c) and .rdma (check-peer-rdma.c). */
#pragma once

#include <stdbool.h>

#include "check/check.h"

/* Adds id skipped: "<not_done>: <node> does not answer (see peer.<node>.reachable)", or, while the
 * echo run has not ended (pending), "<not_done>: the probes of <node> are pending (...)", with actual
 * "pending" and the check marked pending. */
int check_peer_skip_unanswered(
        CheckList *out, const char *id, const char *not_done, const char *node, bool pending);
