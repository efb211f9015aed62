/* SPDX-License-Identifier: MIT */
/* The peer checks judge a round's measurements and nothing else: rounds built here as values (what
 * peer_round_run() would have measured), no responder, no socket, no host read. Each case holds the
 * outcome and words of the checks and the Peers row that such a round yields. */
#include <arpa/inet.h>

#include "check-test.h"
#include "check/check-peer.h"
#include "tests.h"

static const char two_nodes[] =
        "cluster: strix-halo\n"
        "links:\n"
        "  rdma0: { match: { driver: ice }, mtu: 9000 }\n"
        "nodes:\n"
        "  head:   { links: { rdma0: 192.168.100.1/30 } }\n"
        "  worker: { links: { rdma0: 192.168.100.2/30 } }\n";

/* The profile leaves the MTU alone: the MTU run probes the local link's. */
static const char two_nodes_no_mtu[] =
        "cluster: strix-halo\n"
        "links:\n"
        "  rdma0: { match: { driver: ice } }\n"
        "nodes:\n"
        "  head:   { links: { rdma0: 192.168.100.1/30 } }\n"
        "  worker: { links: { rdma0: 192.168.100.2/30 } }\n";

/* An echo run that worker answered in full. */
static PeerProbeResult answered(const PeerRound *round, const char *node) {
        PeerProbeResult res = { .sent = 20, .answered = 20, .rtt_median_usec = 40, .rtt_p99_usec = 90 };

        ASSERT_OK(peer_identity_init(&res.peer, "strix-halo", node, HEALTH_HEALTHY, round->self.digest));
        return res;
}

/* head's round over worker, before anything was measured: what prepare_peers() would set. */
static void round_for_head(const NodeContext *c, PeerRound *ret) {
        PeerRound round = { .enabled = true, .port = 7470, .round_usec = 4000000 };

        ASSERT_OK(peer_neighbours(c->profile, c->node, &round.neighbours, &round.n));
        ASSERT_INT_EQ(round.n, 1);
        round.peers = calloc(1, sizeof(PeerProbed));
        ASSERT_TRUE(round.peers);
        ASSERT_OK(peer_identity_from_profile(c->profile, c->node, HEALTH_STARTING, &round.self));
        round.peers[0] = (PeerProbed){ .n = &round.neighbours[0], .measure = true, .local_mtu_status = -ENOENT };
        (void) inet_ntop(AF_INET, &round.neighbours[0].local, round.peers[0].local, INET_ADDRSTRLEN);
        (void) inet_ntop(AF_INET, &round.neighbours[0].remote, round.peers[0].remote, INET_ADDRSTRLEN);
        *ret = round;
}

/* A measured peer that answered as itself and whose 9000-byte datagrams crossed. */
static void measured_in_full(PeerRound *round) {
        PeerProbed *p = &round->peers[0];

        p->echo = answered(round, "worker");
        p->reachable = true;
        p->mtu = 9000;
        p->mtu_result = (PeerProbeResult){ .sent = 1, .answered = 1 };
}

typedef struct JudgeCase {
        const char *name;
        const char *yaml;
        void (*measure)(PeerRound *round);
        CheckExpect expect[5];
        bool row_reachable;
        bool row_pending;
} JudgeCase;

static void reachable_and_crossed(PeerRound *round) {
        measured_in_full(round);
}

static void still_pending(PeerRound *round) {
        round->peers[0].echo_status = -EINPROGRESS;
}

static void another_node_answers(PeerRound *round) {
        round->peers[0].echo = answered(round, "spare");
}

static void rate_limited(PeerRound *round) {
        round->peers[0].echo = (PeerProbeResult){ .sent = 3, .rate_limited = 3, .last_error = -EBUSY };
}

static void nothing_listens(PeerRound *round) {
        round->peers[0].echo = (PeerProbeResult){ .sent = 3, .last_error = -ECONNREFUSED };
}

static void address_missing(PeerRound *round) {
        round->peers[0].echo_status = -EADDRNOTAVAIL;
}

static void jumbo_lost(PeerRound *round) {
        measured_in_full(round);
        round->peers[0].mtu_result = (PeerProbeResult){ .sent = 3 };
}

static void slow(PeerRound *round) {
        measured_in_full(round);
        round->peers[0].echo.rtt_median_usec = 5000;
}

static void local_mtu_unknown(PeerRound *round) {
        measured_in_full(round);
        round->peers[0].mtu = 0; /* peer_mtu_to_probe(): no MTU to probe */
}

