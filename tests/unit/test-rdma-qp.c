/* SPDX-License-Identifier: MIT */
/* The RDMA probe through the libibverbs test double: two fake devices wired to each other in one
 * process, queue pairs through RESET → INIT → RTR → RTS, ping-pong, RDMA WRITE, and the failures a
 * user must be told about (a wrong attribute mask, a bad GID index, a peer that does not answer). */
#include <arpa/inet.h>
#include <pthread.h>
#include <unistd.h>

#include "basic/time-util.h"
#include "fake-verbs-pair.h"
#include "fake-verbs.h"
#include "rdma/rdma-qp-internal.h"
#include "rdma/rdma.h"
#include "tests.h"

typedef struct Server {
        RdmaQp *qp;
        uint64_t idle_usec, deadline_usec;
        atomic_bool stop;
        int result;
        RdmaError error;
        pthread_t thread;
} Server;

static void *serve(void *userdata) {
        Server *s = userdata;

        s->result = rdma_qp_serve(s->qp, s->idle_usec, s->deadline_usec, &s->stop, &s->error);
        return NULL;
}

/* Serves until idle_usec pass without a message, or deadline_usec from now. */
static void server_start(Server *s, RdmaQp *qp, uint64_t idle_usec, uint64_t deadline_usec) {
        *s = (Server){ .qp = qp, .idle_usec = idle_usec, .deadline_usec = now(CLOCK_MONOTONIC) + deadline_usec };
        ASSERT_INT_EQ(pthread_create(&s->thread, NULL, serve, s), 0);
}

static int server_join(Server *s) {
        ASSERT_INT_EQ(pthread_join(s->thread, NULL), 0);
        return s->result;
}

/* Every QP went RESET → INIT → RTR → RTS, in that order, and nothing else. */
static void assert_transitions(uint32_t qpn) {
        static const enum ibv_qp_state want[][2] = {
                { IBV_QPS_RESET, IBV_QPS_INIT },
                { IBV_QPS_INIT, IBV_QPS_RTR },
                { IBV_QPS_RTR, IBV_QPS_RTS },
        };
        FakeVerbsTransition t[64];
        size_t n = fake_verbs_transitions(t, ELEMENTSOF(t)), k = 0;

        ASSERT_TRUE(n <= ELEMENTSOF(t));
        for (size_t i = 0; i < n; i++) {
                if (t[i].qpn != qpn)
                        continue;
                ASSERT_TRUE(k < ELEMENTSOF(want));
                ASSERT_INT_EQ(t[i].from, want[k][0]);
                ASSERT_INT_EQ(t[i].to, want[k][1]);
                k++;
        }
        ASSERT_INT_EQ(k, ELEMENTSOF(want));
}

