/* SPDX-License-Identifier: MIT */
/* The throughput sink's one slot over loopback: a client that sends part of the header and waits is
 * dropped at the header's deadline, one that trickles after it for want of progress, a sender that
 * comes while the slot is held is told "busy", and one from a privileged port takes the slot over. */
#include <arpa/inet.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>

#include "basic/macro.h"
#include "peer/peer.h"
#include "tests.h"

static struct in_addr loopback(void) {
        return (struct in_addr){ .s_addr = htonl(INADDR_LOOPBACK) };
}

static PeerBulkServer *open_sink(uint16_t *ret_port) {
        struct in_addr lo = loopback();

        for (uint16_t p = 42000 + (uint16_t) (getpid() % 20000);; p++) {
                PeerBulkServer *b = NULL;
                int r = peer_bulk_server_open(
                        &(PeerEndpoints){ .locals = &lo, .n_locals = 1, .port = p, .peers = &lo, .n_peers = 1 },
                        &b);

                if (r == -EADDRINUSE)
                        continue;
                ASSERT_OK(r);
                *ret_port = p;
                return b;
        }
}

static pid_t serve_in_child(PeerBulkServer *b) {
        pid_t pid = fork_server();

        if (pid > 0)
                return pid;
        for (;;) {
                struct pollfd p = { .fd = peer_bulk_server_fd(b), .events = POLLIN };

                if (poll(&p, 1, -1) < 0)
                        _exit(1);
                (void) peer_bulk_server_handle(b);
        }
}

static void stop_child(pid_t pid) {
        (void) kill(pid, SIGKILL);
        (void) waitpid(pid, NULL, 0);
}

/* A client from 127.0.0.1 that sends the first 4 of the 8 header bytes and then waits. The sink
 * accepts connections in order: once a sender after this one got an answer, this one was seen. */
static int stalled_client(uint16_t port) {
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr = loopback(), .sin_port = htons(port) };
        /* Only a guard against a sink that never drops it: the test's order does not depend on it. */
        struct timeval guard = { .tv_sec = 60 };
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

        ASSERT_TRUE(fd >= 0);
        ASSERT_TRUE(setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &guard, sizeof(guard)) == 0);
        ASSERT_TRUE(connect(fd, (struct sockaddr *) &a, sizeof(a)) == 0);
        ASSERT_TRUE(send(fd, "HALO", 4, MSG_NOSIGNAL) == 4);
        return fd;
}

/* Whether the sink dropped fd: the end of stream, or a reset, and never a count. */
static bool dropped(int fd) {
        char buf[8];
        ssize_t n = recv(fd, buf, sizeof(buf), 0);

        return n == 0 || (n < 0 && errno == ECONNRESET);
}

/* While the slot is held (a header deadline that does not end during the test), a sender is told
 * busy; after the holder went, the slot serves again. */
static void test_busy(void) {
        _cleanup_(peer_bulk_server_freep) PeerBulkServer *b = NULL;
        _cleanup_(closep) int stalled = -EBADF;
        struct in_addr lo = loopback();
        PeerBulkResult r;
        uint16_t port;
        pid_t pid;

        b = open_sink(&port);
        peer_bulk_server_set_header_deadline(b, 3600 * USEC_PER_SEC);
        pid = serve_in_child(b);

        stalled = stalled_client(port);
        ASSERT_INT_EQ(peer_bulk_send(&lo, &lo, port, 1U << 20, 1000000, /* privileged= */ false, &r), -EBUSY);
        /* A whole transfer that is tiny, so that it is done before the sink is busy again. */
        ASSERT_INT_EQ(peer_bulk_send(&lo, &lo, port, 0, 1000000, /* privileged= */ false, &r), -EBUSY);

        stalled = safe_close(stalled);
        /* The sink notices the close on its next read: a sender may still find it busy once. */
        for (int k; (k = peer_bulk_send(&lo, &lo, port, 1U << 20, 1000000, /* privileged= */ false, &r)) != 0;)
                ASSERT_INT_EQ(k, -EBUSY);
        ASSERT_TRUE(r.bytes == 1U << 20);

        stop_child(pid);
}

/* With the default header deadline, the stalled client is dropped, and a sender is served: either
 * at once (the client was already gone) or after a busy answer. */
