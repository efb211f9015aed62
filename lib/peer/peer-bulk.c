/* SPDX-License-Identifier: MIT */
/* Throughput over the fabric: a TCP sink that accepts one profile peer at a time, bounded in time and
 * bytes, and the sender that measures against it. */
#include <arpa/inet.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/timerfd.h>

#include "peer/peer.h"

/* A transfer starts with these 8 bytes; the sink answers with the payload byte count (8 bytes,
 * big-endian) after the sender's end of stream. */
#define BULK_HEADER "HALOBLK\x01"
#define BULK_HEADER_SIZE 8U
/* What a busy sink sends a second sender before it closes: 8 bytes, where a count would come. */
#define BULK_BUSY "HALOBUSY"
#define BULK_BUSY_SIZE 8U
/* Reads per handle call, so that a fast sender cannot starve the daemon's other event sources. */
#define BULK_READS_PER_CALL 64U
#define BULK_CHUNK (1U << 20)

struct PeerBulkServer {
        int epoll_fd;
        int timer_fd;
        int *listen_fds; /* one per local address, or one on 0.0.0.0 (peer_bulk_server_adopt()) */
        size_t n_listen_fds;
        struct in_addr *locals; /* a connection's destination must be one */
        size_t n_locals;
        struct in_addr *peers;
        size_t n_peers;

        int conn_fd;          /* the running transfer, or -EBADF */
        bool conn_privileged; /* from a privileged source port */
        char header[BULK_HEADER_SIZE];
        size_t header_size;
        uint64_t bytes;
        uint64_t bytes_checked; /* bytes at the last progress check */
        usec_t started;         /* the header's arrival (now(CLOCK_MONOTONIC)) */

        uint64_t header_deadline_usec;
        PeerBulkStats stats;
};

PeerBulkServer *peer_bulk_server_free(PeerBulkServer *s) {
        if (!s)
                return NULL;
        safe_close(s->conn_fd);
        for (size_t i = 0; i < s->n_listen_fds; i++)
                safe_close(s->listen_fds[i]);
        free(s->listen_fds);
        free(s->locals);
        safe_close(s->timer_fd);
        safe_close(s->epoll_fd);
        free(s->peers);
        return mfree(s);
}

static int epoll_add(int epoll_fd, int fd) {
        struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };

        return epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &ev) < 0 ? negative_errno() : 0;
}

static int listen_one(PeerBulkServer *s, const struct in_addr *addr, uint16_t port) {
        struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr = *addr, .sin_port = htons(port) };
        _cleanup_(closep) int fd = -EBADF;
        int one = 1, r;

        fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0)
                return negative_errno();
        if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
            setsockopt(fd, IPPROTO_IP, IP_FREEBIND, &one, sizeof(one)) < 0)
                return negative_errno();
        if (bind(fd, (struct sockaddr *) &sa, sizeof(sa)) < 0 || listen(fd, 4) < 0)
                return negative_errno();
        r = epoll_add(s->epoll_fd, fd);
        if (r < 0)
                return r;
        s->listen_fds[s->n_listen_fds++] = TAKE_FD(fd);
        return 0;
}

static int sink_new(const PeerEndpoints *e, PeerBulkServer **ret) {
        _cleanup_(peer_bulk_server_freep) PeerBulkServer *s = NULL;
        int r;

        if (e->n_locals == 0 || e->port == 0)
                return -EINVAL;

        s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        s->conn_fd = s->timer_fd = s->epoll_fd = -EBADF;
        s->header_deadline_usec = PEER_BULK_HEADER_DEADLINE_USEC;

        s->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
        if (s->epoll_fd < 0)
                return negative_errno();
        s->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
        if (s->timer_fd < 0)
                return negative_errno();
        r = epoll_add(s->epoll_fd, s->timer_fd);
        if (r < 0)
                return r;

        s->listen_fds = calloc(e->n_locals, sizeof(int));
        s->locals = calloc(e->n_locals, sizeof(struct in_addr));
        s->peers = calloc(e->n_peers > 0 ? e->n_peers : 1, sizeof(struct in_addr));
        if (!s->listen_fds || !s->locals || !s->peers)
                return -ENOMEM;
        memcpy(s->locals, e->locals, e->n_locals * sizeof(struct in_addr));
        s->n_locals = e->n_locals;
        memcpy(s->peers, e->peers, e->n_peers * sizeof(struct in_addr));
        s->n_peers = e->n_peers;

        *ret = TAKE_PTR(s);
        return 0;
}

