/* SPDX-License-Identifier: MIT */
/* The peer channel on the sockets halod.socket holds on 0.0.0.0 (peer_server_adopt(),
 * peer_bulk_server_adopt()): answered only on the node's fabric addresses, replies from the address
 * asked, and, once adopted, no other user can bind a fabric address and the port beside the UDP one
 * (systemd sets SO_REUSEADDR on a socket unit's sockets, socket_address_listen() in its
 * src/shared/socket-label.c; the adopted socket has it cleared). Runs as root, as the unit tests do. */
#include <arpa/inet.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "basic/macro.h"
#include "peer/peer.h"
#include "tests.h"

static struct in_addr addr(const char *s) {
        struct in_addr a;

        ASSERT_TRUE(inet_pton(AF_INET, s, &a) == 1);
        return a;
}

/* A socket as a socket unit makes it: SO_REUSEADDR, bound to 0.0.0.0 and a free port (listening for
 * a stream socket). */
static int unit_socket(int type, uint16_t *ret_port) {
        for (uint16_t p = 30000 + (uint16_t) (getpid() % 20000);; p++) {
                struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(p) };
                int fd = socket(AF_INET, type | SOCK_CLOEXEC, 0);

                ASSERT_TRUE(fd >= 0);
                ASSERT_TRUE(setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &(int){ 1 }, sizeof(int)) == 0);
                if (bind(fd, (struct sockaddr *) &sa, sizeof(sa)) < 0) {
                        ASSERT_INT_EQ(errno, EADDRINUSE);
                        safe_close(fd);
                        continue;
                }
                if (type == SOCK_STREAM)
                        ASSERT_TRUE(listen(fd, 4) == 0);
                *ret_port = p;
                return fd;
        }
}

/* Whether the user nobody can bind address:port with SO_REUSEADDR (UDP). */
static bool nobody_can_bind(const char *address, uint16_t port) {
        int status;
        pid_t pid = fork();

        ASSERT_TRUE(pid >= 0);
        if (pid == 0) {
                struct sockaddr_in sa = { .sin_family = AF_INET,
                                          .sin_addr = addr(address),
                                          .sin_port = htons(port) };
                int fd;

                if (setresgid(65534, 65534, 65534) < 0 || setresuid(65534, 65534, 65534) < 0)
                        _exit(2);
                fd = socket(AF_INET, SOCK_DGRAM, 0);
                if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &(int){ 1 }, sizeof(int)) < 0)
                        _exit(2);
                _exit(bind(fd, (struct sockaddr *) &sa, sizeof(sa)) == 0 ? 0 : 1);
        }
        ASSERT_TRUE(waitpid(pid, &status, 0) == pid);
        ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) <= 1);
        return WEXITSTATUS(status) == 0;
}

/* Sends an echo request from 127.0.0.1 to to:port, lets s handle it, and says whether an answer came
 * back (the client is connected to to:port: an answer from another address would not reach it). */
static bool answered(PeerServer *s, const char *to, uint16_t port) {
        struct sockaddr_in la = { .sin_family = AF_INET, .sin_addr = addr("127.0.0.1") };
        struct sockaddr_in ra = { .sin_family = AF_INET, .sin_addr = addr(to), .sin_port = htons(port) };
        PeerMessage m = { .type = PEER_ECHO_REQUEST, .sequence = 7 };
        uint8_t buf[PEER_MESSAGE_SIZE_MAX];
        _cleanup_(closep) int fd = -EBADF;
        size_t n;

        ASSERT_OK(peer_identity_init(&m.sender, "strix-halo", "head", HEALTH_HEALTHY, NULL));
        m.padding = PEER_REQUEST_SIZE_MIN - peer_message_size(&m);
        ASSERT_OK(peer_message_encode(&m, buf, sizeof(buf), &n));
        fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        ASSERT_TRUE(fd >= 0);
        ASSERT_TRUE(bind(fd, (struct sockaddr *) &la, sizeof(la)) == 0);
        ASSERT_TRUE(connect(fd, (struct sockaddr *) &ra, sizeof(ra)) == 0);
        ASSERT_TRUE(send(fd, buf, n, 0) == (ssize_t) n);
        ASSERT_TRUE(poll(&(struct pollfd){ .fd = peer_server_fd(s), .events = POLLIN }, 1, 1000) == 1);
        ASSERT_INT_EQ(peer_server_handle(s), 1);
        /* The server answered (or not) synchronously above: the reply is queued by now. */
        return recv(fd, buf, sizeof(buf), MSG_DONTWAIT) > 0;
}

