/* SPDX-License-Identifier: MIT */
/* The peer channel's prober: one run of echo probes for reachability and round-trip time, or of MTU
 * probes with don't-fragment set for jumbo frames end to end, as a state machine that
 * lib/peer/peer-probe-round.c drives (many runs at once). */
#include <arpa/inet.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/random.h>
#include <sys/socket.h>

#include "peer/peer-probe-run.h"
#include "peer/peer-source.h"
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

/* A datagram socket from local connected to remote:port, so that ICMP errors (port unreachable:
 * nothing listens) come back to us as errno. */
static int probe_socket(const PeerProbeParams *p) {
        struct sockaddr_in remote = { .sin_family = AF_INET, .sin_addr = p->remote, .sin_port = htons(p->port) };
        _cleanup_(closep) int fd = -EBADF;
        int pmtu = IP_PMTUDISC_DO, r;

        fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return negative_errno();
        if (setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &pmtu, sizeof(pmtu)) < 0)
                return negative_errno();
        /* The kernel stamps each reply as it arrives, as ping(8) measures: the round trip then ends
         * when the reply reaches this host, not when the scheduler gets round to this process. Best
         * effort: without it the round trip ends at recvmsg(). */
        (void) setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &(int){ 1 }, sizeof(int));
        r = peer_bind_source(fd, p->local, p->source_port);
        if (r < 0)
                return r;
        if (connect(fd, (struct sockaddr *) &remote, sizeof(remote)) < 0)
                return negative_errno();
        return TAKE_FD(fd);
}

/* The kernel's receive time of the datagram (CLOCK_REALTIME µs), 0 when there is none. */
static uint64_t receive_timestamp_usec(struct msghdr *mh) {
        for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c))
                if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS &&
                    c->cmsg_len >= CMSG_LEN(sizeof(struct timespec))) {
                        struct timespec ts;

                        memcpy(&ts, CMSG_DATA(c), sizeof(ts));
                        return timespec_load(&ts);
                }
        return 0;
}

/* Reads one datagram from fd without blocking. Returns 1 with the reply of type want to sequence
 * (and its kernel receive time, see peer_wait_reply()), 0 for a stale, foreign or malformed datagram,
 * -EAGAIN when none waits, -EBUSY for the peer's rate-limited notice for sequence, or another
 * negative errno for an ICMP error. */
static int receive_reply(
        int fd,
        PeerMessageType want,
        uint32_t sequence,
        uint8_t *buf,
        PeerMessage *ret,
        uint64_t *ret_received_usec) {
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

        n = recvmsg(fd, &mh, MSG_DONTWAIT | MSG_TRUNC);
        if (n < 0)
                return errno == EINTR ? 0 : negative_errno();
        if ((size_t) n > PEER_MESSAGE_SIZE_MAX || peer_message_parse(buf, (size_t) n, &m) < 0)
                return 0;
        if (m.type == PEER_RATE_LIMITED && m.sequence == sequence)
                return -EBUSY;
        if (m.type != want || m.sequence != sequence)
                return 0;
        *ret = m;
        if (ret_received_usec)
                *ret_received_usec = receive_timestamp_usec(&mh);
        return 1;
}

int peer_wait_reply(
        int fd,
        PeerMessageType want,
        uint32_t sequence,
        uint64_t deadline,
        uint8_t *buf,
        PeerMessage *ret,
        uint64_t *ret_received_usec) {
        bool rate_limited = false;

        for (;;) {
                struct pollfd pfd = { .fd = fd, .events = POLLIN };
                usec_t t = now(CLOCK_MONOTONIC);
                int r;

                if (t >= deadline)
                        return rate_limited ? -EBUSY : 0;
                r = poll(&pfd, 1, (int) ((deadline - t + USEC_PER_MSEC - 1) / USEC_PER_MSEC));
                if (r < 0) {
                        if (errno == EINTR)
                                continue;
                        return negative_errno();
                }
                if (r == 0)
                        return rate_limited ? -EBUSY : 0;

                r = receive_reply(fd, want, sequence, buf, ret, ret_received_usec);
                /* A rate-limited notice: the reply will not come, but the caller waits its time, and
                 * then hears why. */
                if (r == -EBUSY)
                        rate_limited = true;
                if (r == -EAGAIN || r == 0 || r == -EBUSY)
                        continue;
                return r;
        }
}

static void run_finish(ProbeRun *run, int status) {
        PeerProbeResult *res = &run->result;

        run->done = true;
        run->status = status;
        if (status == 0 && res->answered > 0) {
                sort_u64(run->rtts, res->answered);
                res->rtt_min_usec = run->rtts[0];
                res->rtt_max_usec = run->rtts[res->answered - 1];
                res->rtt_median_usec = percentile_usec(run->rtts, res->answered, 50);
                res->rtt_p99_usec = percentile_usec(run->rtts, res->answered, 99);
        }
        run->fd = safe_close(run->fd);
        run->rtts = mfree(run->rtts);
}