int peer_bulk_server_open(const PeerEndpoints *e, PeerBulkServer **ret) {
        _cleanup_(peer_bulk_server_freep) PeerBulkServer *s = NULL;
        int r;

        r = sink_new(e, &s);
        if (r < 0)
                return r;
        for (size_t i = 0; i < e->n_locals; i++) {
                r = listen_one(s, &e->locals[i], e->port);
                if (r < 0)
                        return r;
        }
        *ret = TAKE_PTR(s);
        return 0;
}

int peer_bulk_server_adopt(int fd_in, const PeerEndpoints *e, PeerBulkServer **ret) {
        _cleanup_(peer_bulk_server_freep) PeerBulkServer *s = NULL;
        _cleanup_(closep) int fd = fd_in;
        int r;

        r = peer_socket_check_inherited(fd, SOCK_STREAM, e->port);
        if (r < 0)
                return r;
        r = sink_new(e, &s);
        if (r < 0)
                return r;
        r = epoll_add(s->epoll_fd, fd);
        if (r < 0)
                return r;
        s->listen_fds[s->n_listen_fds++] = TAKE_FD(fd);
        *ret = TAKE_PTR(s);
        return 0;
}

int peer_bulk_server_fd(const PeerBulkServer *s) {
        return s->epoll_fd;
}

const PeerBulkStats *peer_bulk_server_stats(const PeerBulkServer *s) {
        return &s->stats;
}

void peer_bulk_server_set_header_deadline(PeerBulkServer *s, uint64_t usec) {
        s->header_deadline_usec = usec > 0 ? usec : PEER_BULK_HEADER_DEADLINE_USEC;
}

/* Whether the connection fd came to one of the node's fabric addresses: a socket on 0.0.0.0
 * (peer_bulk_server_adopt()) accepts the others' too. */
static bool to_local(const PeerBulkServer *s, int fd) {
        struct sockaddr_in sa = {};
        socklen_t len = sizeof(sa);

        if (getsockname(fd, (struct sockaddr *) &sa, &len) < 0 || sa.sin_family != AF_INET)
                return false;
        for (size_t i = 0; i < s->n_locals; i++)
                if (s->locals[i].s_addr == sa.sin_addr.s_addr)
                        return true;
        return false;
}

static bool is_peer(const PeerBulkServer *s, const struct sockaddr_in *sa) {
        if (sa->sin_family != AF_INET)
                return false;
        for (size_t i = 0; i < s->n_peers; i++)
                if (s->peers[i].s_addr == sa->sin_addr.s_addr)
                        return true;
        return false;
}

static void end_transfer(PeerBulkServer *s) {
        struct itimerspec off = {};

        (void) timerfd_settime(s->timer_fd, 0, &off, NULL);
        s->conn_fd = safe_close(s->conn_fd);
        s->conn_privileged = false;
        s->header_size = 0;
        s->bytes = s->bytes_checked = 0;
}

static int arm_deadline(PeerBulkServer *s, uint64_t usec) {
        struct itimerspec deadline = {
                .it_value.tv_sec = (time_t) (usec / USEC_PER_SEC),
                .it_value.tv_nsec = (long) ((usec % USEC_PER_SEC) * NSEC_PER_USEC),
        };

        return timerfd_settime(s->timer_fd, 0, &deadline, NULL) < 0 ? negative_errno() : 0;
}

/* Tells a second sender that a transfer runs, instead of a reset it would have to guess about. The
 * send buffer of a new connection is empty: 8 bytes always fit. */
static void refuse_busy(int fd) {
        (void) send(fd, BULK_BUSY, BULK_BUSY_SIZE, MSG_DONTWAIT | MSG_NOSIGNAL);
}

static void abort_transfer(PeerBulkServer *s) {
        s->stats.aborted++;
        end_transfer(s);
}

