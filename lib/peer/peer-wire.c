/* SPDX-License-Identifier: MIT */
/* The peer channel's wire format: every field length-checked on the way in and on the way out. */
#include <string.h>

#include "basic/rdma-mtu.h"
#include "peer/peer-wire.h"

/* Offsets of the fixed header (all integers big-endian). */
enum {
        OFF_MAGIC = 0,
        OFF_VERSION = 4,
        OFF_TYPE = 5,
        OFF_FLAGS = 6,
        OFF_SEQUENCE = 8,
        OFF_TIMESTAMP = 12,
        OFF_HEALTH = 20,
        OFF_CLUSTER_LEN = 21,
        OFF_NODE_LEN = 22,
        OFF_DIGEST_LEN = 23,
        OFF_PADDING_LEN = 24,
};

/* Offsets inside the RDMA block of rdma-hello messages. */
enum {
        RDMA_OFF_VERSION = 0,
        RDMA_OFF_STATUS = 1,
        RDMA_OFF_MTU = 2,
        RDMA_OFF_QPN = 4,
        RDMA_OFF_PSN = 8,
        RDMA_OFF_GID_INDEX = 12,
        RDMA_OFF_GID = 16,
        RDMA_OFF_RKEY = 32,
        RDMA_OFF_ADDR = 36,
        RDMA_OFF_LENGTH = 44,
};
_Static_assert(RDMA_OFF_LENGTH + 8 == PEER_RDMA_BLOCK_SIZE, "RDMA block layout and size disagree");

/* 24-bit fields of the InfiniBand transport (QPN, PSN). */
#define RDMA_24BIT_MAX 0xffffffU

static const char *const peer_message_type_table[_PEER_MESSAGE_TYPE_MAX] = {
        [PEER_ECHO_REQUEST] = "echo-request",
        [PEER_ECHO_REPLY] = "echo-reply",
        [PEER_MTU_REQUEST] = "mtu-request",
        [PEER_MTU_REPLY] = "mtu-reply",
        [PEER_RDMA_HELLO_REQUEST] = "rdma-hello-request",
        [PEER_RDMA_HELLO_REPLY] = "rdma-hello-reply",
        [PEER_RATE_LIMITED] = "rate-limited",
};

DEFINE_STRING_TABLE_LOOKUP(peer_message_type, PeerMessageType);

bool peer_message_type_is_request(PeerMessageType t) {
        return t == PEER_ECHO_REQUEST || t == PEER_MTU_REQUEST || t == PEER_RDMA_HELLO_REQUEST;
}

static bool type_has_rdma_block(PeerMessageType t) {
        return t == PEER_RDMA_HELLO_REQUEST || t == PEER_RDMA_HELLO_REPLY;
}

/* Names travel as 1..63 bytes of printable ASCII without spaces, so that whatever a peer sends can be
 * printed in a check summary or a log line as it is. */
static bool peer_name_is_valid(const char *s, size_t n) {
        if (n < 1 || n > PEER_NAME_MAX)
                return false;
        for (size_t i = 0; i < n; i++)
                if (s[i] <= ' ' || s[i] > '~')
                        return false;
        return true;
}

int peer_identity_init(
        PeerIdentity *ret, const char *cluster, const char *node, Health health, const uint8_t *digest) {
        PeerIdentity id = { .health = health };

        if (!cluster || !node || health < 0 || health >= _HEALTH_MAX)
                return -EINVAL;
        if (strlen(cluster) > PEER_NAME_MAX || strlen(node) > PEER_NAME_MAX)
                return -ENAMETOOLONG;
        if (!peer_name_is_valid(cluster, strlen(cluster)) || !peer_name_is_valid(node, strlen(node)))
                return -EINVAL;

        strcpy(id.cluster, cluster);
        strcpy(id.node, node);
        if (digest) {
                id.has_digest = true;
                memcpy(id.digest, digest, PEER_DIGEST_SIZE);
        }
        *ret = id;
        return 0;
}

