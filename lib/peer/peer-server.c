/* SPDX-License-Identifier: MIT */
/* The peer channel's UDP responder: answers the profile's other nodes, rate-limited (their halods
 * apart from their other programs), never larger. */
#include <arpa/inet.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "peer/peer-ratelimit.h"
#include "peer/peer.h"

/* A profile peer's address has two budgets: one for the datagrams from its halod's probe port, which
 * only that halod (or root) can send from (a privileged port, held on every address of its node, see
 * peer_probe_port()), and one for every other source port (haloctl probe, and any other process of
 * that node, which may flood). A flood from the second cannot silence the first. */
typedef enum SourceClass {
        SOURCE_HALOD,
        SOURCE_OTHER,
        _SOURCE_CLASS_MAX,
} SourceClass;

typedef struct PeerSource {
        struct in_addr address;
        TokenBucket bucket[_SOURCE_CLASS_MAX];
        TokenBucket notices[_SOURCE_CLASS_MAX]; /* rate-limited notices */
} PeerSource;

struct PeerServer {
        int epoll_fd;
        int *fds;
        struct in_addr *fd_addresses; /* the address each of fds is bound to */
        size_t n_fds;
        PeerIdentity self;
        PeerSource *sources; /* bounded by the profile: one per other node's address */
        size_t n_sources;
        uint16_t probe_port; /* the source port of the other halods' probes */
        PeerServerStats stats;
        usec_t (*clock)(clockid_t clock);
        PeerRdmaHelloHandler rdma_handler;
        void *rdma_userdata;
        void (*rdma_destroy)(void *);
        uint8_t buffer[PEER_MESSAGE_SIZE_MAX + 1];
};

uint16_t peer_probe_port(uint16_t port) {
        return port != PEER_PROBE_PORT ? PEER_PROBE_PORT : PEER_PROBE_PORT - 1;
}

PeerServer *peer_server_free(PeerServer *s) {
        if (!s)
                return NULL;
        if (s->rdma_destroy)
                s->rdma_destroy(s->rdma_userdata);
        for (size_t i = 0; i < s->n_fds; i++)
                safe_close(s->fds[i]);
        free(s->fds);
        free(s->fd_addresses);
        safe_close(s->epoll_fd);
        free(s->sources);
        return mfree(s);
}

/* Binds one datagram socket to addr:port and adds it to the epoll set. */
static int bind_one(PeerServer *s, const struct in_addr *addr, uint16_t port) {
        struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr = *addr, .sin_port = htons(port) };
        _cleanup_(closep) int fd = -EBADF;
        int one = 1, pmtu = IP_PMTUDISC_DO;
        struct epoll_event ev = { .events = EPOLLIN };

        fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0)
                return negative_errno();
        /* Don't-fragment on replies too: an MTU reply must cross whole or not at all. */
        if (setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &pmtu, sizeof(pmtu)) < 0)
                return negative_errno();
        /* The fabric address may be configured after the daemon starts. */
        if (setsockopt(fd, IPPROTO_IP, IP_FREEBIND, &one, sizeof(one)) < 0)
                return negative_errno();
        if (bind(fd, (struct sockaddr *) &sa, sizeof(sa)) < 0)
                return negative_errno();

        ev.data.fd = fd;
        if (epoll_ctl(s->epoll_fd, EPOLL_CTL_ADD, fd, &ev) < 0)
                return negative_errno();
        s->fd_addresses[s->n_fds] = *addr;
        s->fds[s->n_fds++] = TAKE_FD(fd);
        return 0;
}

int peer_server_open(
        const struct in_addr *bind_addrs,
        size_t n_bind_addrs,
        uint16_t port,
        const PeerIdentity *self,
        const struct in_addr *peers,
        size_t n_peers,
        PeerServer **ret) {
        _cleanup_(peer_server_freep) PeerServer *s = NULL;
        int r;

        if (n_bind_addrs == 0 || port == 0 || !self)
                return -EINVAL;

        s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        s->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
        if (s->epoll_fd < 0) {
                s->epoll_fd = -EBADF;
                return negative_errno();
        }
        s->self = *self;
        s->clock = now;
        s->probe_port = peer_probe_port(port);

        s->fds = calloc(n_bind_addrs, sizeof(int));
        s->fd_addresses = calloc(n_bind_addrs, sizeof(struct in_addr));
        s->sources = calloc(n_peers > 0 ? n_peers : 1, sizeof(PeerSource));
        if (!s->fds || !s->fd_addresses || !s->sources)
                return -ENOMEM;
        for (size_t i = 0; i < n_peers; i++)
                s->sources[s->n_sources++] = (PeerSource){ .address = peers[i] };

        for (size_t i = 0; i < n_bind_addrs; i++) {
                r = bind_one(s, &bind_addrs[i], port);
                if (r < 0)
                        return r;
        }

        *ret = TAKE_PTR(s);
        return 0;
}

int peer_server_fd(const PeerServer *s) {
        return s->epoll_fd;
}

void peer_server_set_identity(PeerServer *s, const PeerIdentity *self) {
        s->self = *self;
}

void peer_server_set_health(PeerServer *s, Health health) {
        if (health >= 0 && health < _HEALTH_MAX)
                s->self.health = health;
}

