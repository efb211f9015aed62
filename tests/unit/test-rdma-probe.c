/* SPDX-License-Identifier: MIT */
/* The RDMA probe end to end in one process: haloctl's side (rdma_probe()) says rdma-hello over UDP on
 * loopback to a real peer server whose handler is halod's responder; the queue pairs run through the
 * libibverbs test double. Also: busy, a repeated hello, the session timeout, no device, no answer. */
#include <arpa/inet.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "fake-verbs-pair.h"
#include "netns-test.h"
#include "peer/peer-rdma-probe.h"
#include "peer/peer.h"
#include "rdma-probe-peer.h"
#include "rdma/rdma-responder.h"
#include "tests.h"

/* Every queue pair of the run went RESET → INIT → RTR → RTS and nothing else: n of them. */
static void assert_every_qp_connected(size_t n_qps) {
        FakeVerbsTransition t[64];
        size_t n = fake_verbs_transitions(t, ELEMENTSOF(t)), seen = 0;

        ASSERT_TRUE(n <= ELEMENTSOF(t));
        ASSERT_INT_EQ(n, 3 * n_qps);
        for (size_t i = 0; i < n; i++) {
                unsigned step = 0;

                if (t[i].from != IBV_QPS_RESET)
                        continue;
                seen++;
                for (size_t j = i; j < n; j++) {
                        static const enum ibv_qp_state order[] = {
                                IBV_QPS_RESET, IBV_QPS_INIT, IBV_QPS_RTR, IBV_QPS_RTS
                        };

                        if (t[j].qpn != t[i].qpn)
                                continue;
                        ASSERT_TRUE(step < 3);
                        ASSERT_INT_EQ(t[j].from, order[step]);
                        ASSERT_INT_EQ(t[j].to, order[step + 1]);
                        step++;
                }
                ASSERT_INT_EQ(step, 3);
        }
        ASSERT_INT_EQ(seen, n_qps);
}

static void test_probe(void) {
        _cleanup_(rdma_device_freep) RdmaDevice *d = NULL;
        PeerIdentity self = identity("worker");
        RdmaResponder *rr;
        RdmaProbeParams p;
        RdmaProbeResult res;
        RdmaResponderStats st;
        RdmaError e = {};
        Responder r;

        fake_pair_setup();
        rr = rdma_responder(RDMA_RESPONDER_TIMEOUT_USEC_DEFAULT);
        responder_start(&r, rr);
        d = fake_pair_open(FAKE_PAIR_PROBER_IFINDEX);
        p = params(d, &self, r.port);

        ASSERT_OK(rdma_probe(&p, &e, &res));
        ASSERT_INT_EQ(res.peer_status, PEER_RDMA_OK);
        ASSERT_STR_EQ(res.peer.node, "head");
        ASSERT_STR_EQ(res.peer.cluster, "strix-halo");
        ASSERT_INT_EQ(res.gid_index, FAKE_PAIR_GID_INDEX);
        ASSERT_INT_EQ(res.peer_gid_index, FAKE_PAIR_GID_INDEX);
        ASSERT_INT_EQ(res.path_mtu, 1024);
        ASSERT_INT_EQ(res.active_mtu, 4096);
        ASSERT_INT_EQ(res.peer_active_mtu, 1024);
        ASSERT_INT_EQ(res.pings, 100);
        ASSERT_TRUE(res.rtt_min_nsec > 0);
        ASSERT_TRUE(res.rtt_min_nsec <= res.rtt_median_nsec && res.rtt_median_nsec <= res.rtt_p99_nsec);
        ASSERT_TRUE(res.rtt_p99_nsec <= res.rtt_max_nsec);
        ASSERT_INT_EQ(res.write_bytes, 4U << 20);
        ASSERT_TRUE(res.write_nsec > 0);
        /* The bytes went into the responder's memory region, through its rkey. */
        ASSERT_INT_EQ(fake_verbs_bytes_written(), 4U << 20);
        ASSERT_INT_EQ(fake_verbs_sends_delivered(), 2 * 100 + 1);
        assert_every_qp_connected(2);

        /* The bye ended the session; the responder's queue pair is gone at once. */
        st = wait_idle(rr);
        ASSERT_INT_EQ(st.sessions, 1);
        ASSERT_INT_EQ(st.completed, 1);
        ASSERT_INT_EQ(st.failed + st.timed_out + st.busy + st.no_device, 0);
        ASSERT_INT_EQ(fake_verbs_open_objects(), 0);

        /* And the next probe gets a session of its own. */
        ASSERT_OK(rdma_probe(&p, &e, &res));
        ASSERT_INT_EQ(res.peer_status, PEER_RDMA_OK);
        ASSERT_INT_EQ(wait_idle(rr).completed, 2);

        responder_stop(&r);
        ASSERT_INT_EQ(fake_verbs_open_contexts(), 1); /* the prober's device: the responder's went with it */
}