static size_t body_size(const PeerIdentity *id) {
        return PEER_HEADER_SIZE + strlen(id->cluster) + strlen(id->node) +
                (id->has_digest ? PEER_DIGEST_SIZE : 0);
}

size_t peer_message_size(const PeerMessage *m) {
        return body_size(&m->sender) + (type_has_rdma_block(m->type) ? PEER_RDMA_BLOCK_SIZE : 0) + m->padding;
}

static void put_be16(uint8_t *p, uint16_t v) {
        p[0] = (uint8_t) (v >> 8);
        p[1] = (uint8_t) v;
}

static void put_be32(uint8_t *p, uint32_t v) {
        for (unsigned i = 0; i < 4; i++)
                p[i] = (uint8_t) (v >> (24 - 8 * i));
}

static void put_be64(uint8_t *p, uint64_t v) {
        for (unsigned i = 0; i < 8; i++)
                p[i] = (uint8_t) (v >> (56 - 8 * i));
}

static uint16_t get_be16(const uint8_t *p) {
        return (uint16_t) (p[0] << 8 | p[1]);
}

static uint32_t get_be32(const uint8_t *p) {
        return (uint32_t) p[0] << 24 | (uint32_t) p[1] << 16 | (uint32_t) p[2] << 8 | p[3];
}

static uint64_t get_be64(const uint8_t *p) {
        return (uint64_t) get_be32(p) << 32 | get_be32(p + 4);
}

/* The rules of the RDMA block, for both directions: a field the receiver would have to guess about
 * is refused, so that what parses also encodes back to the same bytes. */
static bool rdma_hello_is_valid(const PeerRdmaHello *h, bool request) {
        static const PeerRdmaHello empty = {};

        if (h->status < 0 || h->status >= _PEER_RDMA_STATUS_MAX)
                return false;
        if (request && h->status != PEER_RDMA_OK)
                return false;
        if (h->status != PEER_RDMA_OK) /* the status alone: every other field is zero */
                return h->mtu == 0 && h->qpn == 0 && h->psn == 0 && h->gid_index == 0 && h->rkey == 0 &&
                        h->addr == 0 && h->length == 0 && memcmp(h->gid, empty.gid, sizeof(h->gid)) == 0;
        if (!rdma_mtu_is_valid(h->mtu))
                return false;
        /* QPs 0 and 1 are the special (SMI/GSI) queue pairs: never an RC one. */
        if (h->qpn < 2 || h->qpn > RDMA_24BIT_MAX || h->psn > RDMA_24BIT_MAX)
                return false;
        if (h->length == 0)
                return h->rkey == 0 && h->addr == 0;
        return h->addr <= UINT64_MAX - h->length;
}

static void rdma_block_encode(const PeerRdmaHello *h, uint8_t *p) {
        p[RDMA_OFF_VERSION] = PEER_RDMA_BLOCK_VERSION;
        p[RDMA_OFF_STATUS] = (uint8_t) h->status;
        put_be16(p + RDMA_OFF_MTU, h->mtu);
        put_be32(p + RDMA_OFF_QPN, h->qpn);
        put_be32(p + RDMA_OFF_PSN, h->psn);
        put_be32(p + RDMA_OFF_GID_INDEX, h->gid_index);
        memcpy(p + RDMA_OFF_GID, h->gid, sizeof(h->gid));
        put_be32(p + RDMA_OFF_RKEY, h->rkey);
        put_be64(p + RDMA_OFF_ADDR, h->addr);
        put_be64(p + RDMA_OFF_LENGTH, h->length);
}

