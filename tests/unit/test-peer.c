/* SPDX-License-Identifier: MIT */
/* The responder, the prober and the bulk sink over loopback: what is answered, what is dropped and
 * counted, and the sizes of replies on real sockets. No root needed. */
#include <arpa/inet.h>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "basic/macro.h"
#include "peer/peer-ratelimit.h"
#include "peer/peer.h"
#include "tests.h"

static struct in_addr addr(const char *s) {
        struct in_addr a;

        ASSERT_TRUE(inet_pton(AF_INET, s, &a) == 1);
        return a;
}

static PeerIdentity identity(const char *node) {
        static const uint8_t digest[PEER_DIGEST_SIZE] = { 1, 2, 3 };
        PeerIdentity id;

        ASSERT_OK(peer_identity_init(&id, "strix-halo", node, HEALTH_HEALTHY, digest));
        return id;
}

/* Opens the responder on 127.0.0.1, answering 127.0.0.1 only, on a free port. */
static PeerServer *open_server(uint16_t *ret_port) {
        PeerIdentity self = identity("worker");
        struct in_addr bind_addr = addr("127.0.0.1"), peer = addr("127.0.0.1");

        for (uint16_t port = 20000 + (uint16_t) (getpid() % 20000);; port++) {
                PeerServer *s = NULL;
                int r = peer_server_open(
                        &(PeerEndpoints){
                                .locals = &bind_addr, .n_locals = 1, .port = port, .peers = &peer, .n_peers = 1 },
                        &self,
                        &s);

                if (r == -EADDRINUSE)
                        continue;
                ASSERT_OK(r);
                *ret_port = port;
                return s;
        }
}

/* A client socket on from:from_port (0: any), connected to 127.0.0.1:port. */
static int client(const char *from, uint16_t from_port, uint16_t port) {
        struct sockaddr_in la = { .sin_family = AF_INET, .sin_addr = addr(from), .sin_port = htons(from_port) };
        struct sockaddr_in ra = { .sin_family = AF_INET,
                                  .sin_addr = addr("127.0.0.1"),
                                  .sin_port = htons(port) };
        int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), one = 1;

        ASSERT_TRUE(fd >= 0);
        ASSERT_TRUE(setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) == 0);
        ASSERT_TRUE(bind(fd, (struct sockaddr *) &la, sizeof(la)) == 0);
        ASSERT_TRUE(connect(fd, (struct sockaddr *) &ra, sizeof(ra)) == 0);
        return fd;
}

/* Sends a datagram, lets the server handle it, and returns the size of the answer (-1: none). */
static ssize_t exchange(PeerServer *s, int fd, const void *data, size_t size) {
        static uint8_t answer[PEER_MESSAGE_SIZE_MAX];
        struct pollfd pfd = { .fd = peer_server_fd(s), .events = POLLIN };

        ASSERT_TRUE(send(fd, data, size, 0) == (ssize_t) size);
        ASSERT_TRUE(poll(&pfd, 1, 1000) == 1);
        ASSERT_INT_EQ(peer_server_handle(s), 1);
        return recv(fd, answer, sizeof(answer), MSG_DONTWAIT);
}

static size_t encode_request(PeerMessageType type, size_t size, uint8_t *buf) {
        PeerMessage m = { .type = type, .sequence = 9, .sender = identity("head") };
        size_t n;

        m.padding = size - peer_message_size(&m);
        ASSERT_OK(peer_message_encode(&m, buf, PEER_MESSAGE_SIZE_MAX + 100, &n));
        return n;
}