static void accept_one(PeerBulkServer *s, int listen_fd) {
        struct sockaddr_in sa = {};
        socklen_t len = sizeof(sa);
        _cleanup_(closep) int fd = -EBADF;
        bool privileged;

        fd = accept4(listen_fd, (struct sockaddr *) &sa, &len, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0)
                return;
        if (!to_local(s, fd) || !is_peer(s, &sa)) {
                s->stats.refused_source++;
                return;
        }
        /* Root on a peer (haloctl probe run by the administrator) comes first: any user of a peer
         * node can connect from its address, and send fast enough to pass the progress check, again
         * and again; none can bind a privileged port. */
        privileged = ntohs(sa.sin_port) < PEER_BULK_PRIVILEGED_PORT_END;
        if (s->conn_fd >= 0 && privileged && !s->conn_privileged) {
                s->stats.taken_over++;
                abort_transfer(s);
        }
        if (s->conn_fd >= 0) {
                s->stats.busy++;
                refuse_busy(fd);
                return;
        }
        /* First the header's deadline: a sender that does not send it at once holds the one slot for
         * no one. The transfer's own deadline follows the header. */
        if (epoll_add(s->epoll_fd, fd) < 0 || arm_deadline(s, s->header_deadline_usec) < 0) {
                s->stats.aborted++;
                return;
        }
        s->conn_fd = TAKE_FD(fd);
        s->conn_privileged = privileged;
}

static void finish_transfer(PeerBulkServer *s) {
        uint8_t count[8];

        for (unsigned i = 0; i < 8; i++)
                count[i] = (uint8_t) (s->bytes >> (56 - 8 * i));
        /* The send buffer is empty (we never wrote): 8 bytes always fit. */
        if (send(s->conn_fd, count, sizeof(count), MSG_DONTWAIT | MSG_NOSIGNAL) != sizeof(count)) {
                abort_transfer(s);
                return;
        }
        s->stats.completed++;
        s->stats.bytes += s->bytes;
        end_transfer(s);
}

static void read_transfer(PeerBulkServer *s) {
        for (unsigned i = 0; i < BULK_READS_PER_CALL; i++) {
                ssize_t n;

                if (s->header_size < BULK_HEADER_SIZE) {
                        n = recv(
                                s->conn_fd,
                                s->header + s->header_size,
                                BULK_HEADER_SIZE - s->header_size,
                                MSG_DONTWAIT);
                        if (n > 0) {
                                s->header_size += (size_t) n;
                                if (s->header_size < BULK_HEADER_SIZE)
                                        continue;
                                /* From here on the timer checks the progress, up to the time bound. */
                                s->started = now(CLOCK_MONOTONIC);
                                if (memcmp(s->header, BULK_HEADER, BULK_HEADER_SIZE) != 0 ||
                                    arm_deadline(s, PEER_BULK_PROGRESS_USEC) < 0) {
                                        abort_transfer(s);
                                        return;
                                }
                                continue;
                        }
                } else
                        /* MSG_TRUNC on TCP discards the data in the kernel: a sink that copies
                         * nothing. */
                        n = recv(s->conn_fd, NULL, BULK_CHUNK, MSG_DONTWAIT | MSG_TRUNC);

                if (n < 0) {
                        if (errno == EAGAIN || errno == EINTR)
                                return;
                        {
                                abort_transfer(s);
                                return;
                        }
                }
                if (n == 0) {
                        if (s->header_size < BULK_HEADER_SIZE) {
                                abort_transfer(s);
                                return;
                        }
                        {
                                finish_transfer(s);
                                return;
                        }
                }
                s->bytes += (uint64_t) n;
                if (s->bytes > PEER_BULK_SERVER_BYTES_MAX) {
                        abort_transfer(s);
                        return;
                }
        }
}

/* The timer fired during a transfer: no header by its deadline, the time bound reached, or too few
 * bytes in the last interval end it; else it goes on to the next check. */
