/* SPDX-License-Identifier: MIT */
/* The peer channel: the UDP responder, the prober, and the bounded TCP sink for throughput probes.
 * Nothing here runs an event loop: each server exposes one pollable fd for the caller's loop
 * (sd-event in halod, poll() in tests) and a handle function to call when it is readable. */
#pragma once

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/macro.h"
#include "basic/time-util.h"
#include "peer/peer-wire.h"

/* ---- responder (lib/peer/peer-server.c) ---- */

typedef struct PeerServer PeerServer;

/* Where a peer channel's server (the responder, the throughput sink) serves, and whom: the node's
 * fabric addresses (locals), the channel's port, and the peers it serves. */
typedef struct PeerEndpoints {
        const struct in_addr *locals;
        size_t n_locals;
        uint16_t port;
        const struct in_addr *peers;
        size_t n_peers;
} PeerEndpoints;

/* Every datagram that reaches the responder ends in exactly one of these counters (notices aside). */
typedef struct PeerServerStats {
        uint64_t answered;
        uint64_t refused_local;      /* sent to an address of this node that is not a fabric one */
        uint64_t refused_source;     /* not an address of another node of the profile */
        uint64_t refused_port;       /* below 1024, not the probe port (halod(8), PEER CHANNEL) */
        uint64_t oversized;          /* longer than PEER_MESSAGE_SIZE_MAX */
        uint64_t malformed;          /* peer_message_parse() said -EBADMSG */
        uint64_t not_request;        /* a reply sent to the responder: never answered */
        uint64_t rate_limited;       /* over the budget of a peer's other source ports */
        uint64_t rate_limited_halod; /* over the budget of a peer's halod (its probe port) */
        uint64_t send_failed;
        uint64_t notices; /* rate-limited notices sent (not a counter of their own: a subset of the two
                           * rate_limited ones) */
} PeerServerStats;

/* The source port of halod's probes: PEER_PROBE_PORT, a privileged port (below 1024), which only root
 * or a process with CAP_NET_BIND_SERVICE can bind; halod.service gives halod that capability. halod
 * holds it on every address of its node (0.0.0.0, SO_REUSEPORT, so only its own user can share it),
 * so that a responder can tell a node's halod from any other process of that node, at any time, a
 * restart of halod included, and give it a budget of its own (see halod(8), PEER CHANNEL). The one
 * below when port, the channel's own port, is PEER_PROBE_PORT. */
#define PEER_PROBE_PORT 739U
uint16_t peer_probe_port(uint16_t port) _pure_;
/* Holds peer_probe_port(port) on 0.0.0.0 for halod's probes: a socket that receives nothing (a filter
 * drops every datagram; the probes' own connected sockets get their replies). Returns the fd, -EACCES
 * without CAP_NET_BIND_SERVICE, -EADDRINUSE when a socket of another user, or one without
 * SO_REUSEPORT, holds the port on some address, or another negative errno. */
int peer_probe_port_hold(uint16_t port);

/* Binds UDP e->port on each of e->locals (IP_FREEBIND, so an address that is configured later still
 * works) and answers only sources in e->peers. */
int peer_server_open(const PeerEndpoints *e, const PeerIdentity *self, PeerServer **ret);
/* The same on fd, a datagram socket on 0.0.0.0:e->port that the service manager held across halod's
 * restarts (halod.socket), answering only requests sent to one of e->locals. Takes fd over, also on
 * failure; -EINVAL when it is not such a socket. */
int peer_server_adopt(int fd, const PeerEndpoints *e, const PeerIdentity *self, PeerServer **ret);
PeerServer *peer_server_free(PeerServer *s);
DEFINE_TRIVIAL_CLEANUP_FUNC(PeerServer *, peer_server_free);

/* Whether fd is an IPv4 socket of type (SOCK_DGRAM, or SOCK_STREAM listening) bound to port; makes it
 * non-blocking and, for a datagram socket, clears SO_REUSEADDR, which systemd sets on the sockets of a
 * socket unit: with it any user could bind a fabric address and the port beside it and, the more
 * specific match, take the datagrams. Returns 0, or -EINVAL when it is another socket. */
int peer_socket_check_inherited(int fd, int type, uint16_t port);

/* An epoll fd that is readable while a datagram waits on any bound address. */
int peer_server_fd(const PeerServer *s) _pure_;
/* Reads and handles at most one datagram. Returns 1 when one was handled (answered or dropped, see
 * the stats), 0 when none was waiting, negative errno on a local error. */
int peer_server_handle(PeerServer *s);
/* The identity sent in replies: health and digest change while the daemon runs. */
void peer_server_set_identity(PeerServer *s, const PeerIdentity *self);
/* Only the health, after each verify. */
void peer_server_set_health(PeerServer *s, Health health);
const PeerServerStats *peer_server_stats(const PeerServer *s) _pure_;
/* For tests: the clock the rate limiter reads, asked for CLOCK_MONOTONIC (NULL: now()). */
void peer_server_set_clock(PeerServer *s, usec_t (*clock)(clockid_t clock));
/* For tests: the source port told apart as the other halods' probe port, and the only privileged one
 * answered (a responder of a halod from before PEER_PROBE_PORT took health.port + 1). */