/* A cluster that mixes NICs: an E810 probes a ConnectX. Each end sends from its own RoCE v2 GID index
 * (3 here, 5 there: the double refuses a source GID index its device does not have), and both queue
 * pairs run the smaller active MTU (the double refuses a path MTU above its port's, and a sender's
 * above its receiver's). */
static void test_probe_mixed_nics(void) {
        _cleanup_(rdma_device_freep) RdmaDevice *d = NULL;
        PeerIdentity self = identity("worker");
        RdmaResponder *rr;
        RdmaProbeParams p;
        RdmaProbeResult res;
        RdmaError e = {};
        Responder r;

        fake_pair_setup_mixed();
        rr = rdma_responder(RDMA_RESPONDER_TIMEOUT_USEC_DEFAULT);
        responder_start(&r, rr);
        d = fake_pair_open(FAKE_PAIR_PROBER_IFINDEX);
        p = params(d, &self, r.port);

        ASSERT_OK(rdma_probe(&p, &e, &res));
        ASSERT_INT_EQ(res.peer_status, PEER_RDMA_OK);
        ASSERT_INT_EQ(res.gid_index, FAKE_PAIR_GID_INDEX);
        ASSERT_INT_EQ(res.peer_gid_index, FAKE_PAIR_MIXED_GID_INDEX);
        ASSERT_INT_EQ(res.active_mtu, 4096);
        ASSERT_INT_EQ(res.peer_active_mtu, 2048);
        ASSERT_INT_EQ(res.path_mtu, 2048);
        ASSERT_INT_EQ(res.pings, 100);
        ASSERT_INT_EQ(fake_verbs_bytes_written(), 4U << 20);
        assert_every_qp_connected(2);
        ASSERT_INT_EQ(wait_idle(rr).completed, 1);

        responder_stop(&r);
        ASSERT_INT_EQ(fake_verbs_open_contexts(), 1);
}

/* One session at a time: another hello meanwhile is told "busy", the same hello again gets the same
 * answer (its reply was lost), and a prober that never comes back is torn down at the timeout. */
/* A queue pair of the prober's device, and the hello that offers it. */
static RdmaQp *prober_qp(RdmaDevice *d, PeerRdmaHello *ret_hello) {
        RdmaError e = {};
        RdmaQp *q = NULL;

        ASSERT_OK(rdma_qp_new(d, FAKE_PAIR_GID_INDEX, 4096, false, &e, &q));
        rdma_qp_local(q, ret_hello);
        return q;
}