const PeerServerStats *peer_server_stats(const PeerServer *s) {
        return &s->stats;
}

void peer_server_set_clock(PeerServer *s, usec_t (*clock)(clockid_t clock)) {
        s->clock = clock ?: now;
}

void peer_server_set_rdma(PeerServer *s, PeerRdmaHelloHandler handler, void *userdata, void (*destroy)(void *)) {
        if (s->rdma_destroy)
                s->rdma_destroy(s->rdma_userdata);
        s->rdma_handler = handler;
        s->rdma_userdata = userdata;
        s->rdma_destroy = destroy;
}

static struct in_addr fd_address(const PeerServer *s, int fd) {
        for (size_t i = 0; i < s->n_fds; i++)
                if (s->fds[i] == fd)
                        return s->fd_addresses[i];
        return (struct in_addr){};
}

static PeerSource *find_source(PeerServer *s, struct in_addr a) {
        for (size_t i = 0; i < s->n_sources; i++)
                if (s->sources[i].address.s_addr == a.s_addr)
                        return &s->sources[i];
        return NULL;
}

static void send_rate_limited(
        PeerServer *s,
        int fd,
        const PeerMessage *request,
        size_t request_size,
        const struct sockaddr_in *to,
        socklen_t to_len) {
        PeerMessage notice;
        size_t size;

        if (peer_message_make_rate_limited(request, request_size, &s->self, &notice) < 0 ||
            peer_message_encode(&notice, s->buffer, request_size, &size) < 0)
                return;
        if (sendto(fd, s->buffer, size, MSG_DONTWAIT, (const struct sockaddr *) to, to_len) >= 0)
                s->stats.notices++;
}

int peer_server_handle(PeerServer *s) {
        uint8_t *buf = s->buffer;
        struct sockaddr_in from = {};
        socklen_t from_len = sizeof(from);
        struct epoll_event ev;
        PeerMessage request, reply;
        PeerSource *src;
        SourceClass class;
        size_t reply_size;
        usec_t t;
        ssize_t n;
        int r;

        r = epoll_wait(s->epoll_fd, &ev, 1, 0);
        if (r < 0)
                return errno == EINTR ? 0 : negative_errno();
        if (r == 0)
                return 0;

        /* MSG_TRUNC: n is the datagram's real length, so an oversized one is recognized. */
        n = recvfrom(
                ev.data.fd, buf, sizeof(s->buffer), MSG_DONTWAIT | MSG_TRUNC, (struct sockaddr *) &from, &from_len);
        if (n < 0) {
                if (errno == EAGAIN || errno == EINTR)
                        return 0;
                /* An ICMP error is reported once, on the next read; the datagram queue is intact. */
                if (errno == ECONNREFUSED || errno == EHOSTUNREACH || errno == ENETUNREACH)
                        return 1;
                return negative_errno();
        }

        /* Strangers first: their bytes are not even parsed. */
        src = from.sin_family == AF_INET ? find_source(s, from.sin_addr) : NULL;
        if (!src) {
                s->stats.refused_source++;
                return 1;
        }
        class = ntohs(from.sin_port) == s->probe_port ? SOURCE_HALOD : SOURCE_OTHER;
        /* The probe port is exempt: only the peer's halod holds it, however low it is. */
        if (class == SOURCE_OTHER && ntohs(from.sin_port) < 1024) {
                s->stats.refused_port++;
                return 1;
        }
        if ((size_t) n > PEER_MESSAGE_SIZE_MAX) {
                s->stats.oversized++;
                return 1;
        }
        if (peer_message_parse(buf, (size_t) n, &request) < 0) {
                s->stats.malformed++;
                return 1;
        }
        if (!peer_message_type_is_request(request.type)) {
                s->stats.not_request++;
                return 1;
        }
        t = s->clock(CLOCK_MONOTONIC);
        if (!token_bucket_take(&src->bucket[class], PEER_RATE_BURST, PEER_RATE_PER_SEC, t)) {
                if (class == SOURCE_HALOD)
                        s->stats.rate_limited_halod++;
                else
                        s->stats.rate_limited++;
                /* Now and then the requester learns why it gets no answer. */
                if (token_bucket_take(&src->notices[class], PEER_NOTICE_BURST, PEER_NOTICE_PER_SEC, t))
                        send_rate_limited(s, ev.data.fd, &request, (size_t) n, &from, from_len);
                return 1;
        }
        if (peer_message_make_reply(&request, (size_t) n, &s->self, &reply) < 0) {
                s->stats.malformed++;
                return 1;
        }
        /* Only now, after every check above: setting up a queue pair costs the responder. */
        if (reply.type == PEER_RDMA_HELLO_REPLY && s->rdma_handler)
                s->rdma_handler(
                        s->rdma_userdata,
                        fd_address(s, ev.data.fd),
                        from.sin_addr,
                        class == SOURCE_HALOD,
                        &request.rdma,
                        &reply.rdma);
        if (peer_message_encode(&reply, buf, (size_t) n, &reply_size) < 0) {
                s->stats.malformed++;
                return 1;
        }

        if (sendto(ev.data.fd, buf, reply_size, MSG_DONTWAIT, (struct sockaddr *) &from, from_len) < 0)
                s->stats.send_failed++;
        else
                s->stats.answered++;
        return 1;
}