static int rdma_block_parse(const uint8_t *p, bool request, PeerRdmaHello *ret) {
        PeerRdmaHello h = {};

        if (p[RDMA_OFF_VERSION] != PEER_RDMA_BLOCK_VERSION || p[RDMA_OFF_STATUS] >= _PEER_RDMA_STATUS_MAX)
                return -EBADMSG;
        h.status = p[RDMA_OFF_STATUS];
        h.mtu = get_be16(p + RDMA_OFF_MTU);
        h.qpn = get_be32(p + RDMA_OFF_QPN);
        h.psn = get_be32(p + RDMA_OFF_PSN);
        h.gid_index = get_be32(p + RDMA_OFF_GID_INDEX);
        memcpy(h.gid, p + RDMA_OFF_GID, sizeof(h.gid));
        h.rkey = get_be32(p + RDMA_OFF_RKEY);
        h.addr = get_be64(p + RDMA_OFF_ADDR);
        h.length = get_be64(p + RDMA_OFF_LENGTH);
        if (!rdma_hello_is_valid(&h, request))
                return -EBADMSG;
        *ret = h;
        return 0;
}

int peer_message_encode(const PeerMessage *m, uint8_t *buf, size_t size, size_t *ret_size) {
        size_t cl = strnlen(m->sender.cluster, sizeof(m->sender.cluster));
        size_t nl = strnlen(m->sender.node, sizeof(m->sender.node));
        size_t total;
        uint8_t *p;

        if (m->type <= 0 || m->type >= _PEER_MESSAGE_TYPE_MAX)
                return -EINVAL;
        if (m->sender.health < 0 || m->sender.health >= _HEALTH_MAX)
                return -EINVAL;
        if (!peer_name_is_valid(m->sender.cluster, cl) || !peer_name_is_valid(m->sender.node, nl))
                return -EINVAL;
        if (m->padding > PEER_MESSAGE_SIZE_MAX)
                return -EINVAL;
        if (type_has_rdma_block(m->type) &&
            !rdma_hello_is_valid(&m->rdma, peer_message_type_is_request(m->type)))
                return -EINVAL;
        total = peer_message_size(m);
        if (total > PEER_MESSAGE_SIZE_MAX)
                return -EINVAL;
        if (total > size)
                return -ENOBUFS;

        memcpy(buf + OFF_MAGIC, PEER_WIRE_MAGIC, 4);
        buf[OFF_VERSION] = PEER_WIRE_VERSION;
        buf[OFF_TYPE] = (uint8_t) m->type;
        put_be16(buf + OFF_FLAGS, m->flags);
        put_be32(buf + OFF_SEQUENCE, m->sequence);
        put_be64(buf + OFF_TIMESTAMP, m->timestamp_usec);
        buf[OFF_HEALTH] = (uint8_t) m->sender.health;
        buf[OFF_CLUSTER_LEN] = (uint8_t) cl;
        buf[OFF_NODE_LEN] = (uint8_t) nl;
        buf[OFF_DIGEST_LEN] = m->sender.has_digest ? PEER_DIGEST_SIZE : 0;
        put_be16(buf + OFF_PADDING_LEN, (uint16_t) m->padding);

        p = buf + PEER_HEADER_SIZE;
        memcpy(p, m->sender.cluster, cl);
        p += cl;
        memcpy(p, m->sender.node, nl);
        p += nl;
        if (m->sender.has_digest) {
                memcpy(p, m->sender.digest, PEER_DIGEST_SIZE);
                p += PEER_DIGEST_SIZE;
        }
        if (type_has_rdma_block(m->type)) {
                rdma_block_encode(&m->rdma, p);
                p += PEER_RDMA_BLOCK_SIZE;
        }
        memset(p, 0, m->padding);

        if (ret_size)
                *ret_size = total;
        return 0;
}