static void test_pair(void) {
        _cleanup_(rdma_device_freep) RdmaDevice *a = NULL, *b = NULL;
        RdmaQp *prober = NULL, *responder = NULL;
        PeerRdmaHello pa, pb;
        RdmaWriteResult w;
        RdmaError e = {};
        uint64_t rtts[50];
        Server s;
        uint8_t *area;
        size_t size;

        fake_pair_setup();
        a = fake_pair_open(FAKE_PAIR_PROBER_IFINDEX);
        b = fake_pair_open(FAKE_PAIR_RESPONDER_IFINDEX);
        ASSERT_STR_EQ(a->name, "rocep1s0");
        ASSERT_STR_EQ(b->name, "rocep2s0");

        ASSERT_OK(rdma_qp_new(a, FAKE_PAIR_GID_INDEX, RDMA_QP_WRITE_CHUNK, false, &e, &prober));
        ASSERT_OK(rdma_qp_new(b, FAKE_PAIR_GID_INDEX, RDMA_QP_EXPOSED_SIZE, true, &e, &responder));
        ASSERT_STR_EQ(rdma_qp_state_name(prober), "INIT");
        ASSERT_STR_EQ(rdma_qp_state_name(responder), "INIT");

        /* What each end tells the other: its own QPN, a 24-bit PSN, its GID entry, its active MTU,
         * and only the responder a buffer. */
        rdma_qp_local(prober, &pa);
        rdma_qp_local(responder, &pb);
        ASSERT_INT_EQ(pa.qpn, rdma_qp_number(prober));
        ASSERT_TRUE(pa.psn <= 0xffffff && pb.psn <= 0xffffff);
        ASSERT_INT_EQ(pa.gid_index, FAKE_PAIR_GID_INDEX);
        ASSERT_TRUE(memcmp(pa.gid, fake_pair_prober_gids[FAKE_PAIR_GID_INDEX].gid.raw, 16) == 0);
        ASSERT_TRUE(memcmp(pb.gid, fake_pair_responder_gids[FAKE_PAIR_GID_INDEX].gid.raw, 16) == 0);
        ASSERT_INT_EQ(pa.mtu, 4096);
        ASSERT_INT_EQ(pb.mtu, 1024);
        ASSERT_TRUE(pa.length == 0 && pa.rkey == 0 && pa.addr == 0);
        ASSERT_INT_EQ(pb.length, RDMA_QP_EXPOSED_SIZE);
        ASSERT_TRUE(pb.rkey != 0 && pb.addr != 0);

        ASSERT_OK(rdma_qp_connect(responder, &pa, &e));
        ASSERT_OK(rdma_qp_connect(prober, &pb, &e));
        ASSERT_STR_EQ(rdma_qp_state_name(prober), "RTS");
        ASSERT_STR_EQ(rdma_qp_state_name(responder), "RTS");
        assert_transitions(pa.qpn);
        assert_transitions(pb.qpn);

        server_start(&s, responder, 10U * 1000U * 1000U, 10U * 1000U * 1000U);
        ASSERT_OK(rdma_qp_ping(prober, ELEMENTSOF(rtts), 1000U * 1000U, &e, rtts));
        for (size_t i = 0; i < ELEMENTSOF(rtts); i++)
                ASSERT_TRUE(rtts[i] > 0);

        ASSERT_OK(rdma_qp_write_run(prober, 4U << 20, 5U * 1000U * 1000U, &e, &w));
        ASSERT_INT_EQ(w.bytes, 4U << 20);
        ASSERT_INT_EQ(w.writes, (4U << 20) / RDMA_QP_WRITE_CHUNK);
        ASSERT_TRUE(w.nsec > 0);
        ASSERT_INT_EQ(fake_verbs_bytes_written(), w.bytes);

        ASSERT_OK(rdma_qp_bye(prober, 1000U * 1000U, &e));
        ASSERT_OK(server_join(&s));
        /* 50 pings, 50 echoes, the bye. */
        ASSERT_INT_EQ(fake_verbs_sends_delivered(), 2 * ELEMENTSOF(rtts) + 1);

        /* The bytes arrived: every chunk of the exposed buffer holds the prober's pattern. */
        area = rdma_qp_write_area(responder, &size);
        ASSERT_INT_EQ(size, RDMA_QP_EXPOSED_SIZE);
        for (size_t i = 0; i < size; i++)
                ASSERT_INT_EQ(area[i], (uint8_t) ((i % RDMA_QP_WRITE_CHUNK) * 7U + 1U));

        prober = rdma_qp_free(prober);
        responder = rdma_qp_free(responder);
        ASSERT_INT_EQ(fake_verbs_open_objects(), 0);
}

