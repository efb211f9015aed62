/* SPDX-License-Identifier: MIT */
/* A token bucket per source: how often the peer channel answers one address. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/* The responder's numbers (documented in halod(8), PEER CHANNEL): each of a source's two buckets
 * (its halod's probe port, and every other port) allows a burst of 200 requests, then 100 per
 * second. One verify of a peer costs about 25 (20 latency probes, MTU probes, retries), and `haloctl
 * probe` about 100, so honest peers are never limited; a flood of spoofed requests is answered at
 * 100 replies/s per bucket at most, each no larger than its request. */
#define PEER_RATE_BURST 200U
#define PEER_RATE_PER_SEC 100U
/* A source over its budget gets a rate-limited notice now and then instead of silence: at most this
 * many, each no larger than its request. */
#define PEER_NOTICE_BURST 3U
#define PEER_NOTICE_PER_SEC 1U

typedef struct TokenBucket {
        uint64_t micro_tokens; /* tokens × 1e6, so that refills need no floating point */
        uint64_t last_usec;
        bool started;
} TokenBucket;

/* Refills the bucket for the time passed since the last call (now_usec from a monotonic clock) and
 * takes one token. Returns true when the caller may answer. A clock going backwards refills
 * nothing. */
bool token_bucket_take(TokenBucket *b, unsigned burst, unsigned per_sec, uint64_t now_usec);
