/* SPDX-License-Identifier: MIT */
/* When the Peers property changes (only materially, io.halod1(5)) and what a pending row carries
 * over, as case tables. */
#include <stdlib.h>

#include "basic/macro.h"
#include "check/peer-status-change.h"
#include "tests.h"

typedef struct Row {
        const char *node, *address;
        bool reachable, pending;
        uint64_t median, p99;
} Row;

static void list_from(const Row *rows, size_t n, PeerStatusList *ret) {
        *ret = (PeerStatusList){ .peers = calloc(n ? n : 1, sizeof(PeerStatus)), .n_peers = n };
        ASSERT_TRUE(ret->peers);
        for (size_t i = 0; i < n; i++) {
                ret->peers[i] = (PeerStatus){
                        .node = strdup(rows[i].node),
                        .reachable = rows[i].reachable,
                        .pending = rows[i].pending,
                        .rtt_median_usec = rows[i].median,
                        .rtt_p99_usec = rows[i].p99,
                };
                ASSERT_TRUE(ret->peers[i].node);
                snprintf(ret->peers[i].address, sizeof(ret->peers[i].address), "%s", rows[i].address);
        }
}

static void test_material(void) {
        static const struct {
                Row published, measured;
                bool changed;
        } table[] = {
                { { "b", "10.0.0.2", true, false, 100, 200 }, { "b", "10.0.0.2", true, false, 100, 200 }, false },
                /* Reachability, the node or the address: always. */
                { { "b", "10.0.0.2", true, false, 100, 200 }, { "b", "10.0.0.2", false, false, 100, 200 }, true },
                { { "b", "10.0.0.2", true, false, 100, 200 }, { "c", "10.0.0.2", true, false, 100, 200 }, true },
                { { "b", "10.0.0.2", true, false, 100, 200 }, { "b", "10.0.0.3", true, false, 100, 200 }, true },
                /* A round trip: by more than a quarter and more than 50 µs. */
                { { "b", "10.0.0.2", true, false, 100, 200 }, { "b", "10.0.0.2", true, false, 140, 200 }, false },
                { { "b", "10.0.0.2", true, false, 1000, 2000 },
                  { "b", "10.0.0.2", true, false, 1200, 2000 },
                  false },
                { { "b", "10.0.0.2", true, false, 1000, 2000 },
                  { "b", "10.0.0.2", true, false, 1300, 2000 },
                  true },
                { { "b", "10.0.0.2", true, false, 1000, 2000 },
                  { "b", "10.0.0.2", true, false, 700, 2000 },
                  true },
                { { "b", "10.0.0.2", true, false, 1000, 2000 },
                  { "b", "10.0.0.2", true, false, 1000, 2600 },
                  true },
                /* 60 µs on 100: more than 50 µs and a quarter. */
                { { "b", "10.0.0.2", true, false, 100, 200 }, { "b", "10.0.0.2", true, false, 160, 200 }, true },
        };

        for (size_t i = 0; i < ELEMENTSOF(table); i++) {
                PeerStatusList a, b;

                list_from(&table[i].published, 1, &a);
                list_from(&table[i].measured, 1, &b);
                ASSERT_INT_EQ(peers_changed_materially(&a, &b), table[i].changed);
                peer_status_list_done(&a);
                peer_status_list_done(&b);
        }
}

static void test_rows_set(void) {
        static const Row two[] = { { "b", "10.0.0.2", true, false, 100, 200 },
                                   { "c", "10.0.0.3", true, false, 100, 200 } };
        PeerStatusList a, b, none = {};

        list_from(two, 2, &a);
        list_from(two, 1, &b);
        ASSERT_TRUE(peers_changed_materially(&a, &b));
        ASSERT_TRUE(peers_changed_materially(&none, &b));
        ASSERT_TRUE(!peers_changed_materially(&none, &none));
        peer_status_list_done(&a);
        peer_status_list_done(&b);
}

static void test_carry_pending(void) {
        static const Row previous[] = {
                { "b", "10.0.0.2", true, false, 100, 200 },
                { "c", "10.0.0.3", false, false, 0, 0 },
                { "d", "10.0.0.4", true, false, 300, 400 },
        };
        /* c and d pending, in another order; e pending and unknown before. */
        static const Row measured[] = {
                { "b", "10.0.0.2", true, false, 120, 220 },
                { "d", "10.0.0.4", false, true, 0, 0 },
                { "c", "10.0.0.3", false, true, 0, 0 },
                { "e", "10.0.0.5", false, true, 0, 0 },
        };
        static const Row expected[] = {
                { "b", "10.0.0.2", true, false, 120, 220 },
                { "d", "10.0.0.4", true, true, 300, 400 },
                { "c", "10.0.0.3", false, true, 0, 0 },
                { "e", "10.0.0.5", false, true, 0, 0 },
        };
        PeerStatusList p, m;

        list_from(previous, ELEMENTSOF(previous), &p);
        list_from(measured, ELEMENTSOF(measured), &m);
        peer_status_carry_pending(&p, &m);
        for (size_t i = 0; i < ELEMENTSOF(expected); i++) {
                ASSERT_STR_EQ(m.peers[i].node, expected[i].node);
                ASSERT_INT_EQ(m.peers[i].reachable, expected[i].reachable);
                ASSERT_INT_EQ(m.peers[i].pending, expected[i].pending);
                ASSERT_INT_EQ(m.peers[i].rtt_median_usec, expected[i].median);
                ASSERT_INT_EQ(m.peers[i].rtt_p99_usec, expected[i].p99);
        }
        peer_status_list_done(&p);
        peer_status_list_done(&m);
}

int main(void) {
        test_material();
        test_rows_set();
        test_carry_pending();
        return 0;
}
