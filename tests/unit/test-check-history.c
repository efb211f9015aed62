/* SPDX-License-Identifier: MIT */
/* History in, new history out: qos.<link>.pause judges with the pause samples of the verify before
 * (a const CheckHistory) and writes the new sample into the copy it is given, leaving the before as it
 * was; check_history_copy() owns all it copies. */
#include "check-test.h"
#include "check/check-history.h"
#include "check/check-qos-host.h"
#include "snapshot/snapshot-qos-host.h"

static const char profile_text[] =
        "cluster: c\n"
        "links: { rdma0: { match: { driver: ice }, qos: { pfc: [3] } } }\n"
        "nodes: { head: { hostname: halo-1, links: { rdma0: 10.0.0.1/30 } } }\n";

/* One port's counters as the snapshot holds them: 3's pause frames received, and packets. */
static void judge_pause(
        const NodeContext *c,
        uint64_t pause,
        uint64_t packets,
        const CheckHistory *before,
        CheckHistory *after,
        CheckList *l) {
        FabricPort port = { .link = (char *) "rdma0", .ifname = (char *) "eth9" };
        SnapshotQosHost host = { .ecn_error = -ENOMEDIUM, .rdma_error = -ENOMEDIUM, .cm_error = -ENOMEDIUM };
        SnapshotQosCounters counters = {
                .when = 61 * USEC_PER_SEC,
                .pause = { .known = 1u << 3, .rx = { [3] = pause } },
                .packets = packets,
        };
        Snapshot s = {
                .context = c,
                .parts = SNAPSHOT_PORTS | SNAPSHOT_QOS_HOST | SNAPSHOT_QOS_COUNTERS,
                .ports = &port,
                .n_ports = 1,
                .qos_host = &host,
                .qos_counters = &counters,
        };

        ASSERT_OK(check_qos_host(c, &s, before, after, l));
}

static void test_pause_history(void) {
        _cleanup_(profile_freep) Profile *p = test_profile_load(profile_text);
        _cleanup_(check_history_done) CheckHistory before = {}, after = {};
        _cleanup_(check_list_done) CheckList l = {}, first = {};
        Host h = { .root = "" };
        NodeContext c = { .host = &h, .profile = p, .node = profile_find_node(p, "head") };
        const Check *pause;

        /* halod's first verify: nothing before; the sample goes into after. */
        judge_pause(&c, 10, 1000, &before, &after, &first);
        pause = check_list_find(&first, "qos.rdma0.pause");
        ASSERT_INT_EQ(pause->outcome, CHECK_SKIP);
        ASSERT_TRUE(strstr(pause->summary, "first sample of rdma0 (eth9)"));
        ASSERT_INT_EQ(before.pause.n, 0);
        ASSERT_INT_EQ(pause_history_find(&after.pause, "eth9")->pause, 10);

        /* The next verify judges with it, and leaves its own sample in a copy: the before stays. */
        check_history_done(&before);
        before = after;
        ASSERT_OK(check_history_copy(&before, &after));
        judge_pause(&c, 20, 2000, &before, &after, &l);
        pause = check_list_find(&l, "qos.rdma0.pause");
        ASSERT_INT_EQ(pause->outcome, CHECK_PASS);
        ASSERT_TRUE(strstr(pause->summary, "no pause storm on rdma0 (eth9)"));
        ASSERT_INT_EQ(pause_history_find(&before.pause, "eth9")->pause, 10);
        ASSERT_INT_EQ(pause_history_find(&after.pause, "eth9")->pause, 20);
        ASSERT_INT_EQ(pause_history_find(&after.pause, "eth9")->packets, 2000);
}

/* haloctl check keeps no history: it says so, and writes nothing. */
static void test_no_history(void) {
        _cleanup_(profile_freep) Profile *p = test_profile_load(profile_text);
        _cleanup_(check_list_done) CheckList l = {};
        Host h = { .root = "" };
        NodeContext c = { .host = &h, .profile = p, .node = profile_find_node(p, "head") };

        judge_pause(&c, 10, 1000, NULL, NULL, &l);
        ASSERT_TRUE(strstr(check_list_find(&l, "qos.rdma0.pause")->summary, "haloctl check takes one"));
}

/* A copy owns what it holds: the transport state's peers, their summaries and the last sample's
 * sockets outlive the original. */
static void test_copy(void) {
        _cleanup_(check_history_done) CheckHistory copy = {};
        CheckHistory h = {};
        FabricTransportPeer *peer = calloc(1, sizeof(FabricTransportPeer));

        ASSERT_TRUE(peer);
        *peer = (FabricTransportPeer){ .node = strdup("worker"),
                                       .summary = strdup("TCP fallback"),
                                       .fallback = true };
        h.transport = (FabricTransportState){ .has_sample = true, .peers = peer, .n_peers = 1 };
        h.transport.last.tcp = calloc(2, sizeof(SockDiagTcp));
        ASSERT_TRUE(h.transport.last.tcp);
        h.transport.last.n_tcp = 2;
        h.transport.last.tcp[1].cookie = 42;
        ASSERT_OK(strv_extend(&h.transport.last.rdma_devices, "rxe0/1"));
        ASSERT_OK(pause_history_put(&h.pause, "eth9", 1, 2, 3));

        ASSERT_OK(check_history_copy(&h, &copy));
        check_history_done(&h);
        ASSERT_INT_EQ(copy.pause.n, 1);
        ASSERT_STR_EQ(copy.pause.samples[0].ifname, "eth9");
        ASSERT_INT_EQ(copy.transport.n_peers, 1);
        ASSERT_STR_EQ(copy.transport.peers[0].node, "worker");
        ASSERT_STR_EQ(copy.transport.peers[0].summary, "TCP fallback");
        ASSERT_TRUE(copy.transport.peers[0].fallback);
        ASSERT_INT_EQ(copy.transport.last.n_tcp, 2);
        ASSERT_TRUE(copy.transport.last.tcp[1].cookie == 42);
        ASSERT_STR_EQ(copy.transport.last.rdma_devices[0], "rxe0/1");
}

int main(void) {
        test_pause_history();
        test_no_history();
        test_copy();
        return 0;
}
