/* SPDX-License-Identifier: MIT */
/* The peer channel's wire format (UDP, version 1): encode, strict parse, and the reply rule. */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/macro.h"
#include "peer/health.h"
#include "rdma/rdma-hello.h"

/* See halod(8), PEER CHANNEL, for the byte layout. */
#define PEER_WIRE_MAGIC "HALO"
#define PEER_WIRE_VERSION 1U
#define PEER_HEADER_SIZE 26U
#define PEER_NAME_MAX 63U
#define PEER_DIGEST_SIZE 32U
/* The largest body: header, two names at their maximum, a digest. */
#define PEER_BODY_SIZE_MAX (PEER_HEADER_SIZE + 2U * PEER_NAME_MAX + PEER_DIGEST_SIZE)
/* Requests shorter than this are dropped: any reply fits in it, so an answer is never larger than the
 * question that caused it. */
#define PEER_REQUEST_SIZE_MIN 192U
/* Larger datagrams are dropped (and counted). Covers jumbo frames up to an MTU of 16412. */
#define PEER_MESSAGE_SIZE_MAX 16384U
/* IPv4 header (20) plus UDP header (8): an MTU probe carries MTU - 28 bytes of UDP payload. */
#define PEER_IPV4_UDP_OVERHEAD 28U
/* The RDMA block of rdma-hello messages (after the digest, before the padding), and its version. */
#define PEER_RDMA_BLOCK_SIZE 52U
#define PEER_RDMA_BLOCK_VERSION 1U
/* rdma-hello requests are at least this long: the largest rdma-hello reply (two 63-byte names, a
 * digest and the block: 236 bytes) always fits. */
#define PEER_RDMA_REQUEST_SIZE_MIN 256U

typedef enum PeerMessageType {
        PEER_ECHO_REQUEST = 1,
        PEER_ECHO_REPLY = 2,
        PEER_MTU_REQUEST = 3,
        PEER_MTU_REPLY = 4,
        PEER_RDMA_HELLO_REQUEST = 5, /* the queue-pair details of an RDMA probe, both ways */
        PEER_RDMA_HELLO_REPLY = 6,
        /* Instead of a reply, now and then: the request's sequence, no padding. The responder refused
         * the request as over its rate limit, so that the requester can say "rate-limited" rather than
         * "no answer". Never answered, like every reply. */
        PEER_RATE_LIMITED = 7,
        _PEER_MESSAGE_TYPE_MAX,
        _PEER_MESSAGE_TYPE_INVALID = -EINVAL,
} PeerMessageType;

const char *peer_message_type_to_string(PeerMessageType t) _pure_;
PeerMessageType peer_message_type_from_string(const char *s) _pure_;
bool peer_message_type_is_request(PeerMessageType t) _pure_;

/* Who a node says it is: the fields every message carries. */
typedef struct PeerIdentity {
        char cluster[PEER_NAME_MAX + 1];
        char node[PEER_NAME_MAX + 1];
        Health health;
        bool has_digest;
        uint8_t digest[PEER_DIGEST_SIZE];
} PeerIdentity;

/* Fills an identity; -ENAMETOOLONG or -EINVAL when a name does not fit the wire (1..63 printable
 * ASCII characters, no space). digest may be NULL. */
int peer_identity_init(
        PeerIdentity *ret, const char *cluster, const char *node, Health health, const uint8_t *digest);

typedef struct PeerMessage {
        PeerMessageType type;
        uint16_t flags; /* none defined in version 1: sent as 0, ignored on receipt */
        uint32_t sequence;
        uint64_t timestamp_usec; /* the requester's clock; a reply echoes it */
        PeerIdentity sender;
        PeerRdmaHello rdma; /* rdma-hello request and reply only */
        size_t padding;     /* zero bytes after the body */
} PeerMessage;

/* The encoded size of m. */
size_t peer_message_size(const PeerMessage *m) _pure_;
/* Encodes m into buf. -EINVAL for a field the wire cannot carry, -ENOBUFS when size is too small. */
int peer_message_encode(const PeerMessage *m, uint8_t *buf, size_t size, size_t *ret_size);
/* Parses one datagram. -EBADMSG for anything malformed: short, long, wrong magic or version,
 * unknown type or health, bad name, bad lengths, non-zero padding, a request below
 * PEER_REQUEST_SIZE_MIN (PEER_RDMA_REQUEST_SIZE_MIN for an rdma-hello), an RDMA block of another
 * version or with a field out of range. ret is untouched on failure. */
int peer_message_parse(const uint8_t *buf, size_t size, PeerMessage *ret);

/* Builds the answer of self to a request of request_size bytes: an echo reply carries no padding,
 * an MTU reply is padded to exactly request_size, an rdma-hello reply says PEER_RDMA_NO_DEVICE until
 * the caller fills its RDMA block. -EMSGSIZE when the reply would be larger than the request (never
 * sent: no amplification), -EINVAL when request is not a request. */
int peer_message_make_reply(
        const PeerMessage *request, size_t request_size, const PeerIdentity *self, PeerMessage *ret);
/* The rate-limited notice of self for request: no larger than the request, as every reply. */
int peer_message_make_rate_limited(
        const PeerMessage *request, size_t request_size, const PeerIdentity *self, PeerMessage *ret);
