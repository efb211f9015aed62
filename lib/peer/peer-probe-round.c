/* SPDX-License-Identifier: MIT */
/* A round of probe runs: many peers probed at once from one epoll loop, with one deadline for the
 * round and a file descriptor that cancels it, so that silent peers cost one probe timeout together
 * rather than one each, and whoever waits for the round can stop it at once. */
#include <sys/epoll.h>

#include "peer/peer-probe-run.h"
#include "peer/peer.h"

/* The epoll tag of the cancel fd: no run has this index. */
#define CANCEL_TAG UINT64_MAX

typedef struct Round {
        const PeerProbeParams *params;
        ProbeRun *runs;
        size_t n;
        size_t next; /* the next run to start */
        size_t in_flight;
        size_t in_flight_max;
        int epoll_fd;
        uint8_t *buf;
} Round;

/* Takes a finished run out of the epoll set and closes its socket. */
static void round_retire(Round *rd, size_t i) {
        ProbeRun *run = &rd->runs[i];

        if (run->fd >= 0)
                (void) epoll_ctl(rd->epoll_fd, EPOLL_CTL_DEL, run->fd, NULL);
        probe_run_done(run);
        rd->in_flight--;
}

/* Starts runs while there is room: at most in_flight_max, and fewer when the process is out of file
 * descriptors (the rest start as running ones end). Returns negative errno for a local failure. */
static int round_fill(Round *rd) {
        while (rd->next < rd->n && rd->in_flight < rd->in_flight_max) {
                size_t i = rd->next;
                ProbeRun *run = &rd->runs[i];
                struct epoll_event ev = { .events = EPOLLIN, .data.u64 = i };
                int r;

                r = probe_run_start(run, &rd->params[i], rd->buf);
                if (r < 0) {
                        if (rd->in_flight > 0)
                                return 0; /* out of fds: wait for a running one to end */
                        run->done = true;
                        run->status = r;
                }
                rd->next++;
                if (run->done)
                        continue;
                if (epoll_ctl(rd->epoll_fd, EPOLL_CTL_ADD, run->fd, &ev) < 0) {
                        r = negative_errno();
                        probe_run_done(run);
                        return r;
                }
                rd->in_flight++;
        }
        return 0;
}

/* The earliest moment something is due: the round's deadline or a probe in flight lost. */
static uint64_t round_next_deadline(const Round *rd) {
        uint64_t t = UINT64_MAX;

        for (size_t i = 0; i < rd->next; i++)
                if (!rd->runs[i].done && rd->runs[i].deadline < t)
                        t = rd->runs[i].deadline;
        return t;
}

static int epoll_timeout_ms(usec_t t, usec_t until) {
        uint64_t ms;

        if (until == UINT64_MAX)
                return -1;
        if (until <= t)
                return 0;
        ms = (until - t + USEC_PER_MSEC - 1) / USEC_PER_MSEC;
        return ms > INT32_MAX ? INT32_MAX : (int) ms;
}

int peer_probe_round(
        const PeerProbeParams *params,
        size_t n,
        const PeerProbeRound *o,
        int *ret_status,
        PeerProbeResult *ret_results) {
        _cleanup_(freep) ProbeRun *runs = NULL;
        _cleanup_(freep) uint8_t *buf = NULL;
        _cleanup_(closep) int epoll_fd = -EBADF;
        Round rd;
        int r = 0;

        if (n == 0)
                return 0;

        runs = calloc(n, sizeof(ProbeRun));
        buf = malloc(PEER_MESSAGE_SIZE_MAX + 1);
        if (!runs || !buf)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++)
                runs[i].fd = -EBADF;

        epoll_fd = epoll_create1(EPOLL_CLOEXEC);
        if (epoll_fd < 0)
                return negative_errno();
        if (o->cancel_fd >= 0 &&
            epoll_ctl(
                    epoll_fd,
                    EPOLL_CTL_ADD,
                    o->cancel_fd,
                    &(struct epoll_event){ .events = EPOLLIN, .data.u64 = CANCEL_TAG }) < 0)
                return negative_errno();

        rd = (Round){
                .params = params,
                .runs = runs,
                .n = n,
                .in_flight_max = o->in_flight_max > 0 ? o->in_flight_max : PEER_ROUND_IN_FLIGHT_MAX,
                .epoll_fd = epoll_fd,
                .buf = buf,
        };

        for (;;) {
                struct epoll_event events[64];
                usec_t t, due;
                int k;

                r = round_fill(&rd);
                if (r < 0)
                        break;
                if (rd.in_flight == 0 && rd.next == n)
                        break; /* every run is done */

                t = now(CLOCK_MONOTONIC);
                if (t >= o->deadline)
                        break;
                due = round_next_deadline(&rd);
                k = epoll_wait(
                        epoll_fd,
                        events,
                        ELEMENTSOF(events),
                        epoll_timeout_ms(t, due < o->deadline ? due : o->deadline));
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        r = negative_errno();
                        break;
                }
                for (int e = 0; e < k; e++) {
                        size_t i = (size_t) events[e].data.u64;

                        if (events[e].data.u64 == CANCEL_TAG) {
                                r = -ECANCELED;
                                break;
                        }
                        probe_run_readable(&runs[i], buf);
                        if (runs[i].done)
                                round_retire(&rd, i);
                }
                if (r < 0)
                        break;

                t = now(CLOCK_MONOTONIC);
                for (size_t i = 0; i < rd.next; i++) {
                        if (runs[i].done || runs[i].fd < 0)
                                continue;
                        probe_run_tick(&runs[i], t, buf);
                        if (runs[i].done)
                                round_retire(&rd, i);
                }
        }

        /* What did not finish is pending: the caller decides what that means. */
        for (size_t i = 0; i < n; i++) {
                if (!runs[i].done) {
                        probe_run_done(&runs[i]);
                        runs[i].status = -EINPROGRESS;
                }
                ret_status[i] = runs[i].status;
                ret_results[i] = runs[i].result;
        }
        return r;
}