static const JudgeCase cases[] = {
        { "reachable, crossed",
          two_nodes,
          reachable_and_crossed,
          { { "peer.worker.reachable", CHECK_PASS, "worker answers at 192.168.100.2 over rdma0 (20/20 probes)" },
            { "peer.worker.mtu", CHECK_PASS, "9000-byte datagrams cross to worker and back over rdma0" },
            { "peer.worker.latency", CHECK_PASS, "median 40 µs, p99 90 µs over 20 probes" },
            { "peer.worker.profile", CHECK_PASS, "worker runs the same profile" },
            { "peer.worker.rdma", CHECK_SKIP, "Not checked: the profile has no rdma: section" } },
          true,
          false },
        { "pending",
          two_nodes,
          still_pending,
          { { "peer.worker.reachable",
              CHECK_SKIP,
              "was still being probed when this round of peer checks ended after 4.0 s" },
            { "peer.worker.mtu", CHECK_SKIP, "Not probed: the probes of worker are pending" },
            { "peer.worker.latency", CHECK_SKIP, "Not measured: the probes of worker are pending" },
            { "peer.worker.profile", CHECK_SKIP, "Not compared: the probes of worker are pending" },
            { "peer.worker.rdma", CHECK_SKIP, NULL } },
          false,
          true },
        { "another node answers",
          two_nodes,
          another_node_answers,
          { { "peer.worker.reachable", CHECK_FAIL, "192.168.100.2 answers as node 'spare' of cluster 'strix-halo'" },
            { "peer.worker.mtu", CHECK_SKIP, "Not probed: worker does not answer" },
            { "peer.worker.latency", CHECK_SKIP, "Not measured: worker does not answer" },
            { "peer.worker.profile", CHECK_SKIP, "Not compared: worker does not answer" },
            { "peer.worker.rdma", CHECK_SKIP, NULL } },
          false,
          false },
        { "rate-limited",
          two_nodes,
          rate_limited,
          { { "peer.worker.reachable",
              CHECK_FAIL,
              "Rate-limited: worker (192.168.100.2) refused the probes from 192.168.100.1" },
            { "peer.worker.mtu", CHECK_SKIP, "does not answer" } },
          false,
          false },
        { "nothing listens",
          two_nodes,
          nothing_listens,
          { { "peer.worker.reachable", CHECK_FAIL, "Nothing listens on 192.168.100.2 UDP port 7470" } },
          false,
          false },
        { "address missing",
          two_nodes,
          address_missing,
          { { "peer.worker.reachable", CHECK_FAIL, "this node's address is not configured: see the link checks" } },
          false,
          false },
        { "jumbo frames lost",
          two_nodes,
          jumbo_lost,
          { { "peer.worker.reachable", CHECK_PASS, NULL },
            { "peer.worker.mtu",
              CHECK_FAIL,
              "9000-byte datagrams with don't-fragment set do not cross to worker" } },
          true,
          false },
        { "slow",
          two_nodes,
          slow,
          { { "peer.worker.latency", CHECK_WARN, "Round trip to worker is slow or lossy: median 5000 µs" } },
          true,
          false },
        { "local MTU unknown",
          two_nodes_no_mtu,
          local_mtu_unknown,
          { { "peer.worker.mtu",
              CHECK_SKIP,
              "Not probed: the profile sets no MTU for rdma0 and the MTU of its netdev (holding 192.168.100.1) could not "
              "be read" } },
          true,
          false },
};

static void test_cases(void) {
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                const JudgeCase *t = &cases[i];
                _cleanup_(profile_freep) Profile *p = test_profile_load(t->yaml);
                NodeContext c = { .host = &HOST_SYSTEM, .profile = p, .node = profile_find_node(p, "head") };
                _cleanup_(peer_round_done) PeerRound round = {};
                _cleanup_(check_list_done) CheckList l = {};
                PeerStatusList rows = {};
                size_t n = 0;

                round_for_head(&c, &round);
                t->measure(&round);
                ASSERT_OK(check_peers(&c, &round, /* o= */ NULL, &l, &rows));
                ASSERT_INT_EQ(l.n_checks, 5);
                while (n < ELEMENTSOF(t->expect) && t->expect[n].id)
                        n++;
                assert_checks(&l, t->expect, n, t->name);
                ASSERT_INT_EQ(rows.n_peers, 1);
                ASSERT_STR_EQ(rows.peers[0].node, "worker");
                ASSERT_STR_EQ(rows.peers[0].address, "192.168.100.2");
                ASSERT_TRUE(rows.peers[0].reachable == t->row_reachable);
                ASSERT_TRUE(rows.peers[0].pending == t->row_pending);
                peer_status_list_done(&rows);
        }
}

