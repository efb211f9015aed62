/* SPDX-License-Identifier: MIT */
/* The responder's two budgets per peer address over loopback: a flood from any other source port
 * cannot silence the datagrams from halod's probe port; refusals come with a rate-limited notice the
 * prober counts; the probe port, once held, is closed to other users and receives nothing itself. */
#include <arpa/inet.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "basic/macro.h"
#include "netns-test.h"
#include "peer/peer-ratelimit.h"
#include "peer/peer.h"
#include "tests.h"

static struct in_addr loopback(void) {
        return (struct in_addr){ .s_addr = htonl(INADDR_LOOPBACK) };
}

static PeerIdentity identity(const char *node) {
        PeerIdentity id;

        ASSERT_OK(peer_identity_init(&id, "strix-halo", node, HEALTH_HEALTHY, NULL));
        return id;
}

static usec_t frozen_clock(clockid_t clock) {
        return 42;
}

/* A socket on 127.0.0.1:port, or -1 when the port is taken (or privileged, for a user without
 * CAP_NET_BIND_SERVICE). */
static int bind_udp(uint16_t port, bool reuseport) {
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr = loopback(), .sin_port = htons(port) };
        int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

        ASSERT_TRUE(fd >= 0);
        if (reuseport)
                ASSERT_TRUE(setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &(int){ 1 }, sizeof(int)) == 0);
        if (bind(fd, (struct sockaddr *) &a, sizeof(a)) < 0) {
                ASSERT_TRUE(errno == EADDRINUSE || errno == EACCES);
                safe_close(fd);
                return -1;
        }
        return fd;
}

/* The responder on 127.0.0.1:port, with its clock frozen (no refill), and a client bound to the probe
 * port peer_probe_port(port), both on free ports. */
static PeerServer *open_server(uint16_t *ret_port, int *ret_halod) {
        PeerIdentity self = identity("worker");
        struct in_addr lo = loopback();

        for (uint16_t port = 21000 + (uint16_t) (getpid() % 20000);; port += 2) {
                PeerServer *s = NULL;
                int fd, r;

                fd = bind_udp(peer_probe_port(port), /* reuseport= */ false);
                if (fd < 0)
                        continue;
                r = peer_server_open(
                        &(PeerEndpoints){
                                .locals = &lo, .n_locals = 1, .port = port, .peers = &lo, .n_peers = 1 },
                        &self,
                        &s);
                if (r == -EADDRINUSE) {
                        safe_close(fd);
                        continue;
                }
                ASSERT_OK(r);
                peer_server_set_clock(s, frozen_clock);
                *ret_port = port;
                *ret_halod = fd;
                return s;
        }
}

static void connect_to(int fd, uint16_t port) {
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr = loopback(), .sin_port = htons(port) };

        ASSERT_TRUE(connect(fd, (struct sockaddr *) &a, sizeof(a)) == 0);
}

static int ephemeral_client(uint16_t port) {
        int fd = bind_udp(0, /* reuseport= */ false);

        connect_to(fd, port);
        return fd;
}

static size_t echo_request(uint32_t sequence, uint8_t *buf) {
        PeerMessage m = { .type = PEER_ECHO_REQUEST, .sequence = sequence, .sender = identity("head") };
        size_t n;

        m.padding = PEER_REQUEST_SIZE_MIN - peer_message_size(&m);
        ASSERT_OK(peer_message_encode(&m, buf, PEER_MESSAGE_SIZE_MAX, &n));
        return n;
}

