/* SPDX-License-Identifier: MIT */
/* The rdma-hello messages of the peer wire format: the RDMA block byte for byte, a table of malformed
 * blocks, the padded request and its never-larger reply. */
#include "basic/macro.h"
#include "peer/peer-wire.h"
#include "tests.h"

static const uint8_t gid[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 168, 100, 1 };

static PeerRdmaHello hello(void) {
        PeerRdmaHello h = {
                .status = PEER_RDMA_OK,
                .mtu = 4096,
                .qpn = 0x000123,
                .psn = 0xabcdef,
                .gid_index = 3,
                .rkey = 0x11223344,
                .addr = 0x00007f0012340000ULL,
                .length = 1U << 20,
        };

        memcpy(h.gid, gid, sizeof(gid));
        return h;
}

static PeerMessage message(PeerMessageType type, const PeerRdmaHello *h, size_t size) {
        PeerMessage m = { .type = type, .sequence = 7, .timestamp_usec = 42, .rdma = *h };

        ASSERT_OK(peer_identity_init(&m.sender, "strix-halo", "head", HEALTH_HEALTHY, NULL));
        if (size > 0)
                m.padding = size - peer_message_size(&m);
        return m;
}

static void test_layout(void) {
        static const uint8_t block[PEER_RDMA_BLOCK_SIZE] = {
                1,    0,    0x10, 0x00,                                  /* version, status ok, MTU 4096 */
                0,    0,    0x01, 0x23,                                  /* QPN */
                0,    0xab, 0xcd, 0xef,                                  /* PSN */
                0,    0,    0,    3,                                     /* GID index */
                0,    0,    0,    0,    0,    0,    0,    0,    0,    0, /* GID ::ffff:192.168.100.1 */
                0xff, 0xff, 192,  168,  100,  1,    0x11, 0x22, 0x33, 0x44, /* rkey */
                0,    0,    0x7f, 0,    0x12, 0x34, 0,    0,                /* addr */
                0,    0,    0,    0,    0,    0x10, 0,    0,                /* length */
        };
        PeerRdmaHello h = hello();
        PeerMessage m = message(PEER_RDMA_HELLO_REQUEST, &h, PEER_RDMA_REQUEST_SIZE_MIN), back;
        uint8_t buf[PEER_MESSAGE_SIZE_MAX];
        size_t n;

        ASSERT_OK(peer_message_encode(&m, buf, sizeof(buf), &n));
        ASSERT_INT_EQ(n, PEER_RDMA_REQUEST_SIZE_MIN);
        ASSERT_INT_EQ(buf[5], 5); /* rdma-hello-request */
        /* After the header and the names (no digest): the block, then the padding. */
        ASSERT_TRUE(memcmp(buf + 26 + 10 + 4, block, sizeof(block)) == 0);
        ASSERT_INT_EQ(
                buf[24] << 8 | buf[25], PEER_RDMA_REQUEST_SIZE_MIN - (26 + 10 + 4 + PEER_RDMA_BLOCK_SIZE));

        ASSERT_OK(peer_message_parse(buf, n, &back));
        ASSERT_INT_EQ(back.type, PEER_RDMA_HELLO_REQUEST);
        ASSERT_TRUE(memcmp(&back.rdma, &h, sizeof(h)) == 0);

        /* A reply without padding, and a "busy" that carries nothing else. */
        m = message(PEER_RDMA_HELLO_REPLY, &h, 0);
        ASSERT_OK(peer_message_encode(&m, buf, sizeof(buf), &n));
        ASSERT_INT_EQ(n, 26 + 10 + 4 + PEER_RDMA_BLOCK_SIZE);
        ASSERT_OK(peer_message_parse(buf, n, &back));
        ASSERT_INT_EQ(back.rdma.qpn, 0x123);
        m = message(PEER_RDMA_HELLO_REPLY, &(PeerRdmaHello){ .status = PEER_RDMA_BUSY }, 0);
        ASSERT_OK(peer_message_encode(&m, buf, sizeof(buf), &n));
        ASSERT_OK(peer_message_parse(buf, n, &back));
        ASSERT_INT_EQ(back.rdma.status, PEER_RDMA_BUSY);
}

