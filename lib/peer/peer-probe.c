/* SPDX-License-Identifier: MIT */
/* The peer channel's prober: echo probes for reachability and round-trip time, MTU probes with
 * don't-fragment set for jumbo frames end to end. */
#include <arpa/inet.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>

#include "peer/peer.h"

uint64_t percentile_usec(const uint64_t *sorted, size_t n, unsigned percent) {
        size_t rank;

        if (n == 0)
                return 0;
        /* Nearest rank: the smallest value with at least percent% of the samples at or below it. */
        rank = (n * percent + 99) / 100;
        if (rank < 1)
                rank = 1;
        return sorted[rank - 1];
}

static int cmp_u64(const void *a, const void *b) {
        uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
        return x < y ? -1 : x > y;
}

void sort_u64(uint64_t *v, size_t n) {
        if (n > 0)
                qsort(v, n, sizeof(uint64_t), cmp_u64);
}

/* A datagram socket from local (any port) connected to remote:port, so that ICMP errors (port
 * unreachable: nothing listens) come back to us as errno. */
static int probe_socket(const PeerProbeParams *p) {
        struct sockaddr_in local = { .sin_family = AF_INET, .sin_addr = p->local };
        struct sockaddr_in remote = { .sin_family = AF_INET, .sin_addr = p->remote, .sin_port = htons(p->port) };
        _cleanup_(closep) int fd = -EBADF;
        int pmtu = IP_PMTUDISC_DO;

        fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return negative_errno();
        if (setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &pmtu, sizeof(pmtu)) < 0)
                return negative_errno();
        /* The kernel stamps each reply as it arrives, as ping(8) measures: the round trip then ends
         * when the reply reaches this host, not when the scheduler gets round to this process. Best
         * effort: without it the round trip ends at recvmsg(). */
        (void) setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &(int){ 1 }, sizeof(int));
        if (bind(fd, (struct sockaddr *) &local, sizeof(local)) < 0)
                return negative_errno();
        if (connect(fd, (struct sockaddr *) &remote, sizeof(remote)) < 0)
                return negative_errno();
        return TAKE_FD(fd);
}

static uint64_t realtime_usec(void) {
        struct timespec ts;

        (void) clock_gettime(CLOCK_REALTIME, &ts);
        return (uint64_t) ts.tv_sec * 1000000U + (uint64_t) ts.tv_nsec / 1000U;
}

/* The kernel's receive time of the datagram (CLOCK_REALTIME µs), 0 when there is none. */
static uint64_t receive_timestamp_usec(struct msghdr *mh) {
        for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c))
                if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS &&
                    c->cmsg_len >= CMSG_LEN(sizeof(struct timespec))) {
                        struct timespec ts;

                        memcpy(&ts, CMSG_DATA(c), sizeof(ts));
                        return (uint64_t) ts.tv_sec * 1000000U + (uint64_t) ts.tv_nsec / 1000U;
                }
        return 0;
}

int peer_wait_reply(
        int fd,
        PeerMessageType want,
        uint32_t sequence,
        uint64_t deadline,
        uint8_t *buf,
        PeerMessage *ret,
        uint64_t *ret_received_usec) {
        for (;;) {
                struct pollfd pfd = { .fd = fd, .events = POLLIN };
                uint64_t now = peer_now_usec();
                union {
                        struct cmsghdr align;
                        uint8_t buf[CMSG_SPACE(sizeof(struct timespec))];
                } control;
                struct iovec iov = { .iov_base = buf, .iov_len = PEER_MESSAGE_SIZE_MAX + 1 };
                struct msghdr mh = {
                        .msg_iov = &iov,
                        .msg_iovlen = 1,
                        .msg_control = &control,
                        .msg_controllen = sizeof(control),
                };
                PeerMessage m;
                ssize_t n;
                int r;

                if (now >= deadline)
                        return 0;
                r = poll(&pfd, 1, (int) ((deadline - now + 999) / 1000));
                if (r < 0) {
                        if (errno == EINTR)
                                continue;
                        return negative_errno();
                }
                if (r == 0)
                        return 0;

                n = recvmsg(fd, &mh, MSG_DONTWAIT | MSG_TRUNC);
                if (n < 0) {
                        if (errno == EAGAIN || errno == EINTR)
                                continue;
                        return negative_errno();
                }
                if ((size_t) n > PEER_MESSAGE_SIZE_MAX || peer_message_parse(buf, (size_t) n, &m) < 0)
                        continue;
                if (m.type != want || m.sequence != sequence)
                        continue;
                *ret = m;
                if (ret_received_usec)
                        *ret_received_usec = receive_timestamp_usec(&mh);
                return 1;
        }
}