/* Sends one request, lets the server handle it, and returns the type of the answer (0: none). */
static PeerMessageType exchange(PeerServer *s, int fd, uint32_t sequence) {
        static uint8_t buf[PEER_MESSAGE_SIZE_MAX + 1];
        struct pollfd pfd = { .fd = peer_server_fd(s), .events = POLLIN };
        size_t n = echo_request(sequence, buf);
        PeerMessage answer;
        ssize_t k;

        ASSERT_TRUE(send(fd, buf, n, 0) == (ssize_t) n);
        ASSERT_TRUE(poll(&pfd, 1, -1) == 1);
        ASSERT_INT_EQ(peer_server_handle(s), 1);
        k = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
        if (k < 0)
                return 0;
        ASSERT_OK(peer_message_parse(buf, (size_t) k, &answer));
        ASSERT_INT_EQ(answer.sequence, sequence);
        ASSERT_STR_EQ(answer.sender.node, "worker");
        return answer.type;
}

/* A flood from an ephemeral port empties its budget; halod's probe port still gets a full one. */
static void test_two_budgets(void) {
        _cleanup_(peer_server_freep) PeerServer *s = NULL;
        _cleanup_(closep) int halod = -EBADF, flood = -EBADF;
        const PeerServerStats *st;
        uint16_t port;

        s = open_server(&port, &halod);
        st = peer_server_stats(s);
        connect_to(halod, port);
        flood = ephemeral_client(port);

        for (unsigned i = 0; i < PEER_RATE_BURST; i++)
                ASSERT_INT_EQ(exchange(s, flood, i), PEER_ECHO_REPLY);
        for (unsigned i = 0; i < PEER_NOTICE_BURST; i++)
                ASSERT_INT_EQ(exchange(s, flood, 1000 + i), PEER_RATE_LIMITED);
        ASSERT_INT_EQ(exchange(s, flood, 2000), 0);
        ASSERT_INT_EQ(st->rate_limited, PEER_NOTICE_BURST + 1);

        for (unsigned i = 0; i < PEER_RATE_BURST; i++)
                ASSERT_INT_EQ(exchange(s, halod, 3000 + i), PEER_ECHO_REPLY);
        ASSERT_INT_EQ(exchange(s, halod, 4000), PEER_RATE_LIMITED);
        ASSERT_INT_EQ(st->rate_limited_halod, 1);
        ASSERT_INT_EQ(st->rate_limited, PEER_NOTICE_BURST + 1);
        ASSERT_INT_EQ(st->answered, 2 * PEER_RATE_BURST);
        ASSERT_INT_EQ(st->notices, PEER_NOTICE_BURST + 1);
}

/* peer_wait_reply(), which the RDMA hello waits with, names the notice when no reply comes after one
 * (-EBUSY), and says only "no answer" (0) once the notices stop too. */
static void test_wait_reply_after_notice(void) {
        _cleanup_(peer_server_freep) PeerServer *s = NULL;
        _cleanup_(closep) int halod = -EBADF, flood = -EBADF;
        uint8_t buf[PEER_MESSAGE_SIZE_MAX + 1];
        unsigned notices = 0;
        PeerMessage m;
        uint16_t port;

        s = open_server(&port, &halod);
        flood = ephemeral_client(port);
        for (unsigned i = 0; i < PEER_RATE_BURST; i++)
                ASSERT_INT_EQ(exchange(s, flood, i), PEER_ECHO_REPLY);

        for (unsigned i = 0; i <= PEER_NOTICE_BURST; i++) {
                struct pollfd pfd = { .fd = peer_server_fd(s), .events = POLLIN };
                size_t n = echo_request(500 + i, buf);
                int r;

                ASSERT_TRUE(send(flood, buf, n, 0) == (ssize_t) n);
                ASSERT_TRUE(poll(&pfd, 1, -1) == 1);
                ASSERT_INT_EQ(peer_server_handle(s), 1);
                r = peer_wait_reply(
                        flood, PEER_ECHO_REPLY, 500 + i, now(CLOCK_MONOTONIC) + 100000, buf, &m, NULL);
                if (i < PEER_NOTICE_BURST) {
                        ASSERT_INT_EQ(r, -EBUSY);
                        notices++;
                } else
                        ASSERT_INT_EQ(r, 0);
        }
        ASSERT_INT_EQ(notices, PEER_NOTICE_BURST);
}