static void test_adopt_udp(void) {
        _cleanup_(peer_server_freep) PeerServer *s = NULL;
        _cleanup_(closep) int held = -EBADF;
        struct in_addr local = addr("127.0.0.1"), peer = addr("127.0.0.1");
        PeerIdentity self;
        uint16_t port;

        ASSERT_INT_EQ(geteuid(), 0);
        ASSERT_OK(peer_identity_init(&self, "strix-halo", "worker", HEALTH_HEALTHY, NULL));
        held = unit_socket(SOCK_DGRAM, &port);
        /* As systemd leaves it, any user could bind the fabric address beside it. */
        ASSERT_TRUE(nobody_can_bind("127.0.0.1", port));

        /* The server takes a copy, as halod does; the service manager keeps its own. */
        ASSERT_OK(peer_server_adopt(
                fcntl(held, F_DUPFD_CLOEXEC, 3),
                &(PeerEndpoints){ .locals = &local, .n_locals = 1, .port = port, .peers = &peer, .n_peers = 1 },
                &self,
                &s));
        ASSERT_TRUE(!nobody_can_bind("127.0.0.1", port));

        ASSERT_TRUE(answered(s, "127.0.0.1", port));
        ASSERT_INT_EQ(peer_server_stats(s)->answered, 1);
        /* 127.0.0.3 is this host's too, but not a fabric address of the node. */
        ASSERT_TRUE(!answered(s, "127.0.0.3", port));
        ASSERT_INT_EQ(peer_server_stats(s)->refused_local, 1);
        ASSERT_INT_EQ(peer_server_stats(s)->answered, 1);

        /* Another port than the profile's, or a stream socket: not the channel's. */
        s = peer_server_free(s);
        ASSERT_INT_EQ(
                peer_server_adopt(
                        fcntl(held, F_DUPFD_CLOEXEC, 3),
                        &(PeerEndpoints){
                                .locals = &local, .n_locals = 1, .port = port + 1, .peers = &peer, .n_peers = 1 },
                        &self,
                        &s),
                -EINVAL);
}

static void test_adopt_tcp(void) {
        _cleanup_(peer_bulk_server_freep) PeerBulkServer *b = NULL;
        _cleanup_(closep) int held = -EBADF;
        struct in_addr local = addr("127.0.0.1"), other = addr("127.0.0.3");
        PeerBulkResult r;
        uint16_t port;
        int status;
        pid_t pid;

        held = unit_socket(SOCK_STREAM, &port);
        ASSERT_OK(peer_bulk_server_adopt(
                fcntl(held, F_DUPFD_CLOEXEC, 3),
                &(PeerEndpoints){ .locals = &local, .n_locals = 1, .port = port, .peers = &local, .n_peers = 1 },
                &b));

        pid = fork();
        ASSERT_TRUE(pid >= 0);
        if (pid == 0) {
                for (;;) {
                        struct pollfd p = { .fd = peer_bulk_server_fd(b), .events = POLLIN };

                        if (poll(&p, 1, -1) < 0)
                                _exit(1);
                        (void) peer_bulk_server_handle(b);
                }
        }
        ASSERT_OK(peer_bulk_send(&local, &local, port, 1U << 20, 1000000, /* privileged= */ false, &r));
        ASSERT_TRUE(r.bytes == 1U << 20);
        /* To an address of the host that is not a fabric one of the node: closed without a count. */
        ASSERT_INT_EQ(
                peer_bulk_send(&local, &other, port, 1U << 20, 1000000, /* privileged= */ false, &r),
                -ECONNRESET);
        (void) kill(pid, SIGKILL);
        ASSERT_TRUE(waitpid(pid, &status, 0) == pid);

        /* A datagram socket is not the sink's. */
        b = peer_bulk_server_free(b);
        ASSERT_INT_EQ(
                peer_bulk_server_adopt(
                        unit_socket(SOCK_DGRAM, &port),
                        &(PeerEndpoints){
                                .locals = &local, .n_locals = 1, .port = port, .peers = &local, .n_peers = 1 },
                        &b),
                -EINVAL);
}

int main(void) {
        test_adopt_udp();
        test_adopt_tcp();
        return 0;
}
