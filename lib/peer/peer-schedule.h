/* SPDX-License-Identifier: MIT */
/* Which peers a round of peer checks measures in full: every peer is asked whether it answers in
 * every round, and a bounded window of them, moving round by round, gets the latency and MTU probes. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/macro.h"

/* Peers measured in full per round by halod's rounds (see halod(8), "When the peers are probed"):
 * with up to this many other nodes every round measures them all, as before; beyond, a node's probe
 * cost grows by one small datagram each way per peer and round, and every peer is measured within
 * peer_schedule_cover_rounds() rounds. */
#define PEER_MEASURE_PER_ROUND 4U

/* Marks in ret_measure[0..n) the peers that round measures in full: the per_round peers that start
 * at (round × per_round) mod n, wrapping around, and every peer with forced[i] set (forced may be
 * NULL). per_round 0, or per_round ≥ n, marks every peer. Returns how many are marked: min(per_round,
 * n) plus the forced peers outside the window. */
size_t peer_schedule_measure(size_t n, size_t per_round, uint64_t round, const bool *forced, bool *ret_measure);

/* The number of consecutive rounds, starting at any round, within which peer_schedule_measure()
 * marks every one of n peers at least once: ceil(n / per_round), 1 when it marks all every round (and
 * for n == 0). */
uint64_t peer_schedule_cover_rounds(size_t n, size_t per_round) _pure_;