static void test_drop_and_count(void) {
        static uint8_t buf[PEER_MESSAGE_SIZE_MAX + 100];
        _cleanup_(peer_server_freep) PeerServer *s = NULL;
        _cleanup_(closep) int good = -EBADF, stranger = -EBADF;
        const PeerServerStats *st;
        uint16_t port;
        size_t n;

        s = open_server(&port);
        st = peer_server_stats(s);
        good = client("127.0.0.1", 0, port);
        stranger = client("127.0.0.2", 0, port);

        /* Nothing waiting. */
        ASSERT_INT_EQ(peer_server_handle(s), 0);

        /* An echo request is answered with a short reply; an MTU request with one of its size. */
        n = encode_request(PEER_ECHO_REQUEST, PEER_REQUEST_SIZE_MIN, buf);
        ASSERT_INT_EQ(exchange(s, good, buf, n), 26 + 10 + 6 + 32);
        n = encode_request(PEER_MTU_REQUEST, 8972, buf);
        ASSERT_INT_EQ(exchange(s, good, buf, n), 8972);
        ASSERT_INT_EQ(st->answered, 2);

        /* The same request from an address outside the profile: no answer. */
        n = encode_request(PEER_ECHO_REQUEST, PEER_REQUEST_SIZE_MIN, buf);
        ASSERT_INT_EQ(exchange(s, stranger, buf, n), -1);
        ASSERT_INT_EQ(st->refused_source, 1);

        /* Garbage, a truncated request, an oversized datagram, a reply, a request too short to answer. */
        ASSERT_INT_EQ(exchange(s, good, "GET / HTTP/1.0\r\n\r\n", 18), -1);
        ASSERT_INT_EQ(exchange(s, good, buf, n - 1), -1);
        ASSERT_INT_EQ(st->malformed, 2);
        n = encode_request(PEER_MTU_REQUEST, PEER_MESSAGE_SIZE_MAX + 1 - 1, buf);
        memset(buf + n, 0, 64);
        ASSERT_INT_EQ(exchange(s, good, buf, n + 64), -1);
        ASSERT_INT_EQ(st->oversized, 1);
        n = encode_request(PEER_ECHO_REQUEST, PEER_REQUEST_SIZE_MIN, buf);
        buf[5] = PEER_ECHO_REPLY;
        ASSERT_INT_EQ(exchange(s, good, buf, n), -1);
        ASSERT_INT_EQ(st->not_request, 1);
        n = encode_request(PEER_ECHO_REQUEST, PEER_REQUEST_SIZE_MIN - 1, buf);
        ASSERT_INT_EQ(exchange(s, good, buf, n), -1);
        ASSERT_INT_EQ(st->malformed, 3);
        ASSERT_INT_EQ(st->answered, 2);
}

/* As root (the integration tests), a privileged source port can be used to check that it is refused. */
static void test_privileged_port(void) {
        static uint8_t buf[PEER_MESSAGE_SIZE_MAX];
        _cleanup_(peer_server_freep) PeerServer *s = NULL;
        _cleanup_(closep) int fd = -EBADF;
        uint16_t port;
        size_t n;

        if (geteuid() != 0)
                return;
        s = open_server(&port);
        fd = client("127.0.0.1", 7, port); /* echo(7): answering it could loop forever */
        n = encode_request(PEER_ECHO_REQUEST, PEER_REQUEST_SIZE_MIN, buf);
        ASSERT_INT_EQ(exchange(s, fd, buf, n), -1);
        ASSERT_INT_EQ(peer_server_stats(s)->refused_port, 1);
}

static usec_t frozen_clock(clockid_t clock) {
        return 42;
}

static void test_rate_limit(void) {
        static uint8_t buf[PEER_MESSAGE_SIZE_MAX];
        _cleanup_(peer_server_freep) PeerServer *s = NULL;
        _cleanup_(closep) int fd = -EBADF;
        uint16_t port;
        size_t n;

        s = open_server(&port);
        peer_server_set_clock(s, frozen_clock);
        fd = client("127.0.0.1", 0, port);
        n = encode_request(PEER_ECHO_REQUEST, PEER_REQUEST_SIZE_MIN, buf);
        for (unsigned i = 0; i < PEER_RATE_BURST; i++)
                ASSERT_TRUE(exchange(s, fd, buf, n) > 0);
        /* Time stands still: the bucket is empty. The first few refusals get a rate-limited notice (an
         * echo reply's size: see test-peer-budget.c), then silence. */
        for (unsigned i = 0; i < PEER_NOTICE_BURST; i++)
                ASSERT_INT_EQ(exchange(s, fd, buf, n), 26 + 10 + 6 + 32);
        ASSERT_INT_EQ(exchange(s, fd, buf, n), -1);
        ASSERT_INT_EQ(peer_server_stats(s)->rate_limited, PEER_NOTICE_BURST + 1);
        ASSERT_INT_EQ(peer_server_stats(s)->notices, PEER_NOTICE_BURST);
        ASSERT_INT_EQ(peer_server_stats(s)->answered, PEER_RATE_BURST);
}

/* Runs the servers in a child until killed, so that the blocking prober can be used. */
static pid_t serve_in_child(PeerServer *s, PeerBulkServer *b) {
        pid_t pid = fork_server();

        if (pid > 0)
                return pid;
        for (;;) {
                struct pollfd p[2] = {
                        { .fd = s ? peer_server_fd(s) : -1, .events = POLLIN },
                        { .fd = b ? peer_bulk_server_fd(b) : -1, .events = POLLIN },
                };

                if (poll(p, 2, -1) < 0)
                        _exit(1);
                if (s)
                        while (peer_server_handle(s) > 0)
                                ;
                if (b)
                        (void) peer_bulk_server_handle(b);
        }
}