static pid_t serve_in_child(PeerServer *s) {
        pid_t pid = fork_server();

        if (pid > 0)
                return pid;
        for (;;) {
                struct pollfd p = { .fd = peer_server_fd(s), .events = POLLIN };

                if (poll(&p, 1, -1) < 0)
                        _exit(1);
                while (peer_server_handle(s) > 0)
                        ;
        }
}

/* The prober counts the notice and says so; from the held probe port it is answered in full. */
static void test_probe_after_flood(void) {
        _cleanup_(peer_server_freep) PeerServer *s = NULL;
        _cleanup_(closep) int halod = -EBADF, flood = -EBADF, guard = -EBADF;
        PeerIdentity self = identity("head");
        PeerProbeParams p = {
                .local = loopback(),
                .remote = loopback(),
                .self = &self,
                .count = 20,
                .timeout_usec = 5000000, /* answers come at once: no busy machine makes one this late */
        };
        PeerProbeResult r;
        pid_t pid;

        s = open_server(&p.port, &halod);
        halod = safe_close(halod);
        flood = ephemeral_client(p.port);
        /* The budget of the other source ports is used up before the responder serves in the child. */
        for (unsigned i = 0; i < PEER_RATE_BURST; i++)
                ASSERT_INT_EQ(exchange(s, flood, i), PEER_ECHO_REPLY);
        pid = serve_in_child(s);

        /* From an ephemeral port: refused with a notice, then silence, then it gives up. */
        p.timeout_usec = 50000;
        ASSERT_OK(peer_probe(&p, &r));
        ASSERT_INT_EQ(r.answered, 0);
        ASSERT_TRUE(r.rate_limited >= 1);
        ASSERT_INT_EQ(r.last_error, -EBUSY);

        /* From the probe port, held as halod holds it: answered, every probe. */
        guard = peer_probe_port_hold(p.port);
        ASSERT_OK(guard);
        p.source_port = peer_probe_port(p.port);
        p.timeout_usec = 5000000;
        ASSERT_OK(peer_probe(&p, &r));
        ASSERT_INT_EQ(r.answered, 20);
        ASSERT_INT_EQ(r.rate_limited, 0);

        (void) kill(pid, SIGKILL);
        (void) waitpid(pid, NULL, 0);
}

/* The held port: no other socket binds it without SO_REUSEPORT, no other user binds it at all, and
 * what is sent to it is dropped, not queued. */
static void test_probe_port_hold(void) {
        _cleanup_(closep) int guard = -EBADF, mine = -EBADF, sender = -EBADF, control = -EBADF;
        struct sockaddr_in control_addr;
        socklen_t len = sizeof(control_addr);
        uint16_t port = 0;
        pid_t pid;
        int status;

        for (uint16_t p = 23000 + (uint16_t) (getpid() % 20000);; p += 2) {
                guard = peer_probe_port_hold(p);
                if (guard == -EADDRINUSE)
                        continue;
                ASSERT_OK(guard);
                port = peer_probe_port(p);
                break;
        }
        ASSERT_INT_EQ(bind_udp(port, /* reuseport= */ false), -1);
        /* The same user may share it: halod's probe sockets do. */
        mine = bind_udp(port, /* reuseport= */ true);
        ASSERT_TRUE(mine >= 0);
        mine = safe_close(mine);

        if (geteuid() == 0) {
                /* Another user cannot, with either option. */
                pid = fork_server();
                if (pid == 0) {
                        if (setresgid(65534, 65534, 65534) < 0 || setresuid(65534, 65534, 65534) < 0)
                                _exit(2);
                        _exit(bind_udp(port, true) < 0 && bind_udp(port, false) < 0 ? 0 : 1);
                }
                ASSERT_TRUE(waitpid(pid, &status, 0) == pid);
                ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        }

        /* A datagram to the port, then one to a socket of ours: once the second is there, the first
         * was handled, and the guard holds nothing. */
        control = bind_udp(0, /* reuseport= */ false);
        ASSERT_TRUE(getsockname(control, (struct sockaddr *) &control_addr, &len) == 0);
        sender = ephemeral_client(port);
        ASSERT_TRUE(send(sender, "x", 1, 0) == 1);
        ASSERT_TRUE(sendto(sender, "y", 1, 0, (struct sockaddr *) &control_addr, len) == 1);
        ASSERT_TRUE(poll(&(struct pollfd){ .fd = control, .events = POLLIN }, 1, -1) == 1);
        ASSERT_TRUE(recv(guard, &(char){ 0 }, 1, MSG_DONTWAIT) < 0 && errno == EAGAIN);
}

