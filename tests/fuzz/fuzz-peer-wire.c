/* SPDX-License-Identifier: MIT */
/* Fuzz target for the peer channel's parser: whatever parses must encode back to the same bytes, and
 * any reply or rate-limited notice built from a parsed request must not be larger than it, and must
 * encode into its size (an rdma-hello reply too, whatever its RDMA block says). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "peer/peer-wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        static uint8_t out[PEER_MESSAGE_SIZE_MAX];
        PeerMessage m, reply;
        PeerIdentity self;
        size_t n;

        if (peer_message_parse(data, size, &m) < 0)
                return 0;

        if (peer_message_encode(&m, out, sizeof(out), &n) < 0 || n != size || memcmp(out, data, size) != 0)
                abort();

        if (peer_identity_init(&self, "strix-halo", "worker", HEALTH_HEALTHY, m.sender.digest) < 0)
                abort();
        if (peer_message_make_reply(&m, size, &self, &reply) >= 0) {
                if (peer_message_size(&reply) > size)
                        abort();
                if (m.type == PEER_MTU_REQUEST && peer_message_size(&reply) != size)
                        abort();
                if (m.type == PEER_RDMA_HELLO_REQUEST && reply.rdma.status != PEER_RDMA_NO_DEVICE)
                        abort();
                if (peer_message_encode(&reply, out, size, &n) < 0)
                        abort();
                /* A responder's full answer (the request's own block, echoed) has the same size. */
                if (m.type == PEER_RDMA_HELLO_REQUEST) {
                        reply.rdma = m.rdma;
                        if (peer_message_encode(&reply, out, size, &n) < 0)
                                abort();
                }
        }
        if (peer_message_make_rate_limited(&m, size, &self, &reply) >= 0) {
                if (!peer_message_type_is_request(m.type) || reply.type != PEER_RATE_LIMITED ||
                    reply.sequence != m.sequence)
                        abort();
                if (peer_message_encode(&reply, out, size, &n) < 0 || n > size)
                        abort();
        } else if (peer_message_type_is_request(m.type) && size >= PEER_REQUEST_SIZE_MIN)
                abort();
        return 0;
}