static void stop_child(pid_t pid) {
        (void) kill(pid, SIGKILL);
        (void) waitpid(pid, NULL, 0);
}

static void test_probe(void) {
        _cleanup_(peer_server_freep) PeerServer *s = NULL;
        PeerIdentity self = identity("head");
        PeerProbeParams p = {
                .local = addr("127.0.0.1"),
                .remote = addr("127.0.0.1"),
                .self = &self,
                .count = 20,
                .timeout_usec = 5000000, /* answers come at once: no busy machine makes one this late */
        };
        PeerProbeResult r;
        pid_t pid;

        s = open_server(&p.port);
        pid = serve_in_child(s, NULL);

        ASSERT_OK(peer_probe(&p, &r));
        ASSERT_INT_EQ(r.sent, 20);
        ASSERT_INT_EQ(r.answered, 20);
        ASSERT_STR_EQ(r.peer.node, "worker");
        ASSERT_STR_EQ(r.peer.cluster, "strix-halo");
        ASSERT_TRUE(r.peer.has_digest && r.peer.digest[2] == 3);
        ASSERT_TRUE(r.rtt_min_usec <= r.rtt_median_usec && r.rtt_median_usec <= r.rtt_p99_usec);
        ASSERT_TRUE(r.rtt_p99_usec <= r.rtt_max_usec && r.rtt_max_usec > 0);

        /* Jumbo and loopback-sized MTU probes cross; one above what the wire format carries is refused. */
        p.mtu = 9000;
        ASSERT_OK(peer_probe(&p, &r));
        ASSERT_INT_EQ(r.answered, 1);
        p.mtu = 70000;
        ASSERT_INT_EQ(peer_probe(&p, &r), -ERANGE);

        /* A source address the responder does not know: three probes, no answer, then it gives up. */
        p.mtu = 0;
        p.local = addr("127.0.0.3");
        p.timeout_usec = 50000;
        ASSERT_OK(peer_probe(&p, &r));
        ASSERT_INT_EQ(r.sent, PEER_PROBE_GIVE_UP);
        ASSERT_INT_EQ(r.answered, 0);

        /* Nothing listening: the port-unreachable error is reported. */
        p.local = addr("127.0.0.1");
        p.port = 9; /* discard: nobody listens on it here */
        ASSERT_OK(peer_probe(&p, &r));
        ASSERT_INT_EQ(r.answered, 0);
        ASSERT_INT_EQ(r.last_error, -ECONNREFUSED);

        /* An address that is not ours cannot be the source. */
        p.local = addr("192.0.2.1");
        ASSERT_INT_EQ(peer_probe(&p, &r), -EADDRNOTAVAIL);

        stop_child(pid);
}

/* A socket bound to address:port that nobody reads: a peer that takes datagrams and never answers,
 * without the port-unreachable error of an address where nothing listens. */
static int silent_peer(const char *address, uint16_t port) {
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr = addr(address), .sin_port = htons(port) };
        int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

        ASSERT_TRUE(fd >= 0);
        ASSERT_TRUE(bind(fd, (struct sockaddr *) &a, sizeof(a)) == 0);
        return fd;
}

/* Many runs at once: an answering peer and silent ones in one round; a round whose deadline cuts its
 * runs short reports them pending; a cancelled round stops. */