int peer_probe(const PeerProbeParams *p, PeerProbeResult *ret) {
        _cleanup_(freep) uint8_t *buf = NULL;
        _cleanup_(freep) uint64_t *rtts = NULL;
        _cleanup_(closep) int fd = -EBADF;
        PeerProbeResult result = {};
        PeerMessage request = {}, reply;
        uint32_t base_sequence;
        size_t request_size;
        unsigned count, warmup;
        bool any_sent = false;
        int r;

        if (!p->self || p->port == 0 || p->timeout_usec == 0)
                return -EINVAL;

        request.sender = *p->self;
        if (p->mtu > 0) {
                if (p->mtu < PEER_IPV4_UDP_OVERHEAD + PEER_REQUEST_SIZE_MIN ||
                    p->mtu - PEER_IPV4_UDP_OVERHEAD > PEER_MESSAGE_SIZE_MAX)
                        return -ERANGE;
                request.type = PEER_MTU_REQUEST;
                request_size = p->mtu - PEER_IPV4_UDP_OVERHEAD;
                count = p->count > 0 ? p->count : PEER_PROBE_GIVE_UP;
        } else {
                request.type = PEER_ECHO_REQUEST;
                request_size = PEER_REQUEST_SIZE_MIN;
                count = p->count > 0 ? p->count : PEER_PROBE_COUNT_DEFAULT;
        }
        /* The padding brings the request to its size: long enough for any reply, or the full MTU. */
        if (peer_message_size(&request) > request_size)
                return -EINVAL;
        request.padding = request_size - peer_message_size(&request);

        buf = malloc(PEER_MESSAGE_SIZE_MAX + 1);
        rtts = calloc(count, sizeof(uint64_t));
        if (!buf || !rtts)
                return -ENOMEM;

        fd = probe_socket(p);
        if (fd < 0)
                return fd;

        /* A random start, so that replies to an earlier run are never taken for this one's. */
        if (getrandom(&base_sequence, sizeof(base_sequence), GRND_NONBLOCK) != sizeof(base_sequence))
                base_sequence = (uint32_t) peer_now_usec();

        /* Echo runs start with one probe that is not measured: it resolves the neighbour (ARP) and
         * wakes the path, which would otherwise show up as the p99 of every run. */
        warmup = request.type == PEER_ECHO_REQUEST ? 1 : 0;
        for (unsigned i = 0; i < warmup + count; i++) {
                bool measured = i >= warmup;
                uint64_t sent_at, sent_at_real, received_real = 0, rtt;
                size_t n;

                if (i >= warmup + PEER_PROBE_GIVE_UP && result.answered == 0)
                        break;

                request.sequence = base_sequence + i;
                sent_at = peer_now_usec();
                request.timestamp_usec = sent_at;
                r = peer_message_encode(&request, buf, PEER_MESSAGE_SIZE_MAX, &n);
                if (r < 0)
                        return r;
                sent_at_real = realtime_usec();
                if (send(fd, buf, n, 0) < 0) {
                        r = negative_errno();
                        /* Nothing was sent yet, and a local reason: say so instead of "no answer". */
                        if (!any_sent && r != -ECONNREFUSED)
                                return r;
                        result.last_error = r;
                        continue;
                }
                any_sent = true;
                if (measured)
                        result.sent++;

                r = peer_wait_reply(
                        fd,
                        request.type == PEER_MTU_REQUEST ? PEER_MTU_REPLY : PEER_ECHO_REPLY,
                        request.sequence,
                        sent_at + p->timeout_usec,
                        buf,
                        &reply,
                        &received_real);
                if (r < 0) {
                        result.last_error = r;
                        continue;
                }
                if (r == 0 || !measured)
                        continue;

                /* The kernel's stamp is on the wall clock: trusted only when it falls inside what
                 * the monotonic clock saw (a clock step in between would make it nonsense). */
                rtt = peer_now_usec() - sent_at;
                if (received_real >= sent_at_real && received_real - sent_at_real <= rtt)
                        rtt = received_real - sent_at_real;
                rtts[result.answered++] = rtt;
                result.peer = reply.sender;
                if (request.type == PEER_MTU_REQUEST)
                        break;
        }

        if (result.answered > 0) {
                sort_u64(rtts, result.answered);
                result.rtt_min_usec = rtts[0];
                result.rtt_max_usec = rtts[result.answered - 1];
                result.rtt_median_usec = percentile_usec(rtts, result.answered, 50);
                result.rtt_p99_usec = percentile_usec(rtts, result.answered, 99);
        }
        *ret = result;
        return 0;
}