static void test_busy_and_timeout(void) {
        _cleanup_(rdma_device_freep) RdmaDevice *d = NULL;
        _cleanup_(rdma_qp_freep) RdmaQp *q1 = NULL, *q2 = NULL;
        PeerIdentity self = identity("worker"), peer;
        PeerRdmaHello h1, h2, reply, again;
        RdmaResponder *rr;
        RdmaResponderStats st;
        Responder r;

        fake_pair_setup();
        rr = rdma_responder(1000U * 1000U); /* long enough for the next three hellos under load */
        responder_start(&r, rr);
        d = fake_pair_open(FAKE_PAIR_PROBER_IFINDEX);
        q1 = prober_qp(d, &h1);
        q2 = prober_qp(d, &h2);

        ASSERT_OK(peer_rdma_hello(
                addr("127.0.0.2"), 0, addr("127.0.0.1"), r.port, &self, &h1, 1000000, &peer, &reply));
        ASSERT_INT_EQ(reply.status, PEER_RDMA_OK);
        ASSERT_STR_EQ(peer.node, "head");
        ASSERT_TRUE(reply.qpn != 0 && reply.length == RDMA_QP_EXPOSED_SIZE && reply.rkey != 0);
        ASSERT_TRUE(memcmp(reply.gid, fake_pair_responder_gids[FAKE_PAIR_GID_INDEX].gid.raw, 16) == 0);

        ASSERT_OK(peer_rdma_hello(
                addr("127.0.0.2"), 0, addr("127.0.0.1"), r.port, &self, &h1, 1000000, &peer, &again));
        ASSERT_TRUE(memcmp(&again, &reply, sizeof(reply)) == 0);
        ASSERT_OK(peer_rdma_hello(
                addr("127.0.0.2"), 0, addr("127.0.0.1"), r.port, &self, &h2, 1000000, &peer, &again));
        ASSERT_INT_EQ(again.status, PEER_RDMA_BUSY);

        /* q1 never connects: the session ends at the timeout, freeing its queue pair. */
        st = wait_idle(rr);
        ASSERT_INT_EQ(st.sessions, 1);
        ASSERT_INT_EQ(st.timed_out, 1);
        ASSERT_INT_EQ(st.busy, 1);
        ASSERT_INT_EQ(st.completed, 0);

        /* Then the other prober is welcome. */
        ASSERT_OK(peer_rdma_hello(
                addr("127.0.0.2"), 0, addr("127.0.0.1"), r.port, &self, &h2, 1000000, &peer, &again));
        ASSERT_INT_EQ(again.status, PEER_RDMA_OK);
        /* Stopping the server stops the running session too. */
        responder_stop(&r);
        q1 = rdma_qp_free(q1);
        q2 = rdma_qp_free(q2);
        ASSERT_INT_EQ(fake_verbs_open_objects(), 0);
}

/* halod's peer.<node>.rdma exchange: 8 pings and one RDMA WRITE of the path MTU, the GIDs of both
 * ends in the result. A responder held by another prober's session answers busy: asked once, the
 * probe reports it; allowed to wait, it gets the session once the other one timed out. */
static void test_short_exchange_and_busy(void) {
        _cleanup_(rdma_device_freep) RdmaDevice *d = NULL;
        _cleanup_(rdma_qp_freep) RdmaQp *held = NULL;
        PeerIdentity self = identity("worker"), peer;
        PeerRdmaHello h, reply;
        RdmaResponder *rr;
        RdmaProbeParams p;
        RdmaProbeResult res;
        RdmaError e = {};
        Responder r;

        fake_pair_setup();
        rr = rdma_responder(300U * 1000U);
        responder_start(&r, rr);
        d = fake_pair_open(FAKE_PAIR_PROBER_IFINDEX);
        p = params(d, &self, r.port);
        p.pings = 8;
        p.write_path_mtu = true;

        ASSERT_OK(rdma_probe(&p, &e, &res));
        ASSERT_INT_EQ(res.peer_status, PEER_RDMA_OK);
        ASSERT_INT_EQ(res.pings, 8);
        ASSERT_INT_EQ(res.path_mtu, 1024);
        ASSERT_INT_EQ(res.write_bytes, 1024);
        ASSERT_INT_EQ(fake_verbs_bytes_written(), 1024);
        ASSERT_TRUE(memcmp(&res.peer_gid, fake_pair_responder_gids[FAKE_PAIR_GID_INDEX].gid.raw, 16) == 0);
        ASSERT_TRUE(IN6_IS_ADDR_V4MAPPED(&res.gid));
        ASSERT_INT_EQ(wait_idle(rr).completed, 1);

        /* Another prober holds the responder (it never connects: the session times out). */
        ASSERT_OK(rdma_qp_new(d, FAKE_PAIR_GID_INDEX, 4096, false, &e, &held));
        rdma_qp_local(held, &h);
        ASSERT_OK(peer_rdma_hello(
                addr("127.0.0.2"), 0, addr("127.0.0.1"), r.port, &self, &h, 1000000, &peer, &reply));
        ASSERT_INT_EQ(reply.status, PEER_RDMA_OK);

        p.busy_wait_usec = UINT64_MAX;
        ASSERT_OK(rdma_probe(&p, &e, &res));
        ASSERT_INT_EQ(res.peer_status, PEER_RDMA_BUSY);
        ASSERT_INT_EQ(res.pings, 0);

        /* Far beyond the session's timeout: the wait ends when the responder is free, not at its bound. */
        p.busy_wait_usec = 60U * 1000U * 1000U;
        ASSERT_OK(rdma_probe(&p, &e, &res));
        ASSERT_INT_EQ(res.peer_status, PEER_RDMA_OK);
        ASSERT_INT_EQ(res.pings, 8);
        ASSERT_TRUE(wait_idle(rr).busy >= 2);

        responder_stop(&r);
        held = rdma_qp_free(held);
        ASSERT_INT_EQ(fake_verbs_open_objects(), 0);
}

