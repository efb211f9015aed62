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
        int *fds; /* one per local address, or one on 0.0.0.0 (peer_server_adopt()) */
        size_t n_fds;
        struct in_addr *locals; /* the addresses answered on: a request's destination must be one */
        size_t n_locals;
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
        free(s->locals);
        safe_close(s->epoll_fd);
        free(s->sources);
        return mfree(s);
}

/* Sets what every socket of the responder needs, and adds it to the epoll set; takes fd over. */
static int add_socket(PeerServer *s, int fd_in) {
        _cleanup_(closep) int fd = fd_in;
        int one = 1, pmtu = IP_PMTUDISC_DO;
        struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };

        /* Don't-fragment on replies too: an MTU reply must cross whole or not at all. */
        if (setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &pmtu, sizeof(pmtu)) < 0)
                return negative_errno();
        /* Each request's destination: answered only on the node's fabric addresses, and from the
         * address asked. */
        if (setsockopt(fd, IPPROTO_IP, IP_PKTINFO, &one, sizeof(one)) < 0)
                return negative_errno();
        if (epoll_ctl(s->epoll_fd, EPOLL_CTL_ADD, fd, &ev) < 0)
                return negative_errno();
        s->fds[s->n_fds++] = TAKE_FD(fd);
        return 0;
}

/* Binds one datagram socket to addr:port and adds it to the epoll set. */
static int bind_one(PeerServer *s, const struct in_addr *addr, uint16_t port) {
        struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr = *addr, .sin_port = htons(port) };
        _cleanup_(closep) int fd = -EBADF;
        int one = 1;

        fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0)
                return negative_errno();
        /* The fabric address may be configured after the daemon starts. */
        if (setsockopt(fd, IPPROTO_IP, IP_FREEBIND, &one, sizeof(one)) < 0)
                return negative_errno();
        if (bind(fd, (struct sockaddr *) &sa, sizeof(sa)) < 0)
                return negative_errno();
        return add_socket(s, TAKE_FD(fd));
}

static int server_new(const PeerEndpoints *e, const PeerIdentity *self, PeerServer **ret) {
        _cleanup_(peer_server_freep) PeerServer *s = NULL;

        if (e->n_locals == 0 || e->port == 0 || !self)
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
        s->probe_port = peer_probe_port(e->port);

        s->fds = calloc(e->n_locals, sizeof(int));
        s->locals = calloc(e->n_locals, sizeof(struct in_addr));
        s->sources = calloc(e->n_peers > 0 ? e->n_peers : 1, sizeof(PeerSource));
        if (!s->fds || !s->locals || !s->sources)
                return -ENOMEM;
        memcpy(s->locals, e->locals, e->n_locals * sizeof(struct in_addr));
        s->n_locals = e->n_locals;
        for (size_t i = 0; i < e->n_peers; i++)
                s->sources[s->n_sources++] = (PeerSource){ .address = e->peers[i] };

        *ret = TAKE_PTR(s);
        return 0;
}

int peer_server_open(const PeerEndpoints *e, const PeerIdentity *self, PeerServer **ret) {
        _cleanup_(peer_server_freep) PeerServer *s = NULL;
        int r;

        r = server_new(e, self, &s);
        if (r < 0)
                return r;
        for (size_t i = 0; i < e->n_locals; i++) {
                r = bind_one(s, &e->locals[i], e->port);
                if (r < 0)
                        return r;
        }
        *ret = TAKE_PTR(s);
        return 0;
}