void peer_server_set_probe_port(PeerServer *s, uint16_t port);

/* Answers an rdma-hello request from source that arrived on the bound address local: fills reply's
 * RDMA block (see lib/rdma/rdma-responder.h for the one halod uses). from_halod: it came from the
 * peer's probe port, which only its halod can send from. Runs on the responder's thread. */
typedef void (*PeerRdmaHelloHandler)(
        void *userdata,
        struct in_addr local,
        struct in_addr source,
        bool from_halod,
        const PeerRdmaHello *request,
        PeerRdmaHello *reply);
/* Hands rdma-hello requests to handler; the server owns userdata from here on and releases it with
 * destroy (may be NULL) when it is freed or another handler is set. Without a handler they are
 * answered "no-device". */
void peer_server_set_rdma(PeerServer *s, PeerRdmaHelloHandler handler, void *userdata, void (*destroy)(void *));

/* ---- prober (lib/peer/peer-probe.c) ---- */

#define PEER_PROBE_COUNT_DEFAULT 20U
#define PEER_PROBE_TIMEOUT_USEC_DEFAULT (300U * 1000U)
/* Probes without a single answer after which the peer counts as not answering. */
#define PEER_PROBE_GIVE_UP 3U

typedef struct PeerProbeParams {
        struct in_addr local;  /* this node's address on the shared link: the source */
        struct in_addr remote; /* the peer's address on it */
        uint16_t port;
        uint16_t source_port; /* 0: an ephemeral one; else halod's probe port (peer_probe_port()),
                               * bound with SO_REUSEPORT beside the socket halod holds it with, and
                               * an ephemeral one when that fails */
        const PeerIdentity *self;
        unsigned count;        /* echo probes to send; MTU probes stop at the first answer */
        uint64_t timeout_usec; /* per probe */
        uint32_t mtu;          /* 0: echo probes; else MTU probes of mtu - 28 bytes, don't-fragment */
        bool liveness; /* echo probes without the warm-up that stop at the first answer, as MTU probes
                        * do: whether the peer answers, for one datagram each way (count: the tries) */
} PeerProbeParams;

typedef struct PeerProbeResult {
        unsigned sent;
        unsigned answered;
        int last_error;        /* negative errno seen on the way (-ECONNREFUSED: nothing listens; -EBUSY:
                                * the peer said it is rate-limiting us), or 0 */
        unsigned rate_limited; /* probes the peer answered with a rate-limited notice */
        PeerIdentity peer;     /* from the last reply, when answered > 0 */
        uint64_t rtt_min_usec;
        uint64_t rtt_median_usec;
        uint64_t rtt_p99_usec;
        uint64_t rtt_max_usec;
} PeerProbeResult;

/* Sends the probes one after the other, each waiting for its answer. Returns 0 with the result
 * (answered may be 0), or negative errno when no probe could be sent at all: -EADDRNOTAVAIL (local is
 * not configured here), -EMSGSIZE (the local link's MTU is below params->mtu), -ENETUNREACH... */
int peer_probe(const PeerProbeParams *params, PeerProbeResult *ret);

/* ---- many runs at once (lib/peer/peer-probe-round.c) ---- */

/* Runs in flight at once at most, one socket each: fewer when the process runs out of file
 * descriptors, and the others start as those end. */
#define PEER_ROUND_IN_FLIGHT_MAX 512U

typedef struct PeerProbeRound {
        uint64_t deadline;      /* now(CLOCK_MONOTONIC) by which the round ends; UINT64_MAX: none */
        int cancel_fd;          /* the round stops when it becomes readable (an eventfd); -EBADF: none */
        unsigned in_flight_max; /* 0: PEER_ROUND_IN_FLIGHT_MAX */
} PeerProbeRound;

/* Runs peer_probe() for each of the n params at once, each run's probes still one after the other.
 * ret_status[i] is then 0 with ret_results[i] filled, the negative errno peer_probe() returns for
 * params[i], or -EINPROGRESS when the run had not ended by the round's deadline (it was cut short or
 * never started). Returns 0, -ECANCELED when cancel_fd became readable (the statuses then mean
 * nothing), or negative errno for a local failure (-ENOMEM, -EMFILE for the epoll fd). */
int peer_probe_round(
        const PeerProbeParams *params,
        size_t n,
        const PeerProbeRound *round,
        int *ret_status,
        PeerProbeResult *ret_results);

/* Waits on the connected datagram socket fd until deadline (now(CLOCK_MONOTONIC)) for the reply of type
 * want to this sequence; buf holds PEER_MESSAGE_SIZE_MAX + 1 bytes. Returns 1 with the reply and, when
 * ret_received_usec is not NULL, its kernel receive time (CLOCK_REALTIME µs with SO_TIMESTAMPNS, else 0),
 * 0 on timeout, -EBUSY on timeout after the peer's rate-limited notice for this sequence (it runs, but
 * refused the request over its limit), negative errno for an ICMP error. Stale or foreign datagrams are
 * skipped. */