static void test_wrong_mask(void) {
        _cleanup_(rdma_device_freep) RdmaDevice *a = NULL;
        _cleanup_(rdma_qp_freep) RdmaQp *q = NULL;
        struct ibv_qp_attr attr = {
                .path_mtu = IBV_MTU_1024,
                .dest_qp_num = 0x42,
                .max_dest_rd_atomic = 1,
                .min_rnr_timer = 12,
                .ah_attr = { .is_global = 1,
                             .grh = { .sgid_index = FAKE_PAIR_GID_INDEX, .hop_limit = 64 },
                             .port_num = 1 },
        };
        int rtr = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
        RdmaError e = {};

        fake_pair_setup();
        a = fake_pair_open(FAKE_PAIR_PROBER_IFINDEX);
        ASSERT_OK(rdma_qp_new(a, FAKE_PAIR_GID_INDEX, 4096, false, &e, &q));

        /* A missing required attribute (the RNR timer), an attribute RTR does not take (the send
         * PSN), a skipped state (INIT → RTS): each refused, with the step and the state named, and
         * the queue pair left in INIT. */
        ASSERT_INT_EQ(rdma_qp_modify(q, IBV_QPS_RTR, &attr, rtr & ~IBV_QP_MIN_RNR_TIMER, &e), -EINVAL);
        ASSERT_TRUE(startswith(e.message, "ibv_modify_qp to RTR failed: Invalid argument"));
        ASSERT_TRUE(strstr(e.message, "rocep1s0 port 1 is in INIT") != NULL);
        ASSERT_STR_EQ(rdma_qp_state_name(q), "INIT");
        ASSERT_INT_EQ(rdma_qp_modify(q, IBV_QPS_RTR, &attr, rtr | IBV_QP_SQ_PSN, &e), -EINVAL);
        ASSERT_INT_EQ(
                rdma_qp_modify(
                        q,
                        IBV_QPS_RTS,
                        &attr,
                        IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
                                IBV_QP_MAX_QP_RD_ATOMIC,
                        &e),
                -EINVAL);
        ASSERT_TRUE(startswith(e.message, "ibv_modify_qp to RTS failed"));
        ASSERT_STR_EQ(rdma_qp_state_name(q), "INIT");

        /* RoCE needs the global route header; and the right mask then works. */
        attr.ah_attr.is_global = 0;
        ASSERT_INT_EQ(rdma_qp_modify(q, IBV_QPS_RTR, &attr, rtr, &e), -EINVAL);
        attr.ah_attr.is_global = 1;
        ASSERT_OK(rdma_qp_modify(q, IBV_QPS_RTR, &attr, rtr, &e));
        ASSERT_STR_EQ(rdma_qp_state_name(q), "RTR");
}

static void test_bad_gid_index(void) {
        _cleanup_(rdma_device_freep) RdmaDevice *a = NULL;
        RdmaQp *q = NULL;
        RdmaError e = {};

        fake_pair_setup();
        a = fake_pair_open(FAKE_PAIR_PROBER_IFINDEX);
        ASSERT_INT_EQ(rdma_qp_new(a, 9, 4096, false, &e, &q), -EINVAL);
        ASSERT_TRUE(q == NULL);
        ASSERT_TRUE(startswith(e.message, "GID index 9 of rocep1s0 port 1: no such entry."));
        ASSERT_TRUE(strstr(e.message, "rdma.gid") != NULL);
        ASSERT_INT_EQ(fake_verbs_open_objects(), 0);
}

/* A peer whose details are wrong (here: the PSN it expects) never acknowledges: the transport gives
 * up, and the user hears why. */
static void test_wrong_psn(void) {
        _cleanup_(rdma_device_freep) RdmaDevice *a = NULL, *b = NULL;
        _cleanup_(rdma_qp_freep) RdmaQp *prober = NULL, *responder = NULL;
        PeerRdmaHello pa, pb;
        RdmaError e = {};
        uint64_t rtt;

        fake_pair_setup();
        a = fake_pair_open(FAKE_PAIR_PROBER_IFINDEX);
        b = fake_pair_open(FAKE_PAIR_RESPONDER_IFINDEX);
        ASSERT_OK(rdma_qp_new(a, FAKE_PAIR_GID_INDEX, 4096, false, &e, &prober));
        ASSERT_OK(rdma_qp_new(b, FAKE_PAIR_GID_INDEX, 4096, true, &e, &responder));
        rdma_qp_local(prober, &pa);
        rdma_qp_local(responder, &pb);
        pa.psn = (pa.psn + 1) & 0xffffff;
        ASSERT_OK(rdma_qp_connect(responder, &pa, &e));
        ASSERT_OK(rdma_qp_connect(prober, &pb, &e));

        ASSERT_INT_EQ(rdma_qp_ping(prober, 1, 100U * 1000U, &e, &rtt), -EIO);
        ASSERT_TRUE(strstr(e.message, "transport retry counter exceeded") != NULL);
        ASSERT_TRUE(strstr(e.message, "does not answer") != NULL);
        ASSERT_STR_EQ(rdma_qp_state_name(prober), "ERR");
}

