/* SPDX-License-Identifier: MIT */
/* The peer wire format: round trips, a table of malformed datagrams, and the no-amplification rule. */
#include "basic/macro.h"
#include "peer/peer-wire.h"
#include "tests.h"

static const uint8_t digest[PEER_DIGEST_SIZE] = {
        0xde, 0xad, 0xbe, 0xef, 1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12,
        13,   14,   15,   16,   17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28,
};

static PeerMessage request(PeerMessageType type, size_t size) {
        PeerMessage m = { .type = type, .sequence = 0x01020304, .timestamp_usec = 0x1122334455667788ULL };

        ASSERT_OK(peer_identity_init(&m.sender, "strix-halo", "head", HEALTH_HEALTHY, digest));
        m.padding = size - peer_message_size(&m);
        return m;
}

static size_t encode(const PeerMessage *m, uint8_t *buf) {
        size_t n = 0;

        ASSERT_OK(peer_message_encode(m, buf, PEER_MESSAGE_SIZE_MAX, &n));
        ASSERT_INT_EQ(n, peer_message_size(m));
        return n;
}

static void test_round_trip(void) {
        static uint8_t buf[PEER_MESSAGE_SIZE_MAX];
        PeerMessage m = request(PEER_ECHO_REQUEST, PEER_REQUEST_SIZE_MIN), back;
        size_t n = encode(&m, buf);

        ASSERT_INT_EQ(n, PEER_REQUEST_SIZE_MIN);
        /* The layout in halod(8), PEER CHANNEL, byte for byte. */
        ASSERT_TRUE(
                memcmp(buf, "HALO\x01\x01\x00\x00\x01\x02\x03\x04\x11\x22\x33\x44\x55\x66\x77\x88", 20) == 0);
        ASSERT_INT_EQ(buf[20], HEALTH_HEALTHY);
        ASSERT_INT_EQ(buf[21], 10);
        ASSERT_INT_EQ(buf[22], 4);
        ASSERT_INT_EQ(buf[23], 32);
        ASSERT_INT_EQ(buf[24] << 8 | buf[25], PEER_REQUEST_SIZE_MIN - (26 + 10 + 4 + 32));
        ASSERT_TRUE(memcmp(buf + 26, "strix-halohead", 14) == 0);

        ASSERT_OK(peer_message_parse(buf, n, &back));
        ASSERT_INT_EQ(back.type, PEER_ECHO_REQUEST);
        ASSERT_INT_EQ(back.sequence, 0x01020304);
        ASSERT_TRUE(back.timestamp_usec == 0x1122334455667788ULL);
        ASSERT_STR_EQ(back.sender.cluster, "strix-halo");
        ASSERT_STR_EQ(back.sender.node, "head");
        ASSERT_INT_EQ(back.sender.health, HEALTH_HEALTHY);
        ASSERT_TRUE(back.sender.has_digest);
        ASSERT_TRUE(memcmp(back.sender.digest, digest, sizeof(digest)) == 0);
        ASSERT_INT_EQ(back.padding, m.padding);

        /* A reply without a digest (a node that could not compute one) and without padding. */
        m = (PeerMessage){ .type = PEER_ECHO_REPLY, .sequence = 7 };
        ASSERT_OK(peer_identity_init(&m.sender, "c", "w", HEALTH_DEGRADED, NULL));
        n = encode(&m, buf);
        ASSERT_INT_EQ(n, 28);
        ASSERT_OK(peer_message_parse(buf, n, &back));
        ASSERT_TRUE(!back.sender.has_digest);
        ASSERT_INT_EQ(back.sender.health, HEALTH_DEGRADED);
}

typedef struct Mutation {
        const char *what;
        size_t offset;  /* byte to overwrite */
        int value;      /* -1: no overwrite */
        ssize_t resize; /* added to the datagram length (negative: truncate) */
} Mutation;