/* Many runs from the one probe port at once (a switched fabric: one local address, many peers): each
 * run's connected socket gets its own peer's replies, and every probe of every run is answered. */
static void test_round_from_probe_port(void) {
        PeerIdentity head = identity("head"), worker = identity("worker");
        struct in_addr lo = loopback(), remotes[3];
        PeerServer *servers[ELEMENTSOF(remotes)] = {};
        PeerProbeParams p[ELEMENTSOF(remotes)];
        PeerProbeResult r[ELEMENTSOF(remotes)];
        PeerProbeRound round = { .deadline = UINT64_MAX, .cancel_fd = -EBADF };
        pid_t pids[ELEMENTSOF(remotes)];
        int status[ELEMENTSOF(remotes)];
        _cleanup_(closep) int guard = -EBADF;
        uint16_t port;

        for (port = 25000 + (uint16_t) (getpid() % 20000);; port += 2) {
                size_t i;

                guard = peer_probe_port_hold(port);
                if (guard == -EADDRINUSE)
                        continue;
                ASSERT_OK(guard);
                for (i = 0; i < ELEMENTSOF(remotes); i++) {
                        int k;

                        remotes[i].s_addr = htonl(0x7f000002U + (uint32_t) i);
                        k = peer_server_open(
                                &(PeerEndpoints){ .locals = &remotes[i],
                                                  .n_locals = 1,
                                                  .port = port,
                                                  .peers = &lo,
                                                  .n_peers = 1 },
                                &worker,
                                &servers[i]);
                        if (k == -EADDRINUSE)
                                break;
                        ASSERT_OK(k);
                }
                if (i == ELEMENTSOF(remotes))
                        break;
                for (size_t j = 0; j < i; j++)
                        servers[j] = peer_server_free(servers[j]);
                guard = safe_close(guard);
        }
        for (size_t i = 0; i < ELEMENTSOF(remotes); i++) {
                pids[i] = serve_in_child(servers[i]);
                p[i] = (PeerProbeParams){
                        .local = lo,
                        .remote = remotes[i],
                        .port = port,
                        .source_port = peer_probe_port(port),
                        .self = &head,
                        .count = 20,
                        .timeout_usec = 5000000, /* they answer: no busy machine makes one this late */
                };
        }

        ASSERT_OK(peer_probe_round(p, ELEMENTSOF(p), &round, status, r));
        for (size_t i = 0; i < ELEMENTSOF(remotes); i++) {
                ASSERT_INT_EQ(status[i], 0);
                ASSERT_INT_EQ(r[i].answered, 20);
                ASSERT_INT_EQ(r[i].rate_limited, 0);
                (void) kill(pids[i], SIGKILL);
                (void) waitpid(pids[i], NULL, 0);
                peer_server_free(servers[i]);
        }
}

int main(void) {
        test_private_netns();
        ASSERT_INT_EQ(peer_probe_port(7739), 739);
        ASSERT_INT_EQ(peer_probe_port(65535), 739);
        ASSERT_INT_EQ(peer_probe_port(739), 738);
        test_two_budgets();
        test_wait_reply_after_notice();
        test_probe_after_flood();
        test_probe_port_hold();
        test_round_from_probe_port();
        return 0;
}
