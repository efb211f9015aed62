/* SPDX-License-Identifier: MIT */
/* The responder's token bucket, driven by an injected clock. */
#include "basic/macro.h"
#include "peer/peer-ratelimit.h"
#include "tests.h"

/* Takes as many tokens as the bucket gives at time now; returns how many. */
static unsigned drain(TokenBucket *b, uint64_t now) {
        unsigned n = 0;

        while (token_bucket_take(b, PEER_RATE_BURST, PEER_RATE_PER_SEC, now))
                n++;
        return n;
}

static void test_burst_then_rate(void) {
        TokenBucket b = {};
        uint64_t t = 5000000;

        /* A new source gets the full burst at once, then nothing more at the same instant. */
        ASSERT_INT_EQ(drain(&b, t), PEER_RATE_BURST);
        ASSERT_TRUE(!token_bucket_take(&b, PEER_RATE_BURST, PEER_RATE_PER_SEC, t));

        /* 100/s: one token every 10 ms, none before. */
        ASSERT_TRUE(!token_bucket_take(&b, PEER_RATE_BURST, PEER_RATE_PER_SEC, t + 9999));
        ASSERT_TRUE(token_bucket_take(&b, PEER_RATE_BURST, PEER_RATE_PER_SEC, t + 10000));
        ASSERT_TRUE(!token_bucket_take(&b, PEER_RATE_BURST, PEER_RATE_PER_SEC, t + 10000));

        /* One second later: 100 more. */
        ASSERT_INT_EQ(drain(&b, t + 1010000), PEER_RATE_PER_SEC);
}

static void test_refill_caps(void) {
        TokenBucket b = {};

        ASSERT_INT_EQ(drain(&b, 0), PEER_RATE_BURST);
        /* An hour idle refills to the burst, not beyond, and does not overflow. */
        ASSERT_INT_EQ(drain(&b, 3600ULL * 1000000ULL), PEER_RATE_BURST);
        ASSERT_INT_EQ(drain(&b, UINT64_MAX), PEER_RATE_BURST);
}

static void test_clock_backwards(void) {
        TokenBucket b = {};

        ASSERT_INT_EQ(drain(&b, 10000000), PEER_RATE_BURST);
        /* A clock that goes back refills nothing, and later time counts from the newest reading. */
        ASSERT_INT_EQ(drain(&b, 1000), 0);
        ASSERT_INT_EQ(drain(&b, 10000000 + 50000), 5);
}

/* A steady flood at 1000/s over 10 s gets the burst plus 100/s, no more. */
static void test_flood(void) {
        TokenBucket b = {};
        unsigned answered = 0;

        for (uint64_t t = 0; t < 10000000; t += 1000)
                answered += token_bucket_take(&b, PEER_RATE_BURST, PEER_RATE_PER_SEC, t);
        ASSERT_TRUE(answered >= PEER_RATE_BURST + 999 && answered <= PEER_RATE_BURST + 1000);
}

int main(void) {
        test_burst_then_rate();
        test_refill_caps();
        test_clock_backwards();
        test_flood();
        return 0;
}
