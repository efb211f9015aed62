/* SPDX-License-Identifier: MIT */
/* Token buckets in integer micro-tokens: exact, and testable with an injected clock. */
#include "peer/peer-ratelimit.h"
#include "basic/time-util.h"

/* A token in micro-tokens: a token a second adds one micro-token a microsecond. */
#define MICRO USEC_PER_SEC

bool token_bucket_take(TokenBucket *b, unsigned burst, unsigned per_sec, uint64_t now_usec) {
        uint64_t cap = (uint64_t) burst * MICRO;

        if (!b->started) {
                /* A new source starts with a full bucket. */
                b->micro_tokens = cap;
                b->last_usec = now_usec;
                b->started = true;
        } else if (now_usec > b->last_usec) {
                uint64_t elapsed = now_usec - b->last_usec;

                /* Saturate instead of overflowing after a long idle time: the bucket is full anyway. */
                if (elapsed >= cap / (per_sec > 0 ? per_sec : 1))
                        b->micro_tokens = cap;
                else {
                        b->micro_tokens += elapsed * per_sec;
                        if (b->micro_tokens > cap)
                                b->micro_tokens = cap;
                }
                b->last_usec = now_usec;
        }

        if (b->micro_tokens < MICRO)
                return false;
        b->micro_tokens -= MICRO;
        return true;
}