static void test_malformed(void) {
        static const Mutation table[] = {
                { "wrong magic", 0, 'h', 0 },
                { "wrong magic, last byte", 3, 'o', 0 },
                { "version 0", 4, 0, 0 },
                { "version 2 (from the future)", 4, 2, 0 },
                { "type 0", 5, 0, 0 },
                { "type 5 (unknown)", 5, 5, 0 },
                { "type 8 (unknown)", 5, 8, 0 },
                { "health 4 (unknown)", 20, 4, 0 },
                { "cluster length 64 (over the limit)", 21, 64, 0 },
                { "cluster length 0", 21, 0, 0 },
                { "node length 200", 22, 200, 0 },
                { "node length one short", 22, 3, 0 },
                { "digest length 16", 23, 16, 0 },
                { "digest length 33", 23, 33, 0 },
                { "padding length high byte", 24, 0x40, 0 },
                { "padding length one more", 25, 0x79, 0 },
                { "control character in cluster", 26, '\n', 0 },
                { "space in node name", 37, ' ', 0 },
                { "NUL in node name", 36, 0, 0 },
                { "non-zero padding", 100, 0xff, 0 },
                { "truncated by one byte", 0, -1, -1 },
                { "truncated to the header", 0, -1, -(ssize_t) (PEER_REQUEST_SIZE_MIN - PEER_HEADER_SIZE) },
                { "truncated inside the header", 0, -1, -(ssize_t) (PEER_REQUEST_SIZE_MIN - 10) },
                { "empty", 0, -1, -(ssize_t) PEER_REQUEST_SIZE_MIN },
                { "one trailing byte", 0, -1, 1 },
        };
        static uint8_t good[PEER_MESSAGE_SIZE_MAX + 16], bad[PEER_MESSAGE_SIZE_MAX + 16];
        PeerMessage m = request(PEER_ECHO_REQUEST, PEER_REQUEST_SIZE_MIN), parsed;
        size_t n = encode(&m, good);

        /* Sanity: the offsets used below point where the table says. */
        ASSERT_INT_EQ(good[25], 0x78);
        ASSERT_INT_EQ(good[36], 'h');

        for (size_t i = 0; i < ELEMENTSOF(table); i++) {
                const Mutation *t = &table[i];
                size_t size = (size_t) ((ssize_t) n + t->resize);

                memcpy(bad, good, sizeof(bad));
                if (t->value >= 0)
                        bad[t->offset] = (uint8_t) t->value;
                parsed.sequence = 4242;
                if (peer_message_parse(bad, size, &parsed) != -EBADMSG) {
                        fprintf(stderr, "malformed datagram accepted: %s\n", t->what);
                        abort();
                }
                ASSERT_INT_EQ(parsed.sequence, 4242); /* untouched on failure */
        }
}

static void test_sizes(void) {
        static uint8_t buf[PEER_MESSAGE_SIZE_MAX + 1];
        PeerMessage m, parsed;
        size_t n;

        /* A request one byte below the minimum is refused, even though well-formed. */
        m = request(PEER_ECHO_REQUEST, PEER_REQUEST_SIZE_MIN - 1);
        n = encode(&m, buf);
        ASSERT_INT_EQ(peer_message_parse(buf, n, &parsed), -EBADMSG);
        /* Replies may be short. */
        m.type = PEER_ECHO_REPLY;
        n = encode(&m, buf);
        ASSERT_OK(peer_message_parse(buf, n, &parsed));

        /* The largest datagram accepted, and one byte more. */
        m = request(PEER_MTU_REQUEST, PEER_MESSAGE_SIZE_MAX);
        n = encode(&m, buf);
        ASSERT_OK(peer_message_parse(buf, n, &parsed));
        ASSERT_INT_EQ(peer_message_parse(buf, n + 1, &parsed), -EBADMSG);
        m.padding++;
        ASSERT_INT_EQ(peer_message_encode(&m, buf, sizeof(buf), &n), -EINVAL);

        /* Encoding refuses what the wire cannot carry, and a buffer too small. */
        m = request(PEER_ECHO_REQUEST, PEER_REQUEST_SIZE_MIN);
        ASSERT_INT_EQ(peer_message_encode(&m, buf, PEER_REQUEST_SIZE_MIN - 1, &n), -ENOBUFS);
        m.type = 9;
        ASSERT_INT_EQ(peer_message_encode(&m, buf, sizeof(buf), &n), -EINVAL);
}

static void test_identity(void) {
        static const struct {
                const char *cluster, *node;
                int r;
        } table[] = {
                { "strix-halo", "head", 0 },
                { "x", "y", 0 },
                { "", "head", -EINVAL },
                { "strix halo", "head", -EINVAL },
                { "strix-halo", "héad", -EINVAL },
                { "strix-halo", "node\t1", -EINVAL },
                { "a-cluster-name-of-exactly-sixty-three-characters-is-still-fine", "n", 0 },
                { "a-cluster-name-of-exactly-sixty-four-characters-is-one-too-many!", "n", -ENAMETOOLONG },
        };

        for (size_t i = 0; i < ELEMENTSOF(table); i++) {
                PeerIdentity id;

                ASSERT_INT_EQ(
                        peer_identity_init(&id, table[i].cluster, table[i].node, HEALTH_HEALTHY, NULL),
                        table[i].r);
        }
}

/* A reply is never larger than its request: an echo reply of a node with long names still fits in the
 * smallest request, and an MTU reply has exactly the request's size. */