static void test_probe_round(void) {
        _cleanup_(peer_server_freep) PeerServer *s = NULL;
        _cleanup_(closep) int silent2 = -EBADF, silent3 = -EBADF, cancel = -EBADF;
        PeerIdentity self = identity("head");
        PeerProbeParams p[3];
        PeerProbeResult r[3];
        PeerProbeRound round = { .deadline = UINT64_MAX, .cancel_fd = -EBADF };
        int status[3];
        uint16_t port;
        pid_t pid;

        s = open_server(&port);
        pid = serve_in_child(s, NULL);
        silent2 = silent_peer("127.0.0.2", port);
        silent3 = silent_peer("127.0.0.3", port);
        for (size_t i = 0; i < ELEMENTSOF(p); i++)
                p[i] = (PeerProbeParams){
                        .local = addr("127.0.0.1"),
                        .port = port,
                        .self = &self,
                        .count = 5,
                        .timeout_usec = 50000,
                };
        p[0].remote = addr("127.0.0.1");
        p[0].timeout_usec = 5000000; /* it answers: no busy machine makes an answer this late */
        p[1].remote = addr("127.0.0.2");
        p[2].remote = addr("127.0.0.3");

        /* No deadline: every run ends, the answering one with all its answers, the silent ones after
         * giving up. One run at a time gives the same results as three at once. */
        for (unsigned in_flight = 1; in_flight <= 3; in_flight += 2) {
                round.in_flight_max = in_flight;
                ASSERT_OK(peer_probe_round(p, ELEMENTSOF(p), &round, status, r));
                ASSERT_INT_EQ(status[0], 0);
                ASSERT_INT_EQ(r[0].answered, 5);
                ASSERT_STR_EQ(r[0].peer.node, "worker");
                for (size_t i = 1; i < 3; i++) {
                        ASSERT_INT_EQ(status[i], 0);
                        ASSERT_INT_EQ(r[i].sent, PEER_PROBE_GIVE_UP);
                        ASSERT_INT_EQ(r[i].answered, 0);
                }
        }

        /* One at a time with a deadline shorter than two silent runs (each needs at least 4 × 50 ms):
         * the last run cannot have ended, and says so. */
        p[0].remote = addr("127.0.0.2");
        p[0].timeout_usec = 50000;
        p[1].remote = addr("127.0.0.3");
        p[2].remote = addr("127.0.0.2");
        round.in_flight_max = 1;
        round.deadline = now(CLOCK_MONOTONIC) + 300000;
        ASSERT_OK(peer_probe_round(p, ELEMENTSOF(p), &round, status, r));
        ASSERT_INT_EQ(status[2], -EINPROGRESS);
        ASSERT_INT_EQ(r[2].answered, 0);

        /* A cancel fd that is readable stops the round. */
        cancel = eventfd(1, EFD_CLOEXEC);
        ASSERT_TRUE(cancel >= 0);
        round = (PeerProbeRound){ .deadline = UINT64_MAX, .cancel_fd = cancel };
        ASSERT_INT_EQ(peer_probe_round(p, ELEMENTSOF(p), &round, status, r), -ECANCELED);

        stop_child(pid);
}

static void test_bulk(void) {
        _cleanup_(peer_bulk_server_freep) PeerBulkServer *b = NULL;
        struct in_addr lo = addr("127.0.0.1"), other = addr("127.0.0.4");
        PeerBulkResult r;
        uint16_t port = 0;
        pid_t pid;

        for (uint16_t p = 40000 + (uint16_t) (getpid() % 20000);; p++) {
                int k = peer_bulk_server_open(
                        &(PeerEndpoints){ .locals = &lo, .n_locals = 1, .port = p, .peers = &lo, .n_peers = 1 },
                        &b);
                if (k == -EADDRINUSE)
                        continue;
                ASSERT_OK(k);
                port = p;
                break;
        }
        pid = serve_in_child(NULL, b);

        /* Bounded by bytes. */
        ASSERT_OK(peer_bulk_send(&lo, &lo, port, 64U << 20, 10000000, /* privileged= */ false, &r));
        ASSERT_TRUE(r.bytes == 64U << 20);
        ASSERT_TRUE(r.usec > 0);
        /* Bounded by time: stops after 300 ms, not before. Had it gone on, the sink would have cut it
         * off at PEER_BULK_SERVER_TIME_MAX_USEC without a count, and the send would fail. */
        ASSERT_OK(peer_bulk_send(&lo, &lo, port, UINT64_MAX, 300000, /* privileged= */ false, &r));
        ASSERT_TRUE(r.bytes > 0);
        ASSERT_TRUE(r.usec >= 300000);
        /* Not a profile peer: closed without a count (busy, and the header's deadline: see
         * test-peer-sink.c). */
        ASSERT_INT_EQ(
                peer_bulk_send(&other, &lo, port, 1U << 20, 1000000, /* privileged= */ false, &r),
                -ECONNRESET);
        /* Nothing listening. */
        ASSERT_INT_EQ(
                peer_bulk_send(&lo, &lo, 9, 1U << 20, 1000000, /* privileged= */ false, &r), -ECONNREFUSED);

        stop_child(pid);
}

static void test_percentile(void) {
        static const uint64_t v[] = { 10, 20, 30, 40, 50, 60, 70, 80, 90, 100 };

        ASSERT_INT_EQ(percentile_usec(v, 0, 50), 0);
        ASSERT_INT_EQ(percentile_usec(v, 1, 99), 10);
        ASSERT_INT_EQ(percentile_usec(v, 10, 50), 50);
        ASSERT_INT_EQ(percentile_usec(v, 10, 99), 100);
        ASSERT_INT_EQ(percentile_usec(v, 10, 90), 90);
        ASSERT_INT_EQ(percentile_usec(v, 9, 50), 50);
}

int main(void) {
        test_percentile();
        test_drop_and_count();
        test_privileged_port();
        test_rate_limit();
        test_probe();
        test_probe_round();
        test_bulk();
        return 0;
}