/* halod's responder looks its device up for each session (rdma_responder_add_lookup()) and holds no
 * context open between sessions: a device that goes away (rdma link delete) is not held up by
 * halod's open uverbs file, and a hello then says no-device. */
static void test_responder_lookup(void) {
        static const Host h = { .root = "" };
        _cleanup_(rdma_device_freep) RdmaDevice *d = NULL;
        PeerIdentity self = identity("worker");
        RdmaResponder *rr = NULL;
        RdmaProbeParams p;
        RdmaProbeResult res;
        RdmaError e = {};
        Responder r;

        fake_pair_setup();
        ASSERT_OK(rdma_responder_new(&rr));
        ASSERT_OK(rdma_responder_add_lookup(
                rr, addr("127.0.0.1"), &h, NULL, FAKE_PAIR_RESPONDER_IFINDEX, RDMA_GID_ROCE_V2));
        ASSERT_INT_EQ(rdma_responder_add_lookup(rr, addr("127.0.0.1"), &h, NULL, 0, RDMA_GID_ROCE_V2), -EINVAL);
        responder_start(&r, rr);
        ASSERT_INT_EQ(fake_verbs_open_contexts(), 0);
        d = fake_pair_open(FAKE_PAIR_PROBER_IFINDEX);
        p = params(d, &self, r.port);
        p.pings = 8;
        p.write_path_mtu = true;

        ASSERT_OK(rdma_probe(&p, &e, &res));
        ASSERT_INT_EQ(res.peer_status, PEER_RDMA_OK);
        ASSERT_INT_EQ(res.pings, 8);
        ASSERT_INT_EQ(wait_idle(rr).completed, 1);
        /* Only the prober's device is open: the responder's went with its session. */
        ASSERT_INT_EQ(fake_verbs_open_contexts(), 1);

        /* And the next session finds it again. */
        ASSERT_OK(rdma_probe(&p, &e, &res));
        ASSERT_INT_EQ(res.peer_status, PEER_RDMA_OK);
        ASSERT_INT_EQ(wait_idle(rr).completed, 2);
        ASSERT_INT_EQ(fake_verbs_open_contexts(), 1);

        responder_stop(&r);
        ASSERT_INT_EQ(fake_verbs_open_objects(), 0);
}