static void test_no_amplification(void) {
        PeerIdentity big;
        char name[PEER_NAME_MAX + 1];
        size_t sizes[] = { PEER_REQUEST_SIZE_MIN, 1472, 8972, PEER_MESSAGE_SIZE_MAX };

        memset(name, 'n', PEER_NAME_MAX);
        name[PEER_NAME_MAX] = '\0';
        ASSERT_OK(peer_identity_init(&big, name, name, HEALTH_FAILED, digest));
        ASSERT_TRUE(PEER_BODY_SIZE_MAX <= PEER_REQUEST_SIZE_MIN);

        for (size_t i = 0; i < ELEMENTSOF(sizes); i++) {
                PeerMessage echo = request(PEER_ECHO_REQUEST, sizes[i]);
                PeerMessage mtu = request(PEER_MTU_REQUEST, sizes[i]);
                PeerMessage reply;

                ASSERT_OK(peer_message_make_reply(&echo, sizes[i], &big, &reply));
                ASSERT_INT_EQ(reply.type, PEER_ECHO_REPLY);
                ASSERT_INT_EQ(peer_message_size(&reply), PEER_BODY_SIZE_MAX);
                ASSERT_INT_EQ(reply.sequence, echo.sequence);
                ASSERT_TRUE(reply.timestamp_usec == echo.timestamp_usec);

                ASSERT_OK(peer_message_make_reply(&mtu, sizes[i], &big, &reply));
                ASSERT_INT_EQ(reply.type, PEER_MTU_REPLY);
                ASSERT_INT_EQ(peer_message_size(&reply), sizes[i]);
        }

        /* A request that is too short to carry the reply gets none. */
        PeerMessage tiny = request(PEER_ECHO_REQUEST, PEER_REQUEST_SIZE_MIN), reply;
        ASSERT_INT_EQ(peer_message_make_reply(&tiny, 60, &big, &reply), -EMSGSIZE);
        /* Replies are never answered. */
        tiny.type = PEER_ECHO_REPLY;
        ASSERT_INT_EQ(peer_message_make_reply(&tiny, PEER_REQUEST_SIZE_MIN, &big, &reply), -EINVAL);
}

/* The rate-limited notice: the request's sequence and timestamp, no padding, never larger than the
 * request, for requests only. */
static void test_rate_limited(void) {
        static uint8_t buf[PEER_MESSAGE_SIZE_MAX];
        PeerIdentity self;
        PeerMessage req = request(PEER_ECHO_REQUEST, PEER_REQUEST_SIZE_MIN), notice, back;
        size_t n;

        ASSERT_OK(peer_identity_init(&self, "strix-halo", "worker", HEALTH_DEGRADED, digest));
        ASSERT_OK(peer_message_make_rate_limited(&req, PEER_REQUEST_SIZE_MIN, &self, &notice));
        n = encode(&notice, buf);
        ASSERT_INT_EQ(n, 26 + 10 + 6 + 32);
        ASSERT_INT_EQ(buf[5], 7);
        ASSERT_OK(peer_message_parse(buf, n, &back));
        ASSERT_INT_EQ(back.type, PEER_RATE_LIMITED);
        ASSERT_INT_EQ(back.sequence, req.sequence);
        ASSERT_TRUE(back.timestamp_usec == req.timestamp_usec);
        ASSERT_STR_EQ(back.sender.node, "worker");
        ASSERT_INT_EQ(back.padding, 0);
        ASSERT_TRUE(!peer_message_type_is_request(PEER_RATE_LIMITED));

        /* An MTU request and an rdma-hello get the same short notice. */
        req = request(PEER_MTU_REQUEST, 8972);
        ASSERT_OK(peer_message_make_rate_limited(&req, 8972, &self, &notice));
        ASSERT_INT_EQ(peer_message_size(&notice), n);

        /* A notice is not a request: neither answered nor noticed. */
        ASSERT_INT_EQ(peer_message_make_rate_limited(&back, n, &self, &notice), -EINVAL);
        ASSERT_INT_EQ(peer_message_make_reply(&back, n, &self, &notice), -EINVAL);
        /* Never larger than the request. */
        req = request(PEER_ECHO_REQUEST, PEER_REQUEST_SIZE_MIN);
        ASSERT_INT_EQ(peer_message_make_rate_limited(&req, 60, &self, &notice), -EMSGSIZE);
}

static void test_strings(void) {
        for (int t = 1; t < _PEER_MESSAGE_TYPE_MAX; t++)
                ASSERT_INT_EQ(peer_message_type_from_string(peer_message_type_to_string(t)), t);
        for (int h = 0; h < _HEALTH_MAX; h++)
                ASSERT_INT_EQ(health_from_string(health_to_string(h)), h);
        ASSERT_INT_EQ(health_from_string("sick"), _HEALTH_INVALID);
        ASSERT_TRUE(peer_message_type_to_string(0) == NULL);
}

int main(void) {
        test_round_trip();
        test_malformed();
        test_sizes();
        test_identity();
        test_no_amplification();
        test_rate_limited();
        test_strings();
        return 0;
}