int peer_server_adopt(int fd_in, const PeerEndpoints *e, const PeerIdentity *self, PeerServer **ret) {
        _cleanup_(peer_server_freep) PeerServer *s = NULL;
        _cleanup_(closep) int fd = fd_in;
        int r;

        r = peer_socket_check_inherited(fd, SOCK_DGRAM, e->port);
        if (r < 0)
                return r;
        r = server_new(e, self, &s);
        if (r < 0)
                return r;
        r = add_socket(s, TAKE_FD(fd));
        if (r < 0)
                return r;
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

void peer_server_set_probe_port(PeerServer *s, uint16_t port) {
        s->probe_port = port;
}

void peer_server_set_rdma(PeerServer *s, PeerRdmaHelloHandler handler, void *userdata, void (*destroy)(void *)) {
        if (s->rdma_destroy)
                s->rdma_destroy(s->rdma_userdata);
        s->rdma_handler = handler;
        s->rdma_userdata = userdata;
        s->rdma_destroy = destroy;
}

static bool is_local(const PeerServer *s, struct in_addr a) {
        for (size_t i = 0; i < s->n_locals; i++)
                if (s->locals[i].s_addr == a.s_addr)
                        return true;
        return false;
}

static PeerSource *find_source(PeerServer *s, struct in_addr a) {
        for (size_t i = 0; i < s->n_sources; i++)
                if (s->sources[i].address.s_addr == a.s_addr)
                        return &s->sources[i];
        return NULL;
}

/* Sends size bytes of the buffer to to, from the local address local that the request was sent to. */
static int send_from(PeerServer *s, int fd, size_t size, const struct sockaddr_in *to, struct in_addr local) {
        union {
                struct cmsghdr align;
                uint8_t buf[CMSG_SPACE(sizeof(struct in_pktinfo))];
        } control = {};
        struct iovec iov = { .iov_base = s->buffer, .iov_len = size };
        struct msghdr mh = {
                .msg_name = (void *) to,
                .msg_namelen = sizeof(*to),
                .msg_iov = &iov,
                .msg_iovlen = 1,
                .msg_control = &control,
                .msg_controllen = sizeof(control),
        };
        struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
        struct in_pktinfo info = { .ipi_spec_dst = local };

        c->cmsg_level = IPPROTO_IP;
        c->cmsg_type = IP_PKTINFO;
        c->cmsg_len = CMSG_LEN(sizeof(info));
        memcpy(CMSG_DATA(c), &info, sizeof(info));
        return sendmsg(fd, &mh, MSG_DONTWAIT) < 0 ? negative_errno() : 0;
}

static void send_rate_limited(
        PeerServer *s,
        int fd,
        const PeerMessage *request,
        size_t request_size,
        const struct sockaddr_in *to,
        struct in_addr local) {
        PeerMessage notice;
        size_t size;

        if (peer_message_make_rate_limited(request, request_size, &s->self, &notice) < 0 ||
            peer_message_encode(&notice, s->buffer, request_size, &size) < 0)
                return;
        if (send_from(s, fd, size, to, local) >= 0)
                s->stats.notices++;
}

/* Reads one datagram from fd into the buffer with its source and the local address it was sent to.
 * Returns its length (MSG_TRUNC: the real one), or negative errno. */
static ssize_t receive(PeerServer *s, int fd, struct sockaddr_in *ret_from, struct in_addr *ret_local) {
        union {
                struct cmsghdr align;
                uint8_t buf[CMSG_SPACE(sizeof(struct in_pktinfo))];
        } control;
        struct iovec iov = { .iov_base = s->buffer, .iov_len = sizeof(s->buffer) };
        struct msghdr mh = {
                .msg_name = ret_from,
                .msg_namelen = sizeof(*ret_from),
                .msg_iov = &iov,
                .msg_iovlen = 1,
                .msg_control = &control,
                .msg_controllen = sizeof(control),
        };
        ssize_t n;

        n = recvmsg(fd, &mh, MSG_DONTWAIT | MSG_TRUNC);
        if (n < 0)
                return negative_errno();
        *ret_local = (struct in_addr){};
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
                if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_PKTINFO &&
                    c->cmsg_len >= CMSG_LEN(sizeof(struct in_pktinfo))) {
                        struct in_pktinfo info;

                        memcpy(&info, CMSG_DATA(c), sizeof(info));
                        *ret_local = info.ipi_addr;
                }
        return n;
}

int peer_server_handle(PeerServer *s) {
        uint8_t *buf = s->buffer;
        struct sockaddr_in from = {};
        struct in_addr local;
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
        n = receive(s, ev.data.fd, &from, &local);
        if (n < 0) {
                if (n == -EAGAIN || n == -EINTR)
                        return 0;
                /* An ICMP error is reported once, on the next read; the datagram queue is intact. */
                if (n == -ECONNREFUSED || n == -EHOSTUNREACH || n == -ENETUNREACH)
                        return 1;
                return (int) n;
        }

        /* Only on the node's fabric addresses: a socket on 0.0.0.0 (peer_server_adopt()) gets the
         * others' too. */
        if (!is_local(s, local)) {
                s->stats.refused_local++;
                return 1;
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
                        send_rate_limited(s, ev.data.fd, &request, (size_t) n, &from, local);
                return 1;
        }
        if (peer_message_make_reply(&request, (size_t) n, &s->self, &reply) < 0) {
                s->stats.malformed++;
                return 1;
        }
        /* Only now, after every check above: setting up a queue pair costs the responder. */
        if (reply.type == PEER_RDMA_HELLO_REPLY && s->rdma_handler)
                s->rdma_handler(
                        s->rdma_userdata, local, from.sin_addr, class == SOURCE_HALOD, &request.rdma, &reply.rdma);
        if (peer_message_encode(&reply, buf, (size_t) n, &reply_size) < 0) {
                s->stats.malformed++;
                return 1;
        }

        if (send_from(s, ev.data.fd, reply_size, &from, local) < 0)
                s->stats.send_failed++;
        else
                s->stats.answered++;
        return 1;
}