/* A peer without an RDMA device answers so, and the probe reports it without measuring. */
static void test_peer_without_rdma(void) {
        _cleanup_(rdma_device_freep) RdmaDevice *d = NULL;
        PeerIdentity self = identity("worker");
        RdmaProbeParams p;
        RdmaProbeResult res;
        RdmaError e = {};
        Responder r;

        fake_pair_setup();
        responder_start(&r, NULL);
        d = fake_pair_open(FAKE_PAIR_PROBER_IFINDEX);
        p = params(d, &self, r.port);
        ASSERT_OK(rdma_probe(&p, &e, &res));
        ASSERT_INT_EQ(res.peer_status, PEER_RDMA_NO_DEVICE);
        ASSERT_INT_EQ(res.pings, 0);
        ASSERT_STR_EQ(res.peer.node, "head");
        responder_stop(&r);
        ASSERT_INT_EQ(fake_verbs_open_objects(), 0);
}

/* A peer that never answers the hello (a socket that reads nothing): a timeout, said as such. */
static void test_hello_no_answer(void) {
        _cleanup_(rdma_device_freep) RdmaDevice *d = NULL;
        _cleanup_(closep) int fd = -EBADF;
        struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr = addr("127.0.0.1") };
        socklen_t len = sizeof(sa);
        PeerIdentity self = identity("worker");
        RdmaProbeParams p;
        RdmaProbeResult res;
        RdmaError e = {};
        char want[128];

        fake_pair_setup();
        fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        ASSERT_TRUE(fd >= 0);
        ASSERT_TRUE(bind(fd, (struct sockaddr *) &sa, sizeof(sa)) == 0);
        ASSERT_TRUE(getsockname(fd, (struct sockaddr *) &sa, &len) == 0);

        d = fake_pair_open(FAKE_PAIR_PROBER_IFINDEX);
        p = params(d, &self, ntohs(sa.sin_port));
        p.timeout_usec = 50U * 1000U;
        ASSERT_INT_EQ(rdma_probe(&p, &e, &res), -ETIMEDOUT);
        (void) snprintf(
                want, sizeof(want), "RDMA hello to 127.0.0.1 UDP port %u: no answer", ntohs(sa.sin_port));
        ASSERT_TRUE(startswith(e.message, want));
        ASSERT_INT_EQ(fake_verbs_open_objects(), 0);

        /* Three tries of one datagram each, all the same size: padded for the largest reply. */
        for (int i = 0; i < 3; i++) {
                uint8_t buf[PEER_MESSAGE_SIZE_MAX];
                PeerMessage m;
                ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);

                ASSERT_INT_EQ(n, PEER_RDMA_REQUEST_SIZE_MIN);
                ASSERT_OK(peer_message_parse(buf, (size_t) n, &m));
                ASSERT_INT_EQ(m.type, PEER_RDMA_HELLO_REQUEST);
                ASSERT_INT_EQ(m.rdma.gid_index, FAKE_PAIR_GID_INDEX);
        }
        ASSERT_TRUE(recv(fd, &(char){ 0 }, 1, MSG_DONTWAIT) < 0);
}

/* This node has no RoCE v2 GID for the address it would probe from: said with the device and port. */
static void test_no_local_gid(void) {
        _cleanup_(rdma_device_freep) RdmaDevice *d = NULL;
        PeerIdentity self = identity("worker");
        RdmaProbeParams p;
        RdmaProbeResult res;
        RdmaError e = {};

        fake_pair_setup();
        d = fake_pair_open(FAKE_PAIR_PROBER_IFINDEX);
        p = params(d, &self, 7739);
        p.local = addr("127.0.0.3");
        ASSERT_INT_EQ(rdma_probe(&p, &e, &res), -ENOENT);
        ASSERT_STR_EQ(
                e.message,
                "rocep1s0 port 1 has no roce-v2 GID for 127.0.0.3: see 'haloctl check --only rdma.gid'");
}

/* A user of the peer node holds the responder: a session it keeps open (a queue pair that never
 * talks, under a long idle timeout), renewed the moment it ends. A prober that waits its turn gets the
 * session once the holder had its share (200 ms here), and the peer's halod, whose hello comes from
 * its probe port, takes a held session over at once. */