static void check_progress(PeerBulkServer *s) {
        usec_t elapsed;

        if (s->header_size < BULK_HEADER_SIZE) {
                s->stats.header_timeout++;
                abort_transfer(s);
                return;
        }
        elapsed = now(CLOCK_MONOTONIC) - s->started;
        if (elapsed >= PEER_BULK_SERVER_TIME_MAX_USEC) {
                abort_transfer(s);
                return;
        }
        if (s->bytes - s->bytes_checked < PEER_BULK_PROGRESS_BYTES) {
                s->stats.too_slow++;
                abort_transfer(s);
                return;
        }
        s->bytes_checked = s->bytes;
        if (arm_deadline(
                    s,
                    PEER_BULK_SERVER_TIME_MAX_USEC - elapsed < PEER_BULK_PROGRESS_USEC
                            ? PEER_BULK_SERVER_TIME_MAX_USEC - elapsed
                            : PEER_BULK_PROGRESS_USEC) < 0)
                abort_transfer(s);
}

int peer_bulk_server_handle(PeerBulkServer *s) {
        struct epoll_event events[8];
        int n;

        n = epoll_wait(s->epoll_fd, events, ELEMENTSOF(events), 0);
        if (n < 0)
                return errno == EINTR ? 0 : negative_errno();

        for (int i = 0; i < n; i++) {
                int fd = events[i].data.fd;

                if (fd == s->timer_fd) {
                        uint64_t expirations;
                        /* Drained so that it stops polling ready. Nothing to read: the event was the
                         * header's deadline, and the header came earlier in this batch and re-armed the
                         * timer (which clears a pending expiration), so the transfer goes on. */
                        ssize_t l = read(s->timer_fd, &expirations, sizeof(expirations));

                        if (l != (ssize_t) sizeof(expirations) || s->conn_fd < 0)
                                continue;
                        check_progress(s);
                } else if (fd == s->conn_fd)
                        read_transfer(s);
                else
                        for (size_t j = 0; j < s->n_listen_fds; j++)
                                if (fd == s->listen_fds[j])
                                        accept_one(s, fd);
        }
        return n > 0;
}

/* ---- the sender ---- */

static int connect_with_timeout(int fd, const struct sockaddr_in *sa, uint64_t timeout_usec) {
        struct pollfd pfd = { .fd = fd, .events = POLLOUT };
        socklen_t len = sizeof(int);
        int err = 0, r;

        if (connect(fd, (const struct sockaddr *) sa, sizeof(*sa)) >= 0)
                return 0;
        if (errno != EINPROGRESS)
                return negative_errno();
        r = poll(&pfd, 1, (int) (timeout_usec / USEC_PER_MSEC));
        if (r < 0)
                return negative_errno();
        if (r == 0)
                return -ETIMEDOUT;
        if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
                return negative_errno();
        return -err;
}

/* After the connection failed: whether the sink said busy before it closed (its bytes arrive before
 * its reset, and stay readable after it). */
static int failed_or_busy(int fd, int r) {
        char buf[BULK_BUSY_SIZE];

        if (recv(fd, buf, sizeof(buf), MSG_DONTWAIT | MSG_PEEK) == BULK_BUSY_SIZE &&
            memcmp(buf, BULK_BUSY, BULK_BUSY_SIZE) == 0)
                return -EBUSY;
        return r;
}

static int set_timeouts(int fd, uint64_t usec) {
        struct timeval tv = { .tv_sec = (time_t) (usec / USEC_PER_SEC),
                              .tv_usec = (suseconds_t) (usec % USEC_PER_SEC) };

        if (setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) < 0 ||
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0)
                return negative_errno();
        return 0;
}

/* Binds fd to local and a free privileged port (the sink serves those first), else, without the
 * privilege to, to an ephemeral one. Returns 1 for a privileged port, 0 for an ephemeral one. */
static int bind_source(int fd, const struct in_addr *local, bool privileged) {
        struct sockaddr_in la = { .sin_family = AF_INET, .sin_addr = *local };

        /* Downwards from the top, as bindresvport() does, past ports in use (TIME_WAIT of the last
         * run's connection included). */
        for (uint16_t p = PEER_BULK_PRIVILEGED_PORT_END - 1; privileged && p >= 600; p--) {
                la.sin_port = htons(p);
                if (bind(fd, (struct sockaddr *) &la, sizeof(la)) >= 0)
                        return 1;
                if (errno != EADDRINUSE)
                        break;
        }
        la.sin_port = 0;
        if (bind(fd, (struct sockaddr *) &la, sizeof(la)) < 0)
                return negative_errno();
        return 0;
}