static void test_header_deadline(void) {
        _cleanup_(peer_bulk_server_freep) PeerBulkServer *b = NULL;
        _cleanup_(closep) int stalled = -EBADF;
        struct in_addr lo = loopback();
        PeerBulkResult r;
        unsigned busy = 0;
        uint16_t port;
        pid_t pid;
        int k;

        b = open_sink(&port);
        pid = serve_in_child(b);

        stalled = stalled_client(port);
        while ((k = peer_bulk_send(&lo, &lo, port, 1U << 20, 1000000, /* privileged= */ false, &r)) == -EBUSY)
                busy++;
        ASSERT_OK(k);
        ASSERT_TRUE(r.bytes == 1U << 20);
        /* Served: so the slot was free, and the stalled client had been dropped without a count. */
        ASSERT_TRUE(dropped(stalled));
        fprintf(stderr, "sender found the sink busy %u times before the stalled client was dropped\n", busy);

        /* A client that sends nothing at all is dropped the same way. */
        stalled = safe_close(stalled);
        stalled = stalled_client(port);
        ASSERT_TRUE(dropped(stalled));
        ASSERT_OK(peer_bulk_send(&lo, &lo, port, 1U << 20, 1000000, /* privileged= */ false, &r));

        stop_child(pid);
}

typedef struct SinkThread {
        PeerBulkServer *sink;
        atomic_bool stop;
        pthread_t thread;
} SinkThread;

static void *sink_run(void *userdata) {
        SinkThread *t = userdata;

        while (!atomic_load(&t->stop)) {
                struct pollfd p = { .fd = peer_bulk_server_fd(t->sink), .events = POLLIN };

                if (poll(&p, 1, 50) > 0)
                        (void) peer_bulk_server_handle(t->sink);
        }
        return NULL;
}

/* A client that sends the whole header, then one byte every 0.2 s, as long as the sink keeps it
 * (at most 100 bytes: a guard against a sink that never lets go): it is dropped for want of progress,
 * and the sink says so in its counters. */
static void test_trickle(void) {
        SinkThread t = {};
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr = loopback() };
        _cleanup_(closep) int fd = -EBADF;
        const PeerBulkStats *st;
        unsigned sent = 0;
        uint16_t port;

        t.sink = open_sink(&port);
        ASSERT_INT_EQ(pthread_create(&t.thread, NULL, sink_run, &t), 0);

        a.sin_port = htons(port);
        fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        ASSERT_TRUE(fd >= 0);
        ASSERT_TRUE(connect(fd, (struct sockaddr *) &a, sizeof(a)) == 0);
        ASSERT_TRUE(send(fd, "HALOBLK\x01", 8, MSG_NOSIGNAL) == 8);
        for (; sent < 100; sent++) {
                char c;

                /* The sink's end of stream (or reset) shows before the next byte goes. */
                if (poll(&(struct pollfd){ .fd = fd, .events = POLLIN }, 1, 200) > 0 &&
                    recv(fd, &c, 1, MSG_DONTWAIT) <= 0)
                        break;
                if (send(fd, "x", 1, MSG_NOSIGNAL) != 1)
                        break;
        }
        ASSERT_TRUE(sent < 100);

        atomic_store(&t.stop, true);
        ASSERT_INT_EQ(pthread_join(t.thread, NULL), 0);
        st = peer_bulk_server_stats(t.sink);
        ASSERT_INT_EQ(st->too_slow, 1);
        ASSERT_INT_EQ(st->aborted, 1);
        ASSERT_INT_EQ(st->completed, 0);
        fprintf(stderr, "the trickling client sent %u bytes after its header before it was dropped\n", sent);
        t.sink = peer_bulk_server_free(t.sink);
}

/* A sender from a privileged port (root on a peer) takes the slot over from one that holds it from
 * an unprivileged port; an unprivileged sender is told busy. */
static void test_privileged_first(void) {
        _cleanup_(peer_bulk_server_freep) PeerBulkServer *b = NULL;
        _cleanup_(closep) int stalled = -EBADF;
        struct in_addr lo = loopback();
        PeerBulkResult r;
        uint16_t port;
        pid_t pid;

        /* Binding a privileged port takes root (CAP_NET_BIND_SERVICE): the unit tests run as root. */
        ASSERT_INT_EQ(geteuid(), 0);
        b = open_sink(&port);
        peer_bulk_server_set_header_deadline(b, 3600 * USEC_PER_SEC);
        pid = serve_in_child(b);

        stalled = stalled_client(port);
        ASSERT_INT_EQ(peer_bulk_send(&lo, &lo, port, 1U << 20, 1000000, /* privileged= */ false, &r), -EBUSY);
        ASSERT_OK(peer_bulk_send(&lo, &lo, port, 1U << 20, 1000000, /* privileged= */ true, &r));
        ASSERT_TRUE(r.bytes == 1U << 20);
        ASSERT_TRUE(dropped(stalled));

        stop_child(pid);
}

int main(void) {
        test_busy();
        test_header_deadline();
        test_trickle();
        test_privileged_first();
        return 0;
}