/* A responder whose prober never comes stops when it has been silent too long, or at the deadline,
 * whichever comes first, and says which. */
static void test_serve_timeout(void) {
        _cleanup_(rdma_device_freep) RdmaDevice *b = NULL;
        _cleanup_(rdma_qp_freep) RdmaQp *q = NULL;
        RdmaError e = {};
        uint64_t start;

        fake_pair_setup();
        b = fake_pair_open(FAKE_PAIR_RESPONDER_IFINDEX);
        ASSERT_OK(rdma_qp_new(b, FAKE_PAIR_GID_INDEX, 4096, true, &e, &q));
        start = now(CLOCK_MONOTONIC);
        ASSERT_INT_EQ(rdma_qp_serve(q, 50 * USEC_PER_MSEC, start + 3600 * USEC_PER_SEC, NULL, &e), -ETIMEDOUT);
        ASSERT_TRUE(now(CLOCK_MONOTONIC) - start >= 50 * USEC_PER_MSEC);
        ASSERT_STR_EQ(e.message, "The prober went silent before its bye.");
        start = now(CLOCK_MONOTONIC);
        ASSERT_INT_EQ(rdma_qp_serve(q, 3600 * USEC_PER_SEC, start + 50 * USEC_PER_MSEC, NULL, &e), -ETIMEDOUT);
        ASSERT_TRUE(now(CLOCK_MONOTONIC) - start >= 50 * USEC_PER_MSEC);
        ASSERT_STR_EQ(e.message, "The prober did not finish in time.");
}

/* A prober on a slow path keeps talking for longer than the idle timeout in all, never falling
 * silent for that long: it is served to its bye. A session that ended a fixed time after the hello
 * cut such probes off mid-ping (what 1000 pings over soft-RoCE under QEMU's emulator did in the vm
 * suite, tests/vm). */
static void test_serve_slow_prober(void) {
        _cleanup_(rdma_device_freep) RdmaDevice *a = NULL, *b = NULL;
        _cleanup_(rdma_qp_freep) RdmaQp *prober = NULL, *responder = NULL;
        /* Long enough that the half of it the prober sleeps, plus the scheduling delay of a loaded
         * machine, stays under it: at 200 ms a busy 2-core machine let a round come too late. */
        const uint64_t idle = 2 * USEC_PER_SEC;
        PeerRdmaHello pa, pb;
        RdmaError e = {};
        uint64_t rtts[4];
        Server s;

        fake_pair_setup();
        a = fake_pair_open(FAKE_PAIR_PROBER_IFINDEX);
        b = fake_pair_open(FAKE_PAIR_RESPONDER_IFINDEX);
        ASSERT_OK(rdma_qp_new(a, FAKE_PAIR_GID_INDEX, 4096, false, &e, &prober));
        ASSERT_OK(rdma_qp_new(b, FAKE_PAIR_GID_INDEX, 4096, true, &e, &responder));
        rdma_qp_local(prober, &pa);
        rdma_qp_local(responder, &pb);
        ASSERT_OK(rdma_qp_connect(responder, &pa, &e));
        ASSERT_OK(rdma_qp_connect(prober, &pb, &e));

        server_start(&s, responder, idle, 3600 * USEC_PER_SEC);
        /* Three rounds, each after half the idle timeout: one and a half idle timeouts in all. */
        for (unsigned round = 0; round < 3; round++) {
                ASSERT_INT_EQ(usleep(idle / 2), 0);
                ASSERT_OK(rdma_qp_ping(prober, ELEMENTSOF(rtts), 1000U * 1000U, &e, rtts));
        }
        ASSERT_OK(rdma_qp_bye(prober, 1000U * 1000U, &e));
        ASSERT_OK(server_join(&s));
}