static int bulk_send_once(
        const struct in_addr *local,
        const struct in_addr *remote,
        uint16_t port,
        uint64_t max_bytes,
        uint64_t max_usec,
        bool privileged,
        bool *ret_privileged,
        PeerBulkResult *ret) {
        struct sockaddr_in ra = { .sin_family = AF_INET, .sin_addr = *remote, .sin_port = htons(port) };
        _cleanup_(freep) uint8_t *chunk = NULL;
        _cleanup_(closep) int fd = -EBADF;
        uint64_t start, sent = 0, counted = 0;
        uint8_t count[8];
        size_t got = 0;
        int r;

        chunk = calloc(1, BULK_CHUNK);
        if (!chunk)
                return -ENOMEM;

        fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0)
                return negative_errno();
        r = bind_source(fd, local, privileged);
        if (r < 0)
                return r;
        *ret_privileged = r > 0;
        r = connect_with_timeout(fd, &ra, USEC_PER_SEC);
        if (r < 0)
                return r;
        /* Blocking from here on, each call bounded by the socket timeouts. */
        if (fcntl(fd, F_SETFL, 0) < 0)
                return negative_errno();
        r = set_timeouts(fd, USEC_PER_SEC);
        if (r < 0)
                return r;

        start = now(CLOCK_MONOTONIC);
        memcpy(chunk, BULK_HEADER, BULK_HEADER_SIZE);
        if (send(fd, chunk, BULK_HEADER_SIZE, MSG_NOSIGNAL) != BULK_HEADER_SIZE)
                return failed_or_busy(fd, -ECONNRESET);
        memset(chunk, 0, BULK_HEADER_SIZE);

        while (sent < max_bytes && now(CLOCK_MONOTONIC) - start < max_usec) {
                size_t n = max_bytes - sent < BULK_CHUNK ? (size_t) (max_bytes - sent) : BULK_CHUNK;
                ssize_t k = send(fd, chunk, n, MSG_NOSIGNAL);

                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        return failed_or_busy(
                                fd,
                                errno == EAGAIN          ? -ETIMEDOUT
                                        : errno == EPIPE ? -ECONNRESET
                                                         : negative_errno());
                }
                sent += (uint64_t) k;
        }
        /* A sink that refused the sender (not a node of its profile) may have reset the connection
         * while the last bytes were still in flight: then there is no connection left to shut down. */
        if (shutdown(fd, SHUT_WR) < 0)
                return failed_or_busy(fd, errno == ENOTCONN ? -ECONNRESET : negative_errno());

        /* The count comes once the sink has read everything in flight. */
        r = set_timeouts(fd, PEER_BULK_SERVER_TIME_MAX_USEC);
        if (r < 0)
                return r;
        while (got < sizeof(count)) {
                ssize_t k = recv(fd, count + got, sizeof(count) - got, 0);

                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        return errno == EAGAIN ? -ETIMEDOUT : negative_errno();
                }
                if (k == 0)
                        return -ECONNRESET;
                got += (size_t) k;
        }
        /* A busy sink that closed before our first bytes were sent, so that nothing failed on the way. */
        if (memcmp(count, BULK_BUSY, BULK_BUSY_SIZE) == 0)
                return -EBUSY;
        for (unsigned i = 0; i < 8; i++)
                counted = counted << 8 | count[i];
        if (counted > sent)
                return -EBADMSG;

        *ret = (PeerBulkResult){ .bytes = counted, .usec = now(CLOCK_MONOTONIC) - start };
        return 0;
}

int peer_bulk_send(
        const struct in_addr *local,
        const struct in_addr *remote,
        uint16_t port,
        uint64_t max_bytes,
        uint64_t max_usec,
        bool privileged,
        PeerBulkResult *ret) {
        int r;

        r = bulk_send_once(local, remote, port, max_bytes, max_usec, privileged, &privileged, ret);
        /* A sink from before privileged senders were served first refuses them: once more, as any. */
        if (r == -ECONNRESET && privileged)
                r = bulk_send_once(
                        local, remote, port, max_bytes, max_usec, /* privileged= */ false, &privileged, ret);
        return r;
}