int peer_wait_reply(
        int fd,
        PeerMessageType want,
        uint32_t sequence,
        uint64_t deadline,
        uint8_t *buf,
        PeerMessage *ret,
        uint64_t *ret_received_usec);

/* Sorts n values in ascending order, for percentile_usec(). */
void sort_u64(uint64_t *v, size_t n);
/* Nearest-rank percentile of n sorted values (0 for n == 0). */
uint64_t percentile_usec(const uint64_t *sorted, size_t n, unsigned percent) _pure_;

/* ---- throughput: a bounded TCP sink and its sender (lib/peer/peer-bulk.c) ---- */

/* The sink ends a transfer after this long or this many bytes, whatever the sender does. */
#define PEER_BULK_SERVER_TIME_MAX_USEC (5U * 1000U * 1000U)
#define PEER_BULK_SERVER_BYTES_MAX (32ULL << 30)
/* A sender has this long from the connection's start to send its 8-byte header, or it is dropped: a
 * client that sends part of it and waits must not hold the one transfer slot. */
#define PEER_BULK_HEADER_DEADLINE_USEC (300U * 1000U)
/* After the header, a transfer must bring this many bytes in every interval of this length (8 Mbit/s,
 * a thousandth of the fabric's slowest link), or it is dropped: a sender that trickles (a byte every
 * 0.2 s) must not hold the one transfer slot for the full time bound, again and again. */
#define PEER_BULK_PROGRESS_USEC (500U * 1000U)
#define PEER_BULK_PROGRESS_BYTES (512U << 10)
/* Source ports below this one only root (or CAP_NET_BIND_SERVICE) can bind on a peer: a sender from one
 * takes the slot over from a transfer from an unprivileged port, which no local user can then hold. */
#define PEER_BULK_PRIVILEGED_PORT_END 1024U
/* What haloctl probe sends by default. */
#define PEER_BULK_TIME_USEC_DEFAULT (2U * 1000U * 1000U)
#define PEER_BULK_BYTES_DEFAULT (16ULL << 30)

typedef struct PeerBulkServer PeerBulkServer;

typedef struct PeerBulkStats {
        uint64_t completed;
        uint64_t refused_source; /* not a profile peer, or not to a fabric address of this node */
        uint64_t busy;           /* a transfer was already running: told "busy" and closed */
        uint64_t aborted; /* bad header, no header by its deadline, too slow, over the time or byte bound, or
                           * taken over */
        uint64_t header_timeout; /* of those aborted: no whole header by its deadline */
        uint64_t too_slow;       /* of those aborted: below PEER_BULK_PROGRESS_BYTES in an interval */
        uint64_t taken_over; /* of those aborted: from an unprivileged port, when a privileged one came */
        uint64_t bytes;      /* payload received by completed transfers */
} PeerBulkStats;

/* Listens on TCP e->port of each of e->locals; accepts one transfer at a time from e->peers only, a
 * sender from a privileged source port before any other. */
int peer_bulk_server_open(const PeerEndpoints *e, PeerBulkServer **ret);
/* The same on fd, a listening socket on 0.0.0.0:e->port that the service manager held across halod's
 * restarts (halod.socket), serving only connections to one of e->locals. Takes fd over, also on
 * failure; -EINVAL when it is not such a socket. */
int peer_bulk_server_adopt(int fd, const PeerEndpoints *e, PeerBulkServer **ret);
PeerBulkServer *peer_bulk_server_free(PeerBulkServer *s);
DEFINE_TRIVIAL_CLEANUP_FUNC(PeerBulkServer *, peer_bulk_server_free);
/* An epoll fd, readable on a new connection, data, or the running transfer's deadline. */
int peer_bulk_server_fd(const PeerBulkServer *s) _pure_;
/* Handles what is ready. Returns 1 when something was done, 0 when nothing was ready. */
int peer_bulk_server_handle(PeerBulkServer *s);
const PeerBulkStats *peer_bulk_server_stats(const PeerBulkServer *s) _pure_;
/* For tests: the header's deadline (0: PEER_BULK_HEADER_DEADLINE_USEC). */
void peer_bulk_server_set_header_deadline(PeerBulkServer *s, uint64_t usec);

typedef struct PeerBulkResult {
        uint64_t bytes; /* as counted by the peer */
        uint64_t usec;  /* from the connection's start to the peer's count */
} PeerBulkResult;

/* Sends zeros from local to remote's sink for up to max_usec or max_bytes and reads the peer's count.
 * privileged: from a privileged source port, when the caller may bind one (root), which the sink serves
 * first; else (and without the privilege) from an ephemeral one.
 * -ECONNREFUSED: no sink listens; -EBUSY: the sink said it runs another transfer; -ECONNRESET: the
 * peer closed without a count (we are not one of its profile peers, or a sink without the busy answer
 * was busy); -ETIMEDOUT. */
int peer_bulk_send(
        const struct in_addr *local,
        const struct in_addr *remote,
        uint16_t port,
        uint64_t max_bytes,
        uint64_t max_usec,
        bool privileged,
        PeerBulkResult *ret);
