/* SPDX-License-Identifier: MIT */
/* The RDMA exchanges of a peer round (peer-round-rdma.c): internal to lib/peer. */
#pragma once

#include "peer/peer-round.h"

/* Exchanges with the measured peers of round that answer, one after the other (the peer's responder
 * serves one probe at a time, and each exchange takes a few round trips), in what is left of the round
 * until deadline (now(CLOCK_MONOTONIC)): their waits are cut to that, and one that cannot start before
 * it is left for the next round (the check repeats the last exchange). Returns -ECANCELED when
 * o->cancel_fd became readable in between, -ENOMEM. */
int peer_round_exchange_rdma(const NodeContext *c, const PeerRoundOptions *o, PeerRound *round, uint64_t deadline);