int peer_message_parse(const uint8_t *buf, size_t size, PeerMessage *ret) {
        PeerMessage m = {};
        size_t cl, nl, dl, rl, pl;
        const uint8_t *p;

        if (size < PEER_HEADER_SIZE || size > PEER_MESSAGE_SIZE_MAX)
                return -EBADMSG;
        if (memcmp(buf + OFF_MAGIC, PEER_WIRE_MAGIC, 4) != 0 || buf[OFF_VERSION] != PEER_WIRE_VERSION)
                return -EBADMSG;
        if (buf[OFF_TYPE] < 1 || buf[OFF_TYPE] >= _PEER_MESSAGE_TYPE_MAX)
                return -EBADMSG;
        if (buf[OFF_HEALTH] >= _HEALTH_MAX)
                return -EBADMSG;

        cl = buf[OFF_CLUSTER_LEN];
        nl = buf[OFF_NODE_LEN];
        dl = buf[OFF_DIGEST_LEN];
        pl = get_be16(buf + OFF_PADDING_LEN);
        if (cl > PEER_NAME_MAX || nl > PEER_NAME_MAX || (dl != 0 && dl != PEER_DIGEST_SIZE))
                return -EBADMSG;
        /* The type decides whether the RDMA block is there: it has a fixed size. */
        m.type = buf[OFF_TYPE];
        rl = type_has_rdma_block(m.type) ? PEER_RDMA_BLOCK_SIZE : 0;
        /* The lengths must account for the datagram exactly: no trailing bytes, nothing missing. */
        if (PEER_HEADER_SIZE + cl + nl + dl + rl + pl != size)
                return -EBADMSG;

        if (peer_message_type_is_request(m.type) && size < PEER_REQUEST_SIZE_MIN)
                return -EBADMSG;
        if (m.type == PEER_RDMA_HELLO_REQUEST && size < PEER_RDMA_REQUEST_SIZE_MIN)
                return -EBADMSG;
        m.flags = get_be16(buf + OFF_FLAGS);
        m.sequence = get_be32(buf + OFF_SEQUENCE);
        m.timestamp_usec = get_be64(buf + OFF_TIMESTAMP);
        m.sender.health = buf[OFF_HEALTH];

        p = buf + PEER_HEADER_SIZE;
        if (!peer_name_is_valid((const char *) p, cl))
                return -EBADMSG;
        memcpy(m.sender.cluster, p, cl);
        p += cl;
        if (!peer_name_is_valid((const char *) p, nl))
                return -EBADMSG;
        memcpy(m.sender.node, p, nl);
        p += nl;
        if (dl > 0) {
                m.sender.has_digest = true;
                memcpy(m.sender.digest, p, dl);
                p += dl;
        }
        if (rl > 0) {
                if (rdma_block_parse(p, peer_message_type_is_request(m.type), &m.rdma) < 0)
                        return -EBADMSG;
                p += rl;
        }
        for (size_t i = 0; i < pl; i++)
                if (p[i] != 0)
                        return -EBADMSG;
        m.padding = pl;

        *ret = m;
        return 0;
}

int peer_message_make_reply(
        const PeerMessage *request, size_t request_size, const PeerIdentity *self, PeerMessage *ret) {
        PeerMessage reply = {
                .sequence = request->sequence,
                .timestamp_usec = request->timestamp_usec,
                .sender = *self,
        };
        size_t base = body_size(self);

        switch (request->type) {
        case PEER_ECHO_REQUEST:
                reply.type = PEER_ECHO_REPLY;
                break;
        case PEER_MTU_REQUEST:
                reply.type = PEER_MTU_REPLY;
                /* Same size as the request: the reply proves the path in the other direction. */
                if (request_size >= base)
                        reply.padding = request_size - base;
                break;
        case PEER_RDMA_HELLO_REQUEST:
                /* Honest by default: a responder that has an RDMA device fills the block itself. */
                reply.type = PEER_RDMA_HELLO_REPLY;
                reply.rdma = (PeerRdmaHello){ .status = PEER_RDMA_NO_DEVICE };
                break;
        default:
                return -EINVAL;
        }

        if (peer_message_size(&reply) > request_size)
                return -EMSGSIZE;
        *ret = reply;
        return 0;
}

int peer_message_make_rate_limited(
        const PeerMessage *request, size_t request_size, const PeerIdentity *self, PeerMessage *ret) {
        PeerMessage notice = {
                .type = PEER_RATE_LIMITED,
                .sequence = request->sequence,
                .timestamp_usec = request->timestamp_usec,
                .sender = *self,
        };

        if (!peer_message_type_is_request(request->type))
                return -EINVAL;
        if (peer_message_size(&notice) > request_size)
                return -EMSGSIZE;
        *ret = notice;
        return 0;
}