/* An unmeasured peer that answers a liveness probe: its latency and mtu checks and its round trips
 * are the last measurement's; without one, both say so. */
static void test_unmeasured(void) {
        _cleanup_(profile_freep) Profile *p = test_profile_load(two_nodes);
        NodeContext c = { .host = &HOST_SYSTEM, .profile = p, .node = profile_find_node(p, "head") };
        _cleanup_(peer_round_done) PeerRound round = {};
        _cleanup_(check_list_done) CheckList l = {}, again = {};
        PeerStatusList rows = {};
        PeerMeasurement last = {};
        PeerStatus before = { .rtt_median_usec = 41, .rtt_p99_usec = 95 };

        round_for_head(&c, &round);
        round.peers[0].measure = false;
        round.peers[0].echo = answered(&round, "worker");
        round.peers[0].echo.sent = round.peers[0].echo.answered = 1;
        round.peers[0].reachable = true;
        ASSERT_OK(check_peers(&c, &round, /* o= */ NULL, &l, /* ret_status= */ NULL));
        ASSERT_TRUE(strstr(check_list_find(&l, "peer.worker.latency")->summary, "Not measured in this round"));
        ASSERT_TRUE(strstr(check_list_find(&l, "peer.worker.mtu")->summary, "Not measured in this round"));

        last = (PeerMeasurement){
                .valid = true,
                .echo = answered(&round, "worker"),
                .mtu = 9000,
                .mtu_result = { .sent = 1, .answered = 1 },
        };
        round.peers[0].last = &last;
        round.peers[0].previous = &before;
        ASSERT_OK(check_peers(&c, &round, /* o= */ NULL, &again, &rows));
        ASSERT_INT_EQ(check_list_find(&again, "peer.worker.latency")->outcome, CHECK_PASS);
        ASSERT_TRUE(strstr(check_list_find(&again, "peer.worker.latency")->summary, "over 20 probes"));
        ASSERT_INT_EQ(check_list_find(&again, "peer.worker.mtu")->outcome, CHECK_PASS);
        ASSERT_TRUE(strstr(check_list_find(&again, "peer.worker.reachable")->summary, "(1/1 probes)"));
        /* One liveness answer is no latency figure: the row keeps the last measured one. */
        ASSERT_INT_EQ(rows.peers[0].rtt_median_usec, 41);
        ASSERT_INT_EQ(rows.peers[0].rtt_p99_usec, 95);
        ASSERT_TRUE(rows.peers[0].measured.valid);
        ASSERT_INT_EQ(rows.peers[0].measured.mtu, 9000);
        peer_status_list_done(&rows);
}

/* A round that probed nothing: no node to probe from, or names the wire cannot carry. */
static void test_not_probed(void) {
        _cleanup_(profile_freep) Profile *p = test_profile_load(two_nodes);
        NodeContext c = { .host = &HOST_SYSTEM, .profile = p, .node = profile_find_node(p, "head") };
        _cleanup_(peer_round_done) PeerRound round = {};
        _cleanup_(check_list_done) CheckList l = {};
        PeerStatusList rows = {};

        /* Not enabled: no checks, and the rows are emptied. */
        rows.peers = calloc(1, sizeof(PeerStatus));
        ASSERT_TRUE(rows.peers);
        rows.peers[0].node = strdup("worker");
        rows.n_peers = 1;
        ASSERT_OK(check_peers(&c, &round, /* o= */ NULL, &l, &rows));
        ASSERT_INT_EQ(l.n_checks, 0);
        ASSERT_INT_EQ(rows.n_peers, 0);

        round_for_head(&c, &round);
        round.identity_error = -ENAMETOOLONG;
        ASSERT_OK(check_peers(&c, &round, /* o= */ NULL, &l, /* ret_status= */ NULL));
        ASSERT_INT_EQ(l.n_checks, 1);
        ASSERT_INT_EQ(l.checks[0].outcome, CHECK_FAIL);
        ASSERT_TRUE(startswith(l.checks[0].summary, "Cannot probe worker: the cluster and node names must be"));
}

int main(void) {
        test_cases();
        test_unmeasured();
        test_not_probed();
        return 0;
}