/* Sends probes from run->index on until one is in flight, or the run is over. */
static void run_send(ProbeRun *run, uint8_t *buf) {
        for (; run->index < run->warmup + run->count; run->index++) {
                bool measured = run->index >= run->warmup;
                size_t n;
                int r;

                if (run->index >= run->warmup + PEER_PROBE_GIVE_UP && run->result.answered == 0)
                        break;

                run->request.sequence = run->base_sequence + run->index;
                run->sent_at = now(CLOCK_MONOTONIC);
                run->request.timestamp_usec = run->sent_at;
                r = peer_message_encode(&run->request, buf, PEER_MESSAGE_SIZE_MAX, &n);
                if (r < 0) {
                        run_finish(run, r);
                        return;
                }
                run->sent_at_real = now(CLOCK_REALTIME);
                if (send(run->fd, buf, n, 0) < 0) {
                        r = negative_errno();
                        /* Nothing was sent yet, and a local reason: say so instead of "no answer". */
                        if (!run->any_sent && r != -ECONNREFUSED) {
                                run_finish(run, r);
                                return;
                        }
                        run->result.last_error = r;
                        continue;
                }
                run->any_sent = true;
                if (measured)
                        run->result.sent++;
                run->deadline = run->sent_at + run->params->timeout_usec;
                return;
        }
        run_finish(run, 0);
}

/* A run that ends before it starts (bad parameters, no socket): done, with the reason as status. */
static int run_refused(ProbeRun *run, int r) {
        run_finish(run, r);
        return 0;
}

int probe_run_start(ProbeRun *run, const PeerProbeParams *p, uint8_t *buf) {
        int fd;

        *run = (ProbeRun){ .params = p, .fd = -EBADF };
        if (!p->self || p->port == 0 || p->timeout_usec == 0)
                return run_refused(run, -EINVAL);

        run->request.sender = *p->self;
        if (p->mtu > 0) {
                if (p->mtu < PEER_IPV4_UDP_OVERHEAD + PEER_REQUEST_SIZE_MIN ||
                    p->mtu - PEER_IPV4_UDP_OVERHEAD > PEER_MESSAGE_SIZE_MAX)
                        return run_refused(run, -ERANGE);
                run->request.type = PEER_MTU_REQUEST;
                run->request_size = p->mtu - PEER_IPV4_UDP_OVERHEAD;
                run->count = p->count > 0 ? p->count : PEER_PROBE_GIVE_UP;
        } else {
                run->request.type = PEER_ECHO_REQUEST;
                run->request_size = PEER_REQUEST_SIZE_MIN;
                run->count = p->count > 0 ? p->count
                        : p->liveness     ? PEER_PROBE_GIVE_UP
                                          : PEER_PROBE_COUNT_DEFAULT;
        }
        /* The padding brings the request to its size: long enough for any reply, or the full MTU. */
        if (peer_message_size(&run->request) > run->request_size)
                return run_refused(run, -EINVAL);
        run->request.padding = run->request_size - peer_message_size(&run->request);

        run->rtts = calloc(run->count, sizeof(uint64_t));
        if (!run->rtts)
                return run_refused(run, -ENOMEM);

        fd = probe_socket(p);
        if (fd == -EMFILE || fd == -ENFILE) {
                run->rtts = mfree(run->rtts);
                return fd;
        }
        if (fd < 0)
                return run_refused(run, fd);
        run->fd = fd;

        /* A random start, so that replies to an earlier run are never taken for this one's. */
        if (getrandom(&run->base_sequence, sizeof(run->base_sequence), GRND_NONBLOCK) !=
            sizeof(run->base_sequence))
                run->base_sequence = (uint32_t) now(CLOCK_MONOTONIC);

        /* Echo runs start with one probe that is not measured: it resolves the neighbour (ARP) and
         * wakes the path, which would otherwise show up as the p99 of every run. */
        run->warmup = run->request.type == PEER_ECHO_REQUEST && !p->liveness ? 1 : 0;
        run_send(run, buf);
        return 0;
}

void probe_run_readable(ProbeRun *run, uint8_t *buf) {
        PeerMessageType want = run->request.type == PEER_MTU_REQUEST ? PEER_MTU_REPLY : PEER_ECHO_REPLY;

        while (!run->done) {
                uint64_t received_real = 0, rtt;
                PeerMessage reply;
                int r;

                r = receive_reply(run->fd, want, run->request.sequence, buf, &reply, &received_real);
                if (r == -EAGAIN)
                        return;
                if (r < 0) {
                        /* An ICMP error or a rate-limited notice for the probe in flight: on to the
                         * next one at once. */
                        if (r == -EBUSY)
                                run->result.rate_limited++;
                        run->result.last_error = r;
                        run->index++;
                        run_send(run, buf);
                        continue;
                }
                if (r == 0)
                        continue; /* stale or foreign */

                if (run->index >= run->warmup) {
                        /* The kernel's stamp is on the wall clock: trusted only when it falls inside
                         * what the monotonic clock saw (a clock step in between would make it nonsense). */
                        rtt = now(CLOCK_MONOTONIC) - run->sent_at;
                        if (received_real >= run->sent_at_real && received_real - run->sent_at_real <= rtt)
                                rtt = received_real - run->sent_at_real;
                        run->rtts[run->result.answered++] = rtt;
                        run->result.peer = reply.sender;
                        if (run->request.type == PEER_MTU_REQUEST || run->params->liveness) {
                                run_finish(run, 0);
                                return;
                        }
                }
                run->index++;
                run_send(run, buf);
        }
}

void probe_run_tick(ProbeRun *run, uint64_t now, uint8_t *buf) {
        if (run->done || now < run->deadline)
                return;
        run->index++;
        run_send(run, buf);
}

void probe_run_done(ProbeRun *run) {
        run->fd = safe_close(run->fd);
        run->rtts = mfree(run->rtts);
}

int peer_probe(const PeerProbeParams *p, PeerProbeResult *ret) {
        PeerProbeRound round = { .deadline = UINT64_MAX, .cancel_fd = -EBADF };
        PeerProbeResult result;
        int status, r;

        r = peer_probe_round(p, 1, &round, &status, &result);
        if (r < 0)
                return r;
        if (status < 0)
                return status;
        *ret = result;
        return 0;
}