/* Every region that takes remote writes covers exactly the window the hello advertises: the range
 * the peer may write is the one it was told about, and nothing of the message slots. */
static void assert_remote_write_window(const PeerRdmaHello *h) {
        FakeVerbsMr mrs[8];
        size_t n = fake_verbs_memory_regions(mrs, ELEMENTSOF(mrs)), remote = 0;

        ASSERT_TRUE(n > 0 && n <= ELEMENTSOF(mrs));
        for (size_t i = 0; i < n; i++) {
                if (!(mrs[i].access & IBV_ACCESS_REMOTE_WRITE))
                        continue;
                remote++;
                ASSERT_INT_EQ((uintptr_t) mrs[i].addr, h->addr);
                ASSERT_INT_EQ(mrs[i].length, h->length);
                ASSERT_INT_EQ(mrs[i].rkey, h->rkey);
        }
        ASSERT_INT_EQ(remote, 1);
}

/* A peer that holds the advertised rkey and aims an RDMA WRITE just below the advertised window, at
 * the responder's send slots, is refused by the adapter (remote access error), and the slots keep
 * what they held. */
static void test_write_outside_window(void) {
        _cleanup_(rdma_device_freep) RdmaDevice *a = NULL, *b = NULL;
        RdmaQp *prober = NULL, *responder = NULL;
        PeerRdmaHello pa, pb;
        RdmaWriteResult w;
        RdmaError e = {};
        uint8_t slots[RDMA_CONTROL_SIZE];

        fake_pair_setup();
        a = fake_pair_open(FAKE_PAIR_PROBER_IFINDEX);
        b = fake_pair_open(FAKE_PAIR_RESPONDER_IFINDEX);
        ASSERT_OK(rdma_qp_new(a, FAKE_PAIR_GID_INDEX, RDMA_QP_WRITE_CHUNK, false, &e, &prober));
        ASSERT_OK(rdma_qp_new(b, FAKE_PAIR_GID_INDEX, RDMA_QP_EXPOSED_SIZE, true, &e, &responder));
        rdma_qp_local(prober, &pa);
        rdma_qp_local(responder, &pb);
        assert_remote_write_window(&pb);
        /* The prober exposes nothing: none of its regions takes remote writes. */
        ASSERT_INT_EQ(pa.rkey, 0);

        ASSERT_OK(rdma_qp_connect(responder, &pa, &e));
        ASSERT_OK(rdma_qp_connect(prober, &pb, &e));
        memcpy(slots, responder->buffer, sizeof(slots));

        /* The same rkey, one slot's worth below the window. */
        pb.addr -= RDMA_MSG_SIZE;
        pb.length = RDMA_MSG_SIZE;
        prober->remote = pb;
        ASSERT_INT_EQ(rdma_qp_write_run(prober, RDMA_MSG_SIZE, 1000U * 1000U, &e, &w), -EIO);
        ASSERT_INT_EQ(fake_verbs_bytes_written(), 0);
        ASSERT_TRUE(memcmp(slots, responder->buffer, sizeof(slots)) == 0);

        prober = rdma_qp_free(prober);
        responder = rdma_qp_free(responder);
        ASSERT_INT_EQ(fake_verbs_open_objects(), 0);
}

int main(void) {
        test_pair();
        test_wrong_mask();
        test_bad_gid_index();
        test_wrong_psn();
        test_serve_timeout();
        test_serve_slow_prober();
        test_write_outside_window();
        return 0;
}