static void test_fair_sharing(void) {
        _cleanup_(rdma_device_freep) RdmaDevice *d = NULL;
        _cleanup_(rdma_qp_freep) RdmaQp *q1 = NULL, *q2 = NULL;
        _cleanup_(closep) int guard = -EBADF;
        PeerIdentity self = identity("worker"), peer;
        PeerRdmaHello h1, h2, reply;
        RdmaResponder *rr;
        RdmaResponderStats st;
        RdmaProbeParams p;
        RdmaProbeResult res;
        RdmaError e = {};
        Responder r;

        fake_pair_setup();
        rr = rdma_responder(3600U * 1000U * 1000U);
        rdma_responder_set_share(rr, 200U * 1000U);
        responder_start(&r, rr);
        d = fake_pair_open(FAKE_PAIR_PROBER_IFINDEX);
        q1 = prober_qp(d, &h1);
        q2 = prober_qp(d, &h2);

        ASSERT_OK(peer_rdma_hello(
                addr("127.0.0.2"), 0, addr("127.0.0.1"), r.port, &self, &h1, 1000000, &peer, &reply));
        ASSERT_INT_EQ(reply.status, PEER_RDMA_OK);

        /* haloctl probe, allowed to wait: served after the holder's share, not after its hour. */
        p = params(d, &self, r.port);
        p.busy_wait_usec = 30U * 1000U * 1000U;
        ASSERT_OK(rdma_probe(&p, &e, &res));
        ASSERT_INT_EQ(res.peer_status, PEER_RDMA_OK);
        ASSERT_INT_EQ(res.pings, 100);

        /* Its bye ends the session on the responder's thread. */
        (void) wait_idle(rr);
        /* The holder again; then the peer's halod from its probe port (held as halod holds it, which
         * takes root here). Asking once, before the session has had its share, it is told busy (a
         * haloctl probe on its node is not cut off by its round); asking on, it takes the session
         * over after the share, not after the holder's hour. */
        ASSERT_OK(peer_rdma_hello(
                addr("127.0.0.2"), 0, addr("127.0.0.1"), r.port, &self, &h2, 1000000, &peer, &reply));
        ASSERT_INT_EQ(reply.status, PEER_RDMA_OK);
        ASSERT_INT_EQ(geteuid(), 0);
        guard = peer_probe_port_hold(r.port);
        ASSERT_OK(guard);
        rdma_responder_set_share(rr, 3600U * 1000U * 1000U);
        p = params(d, &self, r.port);
        p.source_port = peer_probe_port(r.port);
        p.pings = 8;
        p.write_path_mtu = true;
        p.busy_wait_usec = UINT64_MAX;
        ASSERT_OK(rdma_probe(&p, &e, &res));
        ASSERT_INT_EQ(res.peer_status, PEER_RDMA_BUSY);
        rdma_responder_set_share(rr, 200U * 1000U);
        p.busy_wait_usec = 30U * 1000U * 1000U;
        ASSERT_OK(rdma_probe(&p, &e, &res));
        ASSERT_INT_EQ(res.peer_status, PEER_RDMA_OK);

        st = wait_idle(rr);
        fprintf(stderr,
                "sessions %" PRIu64 ", taken over %" PRIu64 ", completed %" PRIu64 ", busy %" PRIu64 "\n",
                st.sessions,
                st.taken_over,
                st.completed,
                st.busy);
        ASSERT_INT_EQ(st.sessions, 4);
        ASSERT_INT_EQ(st.taken_over, 2);
        ASSERT_INT_EQ(st.completed, 2);
        responder_stop(&r);
        q1 = rdma_qp_free(q1);
        q2 = rdma_qp_free(q2);
        ASSERT_INT_EQ(fake_verbs_open_objects(), 0);
}

int main(void) {
        test_private_netns();
        test_probe();
        test_probe_mixed_nics();
        test_busy_and_timeout();
        test_short_exchange_and_busy();
        test_responder_lookup();
        test_peer_without_rdma();
        test_hello_no_answer();
        test_no_local_gid();
        test_fair_sharing();
        return 0;
}
