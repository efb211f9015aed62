/* SPDX-License-Identifier: MIT */
/* The RDMA probe's two ends in one process for the unit tests (rdma-probe-peer.h). */
#include <arpa/inet.h>
#include <poll.h>
#include <time.h>
#include <unistd.h>

#include "fake-verbs-pair.h"
#include "rdma-probe-peer.h"
#include "tests.h"

struct in_addr addr(const char *s) {
        struct in_addr a;

        ASSERT_TRUE(inet_pton(AF_INET, s, &a) == 1);
        return a;
}

PeerIdentity identity(const char *node) {
        PeerIdentity id;

        ASSERT_OK(peer_identity_init(&id, "strix-halo", node, HEALTH_HEALTHY, NULL));
        return id;
}

static void *responder_run(void *userdata) {
        Responder *r = userdata;

        while (!atomic_load(&r->stop)) {
                struct pollfd p = { .fd = peer_server_fd(r->server), .events = POLLIN };

                if (poll(&p, 1, 20) > 0)
                        while (peer_server_handle(r->server) > 0)
                                ;
        }
        return NULL;
}

/* With an RDMA responder on the responder device when rr is set; else answering "no-device". */
void responder_start(Responder *r, RdmaResponder *rr) {
        PeerIdentity self = identity("head");
        struct in_addr bind_addr = addr("127.0.0.1"), peer = addr("127.0.0.2");

        *r = (Responder){};
        for (uint16_t port = 21000 + (uint16_t) (getpid() % 20000);; port++) {
                int k = peer_server_open(
                        &(PeerEndpoints){
                                .locals = &bind_addr, .n_locals = 1, .port = port, .peers = &peer, .n_peers = 1 },
                        &self,
                        &r->server);

                if (k == -EADDRINUSE)
                        continue;
                ASSERT_OK(k);
                r->port = port;
                break;
        }
        if (rr)
                peer_server_set_rdma(r->server, rdma_responder_hello, rr, rdma_responder_destroy);
        ASSERT_INT_EQ(pthread_create(&r->thread, NULL, responder_run, r), 0);
}

void responder_stop(Responder *r) {
        atomic_store(&r->stop, true);
        ASSERT_INT_EQ(pthread_join(r->thread, NULL), 0);
        r->server = peer_server_free(r->server); /* and with it the RDMA responder */
}

RdmaResponder *rdma_responder(uint64_t timeout_usec) {
        RdmaResponder *rr = NULL;

        ASSERT_OK(rdma_responder_new(&rr));
        ASSERT_OK(rdma_responder_add(
                rr, addr("127.0.0.1"), fake_pair_open(FAKE_PAIR_RESPONDER_IFINDEX), RDMA_GID_ROCE_V2));
        rdma_responder_set_timeout(rr, timeout_usec);
        return rr;
}

RdmaProbeParams params(RdmaDevice *d, const PeerIdentity *self, uint16_t port) {
        return (RdmaProbeParams){
                .device = d,
                .gid_type = RDMA_GID_ROCE_V2,
                .local = addr("127.0.0.2"),
                .remote = addr("127.0.0.1"),
                .port = port,
                .self = self,
                .pings = 100,
                .timeout_usec = 1000U * 1000U,
                .write_usec = 5U * 1000U * 1000U,
                .write_bytes = 4U << 20,
        };
}

/* The session ends on its own thread: wait (bounded) until the responder has reaped it. */
RdmaResponderStats wait_idle(RdmaResponder *rr) {
        for (unsigned i = 0; i < 500 && rdma_responder_busy(rr); i++)
                (void) nanosleep(&(struct timespec){ .tv_nsec = 10 * 1000 * 1000 }, NULL);
        ASSERT_TRUE(!rdma_responder_busy(rr));
        return rdma_responder_stats(rr);
}
