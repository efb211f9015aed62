/* SPDX-License-Identifier: MIT */
/* The fabric's real use towards one peer over one interval (issue 27, check fabric.transport): did
 * the bulk go over RDMA, over TCP ("fell back to sockets"), or did nothing move. Pure: the callers
 * give the volumes (net/tcp-peer-bytes.h for TCP, the RDMA port counters' delta) and the holders of
 * QPs (rdma/rdma-qp-dump.h); nothing here reads the host.
 *
 * The threshold and the ratio, and why both boundary cases of the issue hold:
 * - Bulk means at least TRANSPORT_THRESHOLD_BPS_DEFAULT, 10 Mbit/s, of TCP to the peer (both
 *   directions added) averaged over the interval. Control traffic (Ray, Gloo, vLLM's API) is well
 *   under 1 Mbit/s on average: a tenth of the threshold, so it never trips. A sustained 100 Mbit/s
 *   is ten times the threshold: an interval it covers for more than a tenth trips, so with the
 *   default 60 s interval it trips in the first interval if it started 6 s before its end, and in
 *   the second (which it covers whole) in any case.
 * - The rate is taken over at least TRANSPORT_RATE_WINDOW_MIN_USEC (10 s) even when an interval is
 *   shorter (a verify asked for right after another): a burst of a few MB of control traffic would
 *   otherwise be a high rate over a short interval.
 * - "RDMA carries almost nothing": RDMA moved less than a tenth of what TCP moved
 *   (TRANSPORT_RDMA_SHARE_MIN). A workload on RDMA moves its tensors there and only its bootstrap
 *   over TCP, so RDMA outweighs TCP by far; halod's own peer.<node>.rdma exchange (a few KiB per
 *   round) stays far below a tenth of 75 MB (10 Mbit/s over 60 s).
 * - A device that counts packets only (rxe: sent_pkts, rcvd_pkts) proves that RDMA moves, never how
 *   much: a packet carries anything from nothing (an acknowledgement, a 1-byte ping-pong such as
 *   qperf's rc_lat) to a full MTU. So its count is an upper bound (packets × MTU) and no lower one:
 *   it can prove a fallback (even at full packets RDMA moved less than a tenth of TCP) but never rule
 *   one out; bulk TCP beside it is TRANSPORT_UNKNOWN, a warning that says it cannot tell, not a pass.
 * - The RDMA volume is the port's counters, not per peer (RoCE has no per-peer counter): a node whose
 *   workload uses RDMA to one peer and TCP to another does not warn for the second. The QP holders
 *   are named so that a reader can tell.
 * - A transition into or out of the fallback is reported once (TransportTransition), so that the
 *   journal logs each once; leaving needs one interval without bulk TCP (no hysteresis beyond the
 *   interval itself, which already averages). */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TRANSPORT_THRESHOLD_BPS_DEFAULT (10ULL * 1000ULL * 1000ULL)
#define TRANSPORT_RATE_WINDOW_MIN_USEC (10ULL * 1000ULL * 1000ULL)
/* RDMA must move at least 1/TRANSPORT_RDMA_SHARE_MIN of the TCP volume not to count as "nothing". */
#define TRANSPORT_RDMA_SHARE_MIN 10ULL
#define TRANSPORT_RDMA_MTU_DEFAULT 4096U

typedef enum TransportUse {
        TRANSPORT_IDLE, /* pass: no bulk either way (control traffic at most) */
        TRANSPORT_RDMA, /* pass: bulk over RDMA (TCP may move too) */
        TRANSPORT_TCP_BULK, /* pass: bulk over TCP beside RDMA that moved at least a tenth as much, under the threshold */
        TRANSPORT_FALLBACK, /* warn: bulk over TCP, RDMA almost nothing: fell back to sockets */
        TRANSPORT_UNKNOWN,  /* warn: bulk over TCP beside RDMA counted in packets only, which may carry
                             * a tenth as much or nearly nothing: cannot tell */
        _TRANSPORT_USE_MAX,
        _TRANSPORT_USE_INVALID = -EINVAL,
} TransportUse;

typedef enum TransportTransition {
        TRANSPORT_TRANSITION_NONE,
        TRANSPORT_TRANSITION_INTO_FALLBACK,
        TRANSPORT_TRANSITION_OUT_OF_FALLBACK,
        _TRANSPORT_TRANSITION_MAX,
        _TRANSPORT_TRANSITION_INVALID = -EINVAL,
} TransportTransition;

/* A process that holds QPs on the fabric's RDMA device. */
typedef struct TransportHolder {
        const char *comm; /* NULL when unknown (its /proc entry was gone or unreadable) */
        uint32_t pid;
        unsigned n_qps;
} TransportHolder;

typedef struct TransportInput {
        const char *peer;            /* the peer's node name, for the text */
        uint64_t tcp_bytes_sent;     /* tcp_info's bytes_acked, summed over the sockets to the peer */
        uint64_t tcp_bytes_received; /* tcp_info's bytes_received */
        uint64_t rdma_bytes;         /* the RDMA port's bytes, both directions, over the interval */
        /* For a device that counts packets only (rxe: hw_counters sent_pkts and rcvd_pkts), with
         * rdma_bytes 0: packets × rdma_mtu (0: 4096) is the most they can have carried, and nothing the
         * least (acknowledgements, small messages): the verdict judges with that range. */
        uint64_t rdma_packets;
        unsigned rdma_mtu;
        uint64_t interval_usec; /* > 0 */
        uint64_t threshold_bps; /* 0: TRANSPORT_THRESHOLD_BPS_DEFAULT */
        const TransportHolder *holders;
        size_t n_holders;
        bool was_fallback; /* the previous interval's verdict was TRANSPORT_FALLBACK */
} TransportInput;

typedef struct TransportVerdict {
        TransportUse use;
        TransportTransition transition;
        uint64_t tcp_bps;       /* over max(interval, TRANSPORT_RATE_WINDOW_MIN_USEC) */
        uint64_t rdma_bps;      /* likewise; with rdma_packets_only the most the packets can have carried */
        bool rdma_packets_only; /* the device counts packets only: rdma_bps is an upper bound */
        uint64_t rdma_pps;      /* then the packets per second, over the same window */
} TransportVerdict;

/* Whether the verdict is a warning: a fallback, or bulk TCP beside RDMA that cannot be told apart from
 * one. */
bool transport_use_is_warning(TransportUse u) _pure_;

/* Returns 0, or -EINVAL for an interval of 0. */
int transport_verdict(const TransportInput *in, TransportVerdict *ret);

/* The check's text for the verdict: what moved, the QPs' holders, and for the fallback its likely
 * causes and how to confirm. Returns 0 or -ENOMEM; *ret is the caller's to free. */
int transport_verdict_text(const TransportInput *in, const TransportVerdict *v, char **ret);

const char *transport_use_to_string(TransportUse u);
const char *transport_transition_to_string(TransportTransition t);