/* One field wrong at a time: the parser refuses, and the encoder refuses to write it. */
static void test_malformed(void) {
        static const struct {
                const char *name;
                size_t offset; /* in the block */
                uint8_t value;
        } bytes[] = {
                { "block version 2", 0, 2 },
                { "status 4 (unknown)", 1, 4 },
                { "status busy in a request", 1, PEER_RDMA_BUSY },
                { "MTU 4097", 3, 0x01 },
                { "MTU 0", 2, 0x00 },
                { "QPN above 24 bits", 4, 0x01 },
                { "PSN above 24 bits", 8, 0x80 },
        };
        PeerRdmaHello h = hello();
        PeerMessage m = message(PEER_RDMA_HELLO_REQUEST, &h, PEER_RDMA_REQUEST_SIZE_MIN), back;
        uint8_t good[PEER_MESSAGE_SIZE_MAX], buf[PEER_MESSAGE_SIZE_MAX];
        size_t n, block = 26 + 10 + 4;

        ASSERT_OK(peer_message_encode(&m, good, sizeof(good), &n));
        for (size_t i = 0; i < ELEMENTSOF(bytes); i++) {
                memcpy(buf, good, n);
                buf[block + bytes[i].offset] = bytes[i].value;
                if (peer_message_parse(buf, n, &back) != -EBADMSG) {
                        fprintf(stderr, "accepted: %s\n", bytes[i].name);
                        abort();
                }
        }

        /* Shorter than 256 bytes: a reply might not fit. */
        m.padding--;
        ASSERT_OK(peer_message_encode(&m, buf, sizeof(buf), &n));
        ASSERT_INT_EQ(peer_message_parse(buf, n, &back), -EBADMSG);
        /* Truncated inside the block. */
        m = message(PEER_RDMA_HELLO_REPLY, &h, 0);
        ASSERT_OK(peer_message_encode(&m, buf, sizeof(buf), &n));
        ASSERT_INT_EQ(peer_message_parse(buf, n - 1, &back), -EBADMSG);

        /* Whole-struct rules, through the encoder. */
        h = hello();
        h.qpn = 1; /* QP 1 is the GSI QP: never an RC one */
        m = message(PEER_RDMA_HELLO_REPLY, &h, 0);
        ASSERT_INT_EQ(peer_message_encode(&m, buf, sizeof(buf), &n), -EINVAL);
        h = hello();
        h.length = 0; /* no buffer, but a key */
        m = message(PEER_RDMA_HELLO_REPLY, &h, 0);
        ASSERT_INT_EQ(peer_message_encode(&m, buf, sizeof(buf), &n), -EINVAL);
        h = hello();
        h.addr = UINT64_MAX - 10; /* wraps */
        m = message(PEER_RDMA_HELLO_REPLY, &h, 0);
        ASSERT_INT_EQ(peer_message_encode(&m, buf, sizeof(buf), &n), -EINVAL);
        h = (PeerRdmaHello){ .status = PEER_RDMA_FAILED, .qpn = 5 }; /* a failure carries nothing */
        m = message(PEER_RDMA_HELLO_REPLY, &h, 0);
        ASSERT_INT_EQ(peer_message_encode(&m, buf, sizeof(buf), &n), -EINVAL);
}

/* The largest rdma-hello reply (63-byte names, a digest) fits in the smallest request, and the reply
 * that peer_message_make_reply() builds says "no-device" until a responder fills it. */
static void test_no_amplification(void) {
        static const uint8_t digest[PEER_DIGEST_SIZE] = { 1 };
        char name[PEER_NAME_MAX + 1];
        PeerRdmaHello h = hello();
        PeerMessage request = message(PEER_RDMA_HELLO_REQUEST, &h, PEER_RDMA_REQUEST_SIZE_MIN), reply;
        PeerIdentity big;
        uint8_t buf[PEER_RDMA_REQUEST_SIZE_MIN];
        size_t n;

        memset(name, 'n', PEER_NAME_MAX);
        name[PEER_NAME_MAX] = '\0';
        ASSERT_OK(peer_identity_init(&big, name, name, HEALTH_FAILED, digest));
        ASSERT_OK(peer_message_make_reply(&request, PEER_RDMA_REQUEST_SIZE_MIN, &big, &reply));
        ASSERT_INT_EQ(reply.type, PEER_RDMA_HELLO_REPLY);
        ASSERT_INT_EQ(reply.rdma.status, PEER_RDMA_NO_DEVICE);
        ASSERT_INT_EQ(reply.padding, 0);
        ASSERT_INT_EQ(peer_message_size(&reply), PEER_BODY_SIZE_MAX + PEER_RDMA_BLOCK_SIZE);
        ASSERT_TRUE(peer_message_size(&reply) <= PEER_RDMA_REQUEST_SIZE_MIN);

        /* A full answer is no larger either: the block has a fixed size. */
        reply.rdma = h;
        ASSERT_OK(peer_message_encode(&reply, buf, sizeof(buf), &n));
        ASSERT_INT_EQ(n, PEER_BODY_SIZE_MAX + PEER_RDMA_BLOCK_SIZE);
        ASSERT_TRUE(peer_message_type_is_request(PEER_RDMA_HELLO_REQUEST));
        ASSERT_TRUE(!peer_message_type_is_request(PEER_RDMA_HELLO_REPLY));
}

static void test_strings(void) {
        ASSERT_STR_EQ(peer_message_type_to_string(PEER_RDMA_HELLO_REQUEST), "rdma-hello-request");
        ASSERT_INT_EQ(peer_message_type_from_string("rdma-hello-reply"), PEER_RDMA_HELLO_REPLY);
        for (int s = 0; s < _PEER_RDMA_STATUS_MAX; s++)
                ASSERT_INT_EQ(peer_rdma_status_from_string(peer_rdma_status_to_string(s)), s);
        ASSERT_INT_EQ(peer_rdma_status_from_string("sleepy"), _PEER_RDMA_STATUS_INVALID);
        ASSERT_TRUE(peer_rdma_status_to_string(_PEER_RDMA_STATUS_MAX) == NULL);
}

int main(void) {
        test_layout();
        test_malformed();
        test_no_amplification();
        test_strings();
        return 0;
}
