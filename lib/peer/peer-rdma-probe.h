/* SPDX-License-Identifier: MIT */
/* The prober's side of the RDMA probe: the queue-pair exchange over the peer channel (rdma-hello),
 * then an RC ping-pong and an RDMA WRITE bandwidth run against the peer's halod. */
#pragma once

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>

#include "peer/peer-wire.h"
#include "rdma/rdma-qp.h"
#include "rdma/rdma-responder.h"
#include "rdma/rdma.h"

#define RDMA_PROBE_PINGS_DEFAULT 1000U
/* The ping-pong stops after that many pings or this long, whichever comes first, as the bandwidth
 * run does: over a slow path (soft-RoCE under an emulator, a fabric that retransmits) 1000 round trips
 * took half a minute. Pings go in batches of RDMA_PROBE_PING_BATCH, the clock looked at between. */
#define RDMA_PROBE_PING_USEC_DEFAULT (5U * 1000U * 1000U)
#define RDMA_PROBE_PING_BATCH 50U
/* Per hello try (3 tries). */
#define RDMA_PROBE_TIMEOUT_USEC_DEFAULT (300U * 1000U)
/* Per echo (and for the bye's acknowledgement) once connected: RC retransmits a lost SEND (after
 * about 1 s, RDMA_ACK_TIMEOUT in rdma-qp.c), so a late echo is a slow path, not a lost one. 300 ms,
 * the hello's, failed probes over soft-RoCE on a busy emulated host that a longer wait completed. */
#define RDMA_PROBE_ECHO_TIMEOUT_USEC_DEFAULT (5U * 1000U * 1000U)
/* The bandwidth run: bounded like the TCP one, and well inside the responder's session timeout. */
#define RDMA_PROBE_WRITE_USEC_DEFAULT (2U * 1000U * 1000U)
#define RDMA_PROBE_WRITE_BYTES_DEFAULT (16ULL << 30)
#define RDMA_HELLO_TRIES 3U
/* A peer whose responder is busy (it serves one probe at a time: another node's, or halod's own RDMA
 * peer check, which holds it for a few round trips every health.interval) is asked again every
 * RDMA_PROBE_BUSY_RETRY_USEC for this long before the probe reports it busy: longer than the
 * responder's idle timeout, since an exchange that failed holds its session until then. 3 s, less
 * than that, failed one haloctl probe in 50 in the vm suite against halod's own peer.<node>.rdma. */
#define RDMA_PROBE_BUSY_WAIT_USEC_DEFAULT (RDMA_RESPONDER_TIMEOUT_USEC_DEFAULT + 2U * 1000U * 1000U)
#define RDMA_PROBE_BUSY_RETRY_USEC (100U * 1000U)

typedef struct RdmaProbeParams {
        RdmaDevice *device;    /* this node's device on the link (borrowed) */
        RdmaGidType gid_type;  /* the profile's rdma.gid */
        struct in_addr local;  /* this node's address on the link: the GID entry and the hello's source */
        struct in_addr remote; /* the peer's address on it */
        uint16_t port;         /* the peer channel's */
        uint16_t source_port;  /* the hello's: 0 for an ephemeral one, or halod's probe port (see
                                * PeerProbeParams), whose hellos take over a session of any other */
        const PeerIdentity *self;
        unsigned pings;             /* 0: RDMA_PROBE_PINGS_DEFAULT */
        uint64_t ping_usec;         /* 0: RDMA_PROBE_PING_USEC_DEFAULT */
        uint64_t timeout_usec;      /* the hello's; 0: RDMA_PROBE_TIMEOUT_USEC_DEFAULT */
        uint64_t echo_timeout_usec; /* 0: RDMA_PROBE_ECHO_TIMEOUT_USEC_DEFAULT */
        uint64_t write_usec;        /* 0: RDMA_PROBE_WRITE_USEC_DEFAULT */
        uint64_t write_bytes;       /* 0: RDMA_PROBE_WRITE_BYTES_DEFAULT */
        uint64_t busy_wait_usec;    /* 0: RDMA_PROBE_BUSY_WAIT_USEC_DEFAULT; UINT64_MAX: ask once */
        bool write_path_mtu;        /* one RDMA WRITE of the path MTU instead of the bandwidth run (halod's
                                     * peer round: write_bytes and write_usec are ignored) */
} RdmaProbeParams;

typedef struct RdmaProbeResult {
        PeerRdmaStatus peer_status; /* PEER_RDMA_OK: measured; else what the peer said, nothing measured */
        PeerIdentity peer;
        uint32_t gid_index;       /* this end's */
        uint32_t peer_gid_index;  /* the peer's */
        struct in6_addr gid;      /* this end's GID (the IPv4-mapped address for RoCE v2) */
        struct in6_addr peer_gid; /* the peer's, from its rdma-hello */
        unsigned path_mtu;        /* bytes: the smaller active MTU of the two ports */
        unsigned active_mtu;      /* bytes: this end's port's (NICs differ: mlx5 runs a smaller RDMA
                                   * MTU than irdma on the same netdev MTU) */
        unsigned peer_active_mtu; /* bytes: the peer's, from its rdma-hello */
        unsigned pings;           /* done: fewer than asked when the ping time ran out */
        uint64_t rtt_min_nsec;
        uint64_t rtt_median_nsec;
        uint64_t rtt_p99_nsec;
        uint64_t rtt_max_nsec;
        uint64_t write_bytes;
        uint64_t write_nsec;
} RdmaProbeResult;

/* Sends request as an rdma-hello (padded to PEER_RDMA_REQUEST_SIZE_MIN, so that the reply is never
 * the larger) from local (and source_port, see RdmaProbeParams) to remote:port, RDMA_HELLO_TRIES times
 * at most, each waiting timeout_usec.
 * Returns 0 with the peer's identity and reply, -ETIMEDOUT when none came, -ECONNREFUSED when
 * nothing listens there, or another negative errno from the socket. */
int peer_rdma_hello(
        struct in_addr local,
        uint16_t source_port,
        struct in_addr remote,
        uint16_t port,
        const PeerIdentity *self,
        const PeerRdmaHello *request,
        uint64_t timeout_usec,
        PeerIdentity *ret_peer,
        PeerRdmaHello *ret_reply);

/* The whole probe. Returns 0 with the result (peer_status says whether anything was measured), or
 * negative errno with error saying which step failed and why. */
int rdma_probe(const RdmaProbeParams *p, RdmaError *error, RdmaProbeResult *ret);
