/* SPDX-License-Identifier: MIT */
/* The window of peers measured in full per round: its width, its order, and that any
 * peer_schedule_cover_rounds() rounds in a row cover every peer, for every size up to 64 peers. */
#include <string.h>

#include "basic/macro.h"
#include "peer/peer-schedule.h"
#include "tests.h"

#define PEERS_MAX 64U

/* "x.x." for a round's marks. */
static void marks(size_t n, const bool *m, char *buf) {
        for (size_t i = 0; i < n; i++)
                buf[i] = m[i] ? 'x' : '.';
        buf[n] = 0;
}

static size_t count_marked(size_t n, const bool *m) {
        size_t k = 0;

        for (size_t i = 0; i < n; i++)
                k += m[i];
        return k;
}

static void test_windows(void) {
        static const struct {
                size_t n, per_round;
                uint64_t round;
                const char *expected;
        } table[] = {
                /* 31 peers (32 nodes), 4 a round: the window moves by 4 and wraps. */
                { 31, 4, 0, "xxxx..........................." },
                { 31, 4, 1, "....xxxx......................." },
                { 31, 4, 7, "x...........................xxx" },
                { 31, 4, 8, ".xxxx.........................." },
                /* 7 peers (8 nodes): two rounds cover them, the second wraps into the first. */
                { 7, 4, 0, "xxxx..." },
                { 7, 4, 1, "x...xxx" },
                /* 1 peer (2 nodes) and up to per_round peers: all, every round. */
                { 1, 4, 5, "x" },
                { 4, 4, 3, "xxxx" },
                /* per_round 0: all (haloctl check). */
                { 5, 0, 9, "xxxxx" },
        };

        for (size_t i = 0; i < ELEMENTSOF(table); i++) {
                bool m[PEERS_MAX];
                char got[PEERS_MAX + 1];
                size_t k;

                k = peer_schedule_measure(table[i].n, table[i].per_round, table[i].round, NULL, m);
                marks(table[i].n, m, got);
                ASSERT_STR_EQ(got, table[i].expected);
                ASSERT_INT_EQ(k, count_marked(table[i].n, m));
        }
}

static void test_cover_rounds(void) {
        ASSERT_INT_EQ(peer_schedule_cover_rounds(0, 4), 1);
        ASSERT_INT_EQ(peer_schedule_cover_rounds(1, 4), 1);
        ASSERT_INT_EQ(peer_schedule_cover_rounds(4, 4), 1);
        ASSERT_INT_EQ(peer_schedule_cover_rounds(5, 4), 2);
        ASSERT_INT_EQ(peer_schedule_cover_rounds(7, 4), 2);
        ASSERT_INT_EQ(peer_schedule_cover_rounds(31, 4), 8);
        ASSERT_INT_EQ(peer_schedule_cover_rounds(31, 0), 1);
        ASSERT_INT_EQ(peer_schedule_cover_rounds(1000, 1), 1000);
}

/* For every n and width up to PEERS_MAX and every starting round over two turns of the window: each
 * round marks exactly min(per_round, n) peers (the per-round cost bound), and the next
 * peer_schedule_cover_rounds() rounds together mark every peer (no peer waits longer). */
static void test_every_peer_covered(void) {
        for (size_t n = 1; n <= PEERS_MAX; n++)
                for (size_t per_round = 1; per_round <= n + 1; per_round++) {
                        uint64_t cover = peer_schedule_cover_rounds(n, per_round);

                        ASSERT_TRUE(cover * per_round >= n || per_round >= n);
                        for (uint64_t first = 0; first < 2 * n + 3; first++) {
                                bool seen[PEERS_MAX] = {};

                                for (uint64_t r = first; r < first + cover; r++) {
                                        bool m[PEERS_MAX];

                                        ASSERT_INT_EQ(
                                                peer_schedule_measure(n, per_round, r, NULL, m),
                                                per_round < n ? per_round : n);
                                        ASSERT_INT_EQ(count_marked(n, m), per_round < n ? per_round : n);
                                        for (size_t i = 0; i < n; i++)
                                                seen[i] = seen[i] || m[i];
                                }
                                ASSERT_INT_EQ(count_marked(n, seen), n);
                        }
                }
        /* A huge round counter (halod running for years at 1 s retries) does not break the window. */
        {
                bool m[PEERS_MAX];

                ASSERT_INT_EQ(peer_schedule_measure(31, 4, UINT64_MAX, NULL, m), 4);
        }
}

/* Forced peers (never measured, or back after a loss) come on top of the window, not in its place. */
static void test_forced(void) {
        bool forced[31] = {}, m[31];
        char got[32];

        forced[2] = forced[20] = forced[30] = true;
        ASSERT_INT_EQ(peer_schedule_measure(31, 4, 0, forced, m), 6);
        marks(31, m, got);
        ASSERT_STR_EQ(got, "xxxx................x.........x");

        /* All forced (the first round after a start or a reload): everyone, once. */
        for (size_t i = 0; i < ELEMENTSOF(forced); i++)
                forced[i] = true;
        ASSERT_INT_EQ(peer_schedule_measure(31, 4, 3, forced, m), 31);
}

int main(void) {
        test_windows();
        test_cover_rounds();
        test_every_peer_covered();
        test_forced();
        return 0;
}
