/* SPDX-License-Identifier: MIT */
/* peer.<node>.rdma rendered from data, as a case table: what the check says for each thing one RC
 * queue-pair exchange (or its absence) can show. The figures are those of two soft-RoCE guests
 * (rxe0, RoCE v2 GID 1, active MTU 1024 on a 1500-byte netdev); the error texts are the ones
 * lib/rdma/rdma-qp*.c and lib/peer/peer-rdma-probe.c write. */
#include <arpa/inet.h>
#include <stdlib.h>

#include "basic/macro.h"
#include "check/check-peer-rdma.h"
#include "tests.h"

static PeerRdmaMeasurement exchanged(int error, const char *text, PeerRdmaStatus peer_status) {
        PeerRdmaMeasurement m = {
                .outcome = PEER_RDMA_EXCHANGED,
                .device = "rxe0",
                .error = error,
                .result = {
                        .peer_status = peer_status,
                        .gid_index = 1,
                        .peer_gid_index = 1,
                        .path_mtu = 1024,
                        .active_mtu = 1024,
                        .peer_active_mtu = 1024,
                        .pings = 8,
                        .rtt_median_nsec = 45200,
                        .write_bytes = 1024,
                },
        };

        (void) snprintf(m.error_text.message, sizeof(m.error_text.message), "%s", text ?: "");
        ASSERT_TRUE(inet_pton(AF_INET6, "::ffff:192.168.100.1", &m.result.gid) == 1);
        ASSERT_TRUE(inet_pton(AF_INET6, "::ffff:192.168.100.2", &m.result.peer_gid) == 1);
        if (error < 0 || peer_status != PEER_RDMA_OK) /* nothing measured */
                m.result = (RdmaProbeResult){ .peer_status = peer_status };
        return m;
}

typedef struct Case {
        const char *name;
        bool required, reachable, pending, remeasured, no_measurement;
        PeerRdmaMeasurement m;
        CheckOutcome outcome;
        const char *actual;     /* NULL: "" */
        const char *summary[3]; /* each in the summary */
} Case;

static void test_render(void) {
        const Case table[] = {
                { "passes naming both GIDs, the path MTU and the round trip",
                  true,
                  true,
                  false,
                  false,
                  false,
                  exchanged(0, NULL, PEER_RDMA_OK),
                  CHECK_PASS,
                  "path MTU 1024, median 45.2 us",
                  { "rxe0 GID 1 ::ffff:192.168.100.1 to GID 1 ::ffff:192.168.100.2",
                    "path MTU 1024",
                    "round trip median 45.2 µs over 8 SENDs, one 1024-byte RDMA WRITE" } },
                { "an earlier round's measurement says so",
                  true,
                  true,
                  false,
                  true,
                  false,
                  exchanged(0, NULL, PEER_RDMA_OK),
                  CHECK_PASS,
                  "path MTU 1024, median 45.2 us",
                  { "(last round that measured it)", NULL, NULL } },
                { "a SEND that RoCE v2 never delivers (UDP 4791 dropped): the completion status",
                  true,
                  true,
                  false,
                  false,
                  false,
                  exchanged(
                          -EIO,
                          "A SEND on rxe0 completed with 'transport retry counter exceeded' (status 12): the peer's "
                          "queue pair does not answer (wrong GID, QPN or PSN, or a RoCE path that drops packets)",
                          PEER_RDMA_OK),
                  CHECK_FAIL,
                  "Input/output error",
                  { "RDMA to worker over rdma0 from rxe0 fails while the peer channel answers",
                    "'transport retry counter exceeded' (status 12)",
                    NULL } },
                { "echoes that never come after the hello crossed (the vm suite's nftables drop): the hint",
                  true,
                  true,
                  false,
                  false,
                  false,
                  exchanged(
                          -ETIMEDOUT,
                          "No echo of RDMA ping 0 within 2000 ms: the peer stopped answering",
                          PEER_RDMA_OK),
                  CHECK_FAIL,
                  "Connection timed out",
                  { "No echo of RDMA ping 0 within 2000 ms", "UDP port 4791", "nft list ruleset" } },
                { "rdma.required: false warns instead",
                  false,
                  true,
                  false,
                  false,
                  false,
                  exchanged(
                          -EIO,
                          "A SEND on rxe0 completed with 'transport retry counter exceeded' (status 12): the peer's "
                          "queue pair does not answer (wrong GID, QPN or PSN, or a RoCE path that drops packets)",
                          PEER_RDMA_OK),
                  CHECK_WARN,
                  "Input/output error",
                  { "transport retry counter exceeded", NULL, NULL } },
                { "no GID for the address here",
                  true,
                  true,
                  false,
                  false,
                  false,
                  exchanged(
                          -ENOENT,
                          "rxe0 port 1 has no RoCE v2 GID for 192.168.100.1: see 'haloctl check --only rdma.gid'",
                          PEER_RDMA_OK),
                  CHECK_FAIL,
                  "No such file or directory",
                  { "has no RoCE v2 GID for 192.168.100.1", NULL, NULL } },
                { "the queue pair stuck in a state",
                  true,
                  true,
                  false,
                  false,
                  false,
                  exchanged(
                          -EINVAL,
                          "ibv_modify_qp to RTR failed: Invalid argument (queue pair 17 on rxe0 port 1 is in "
                          "INIT, attribute mask 0x1e1)",
                          PEER_RDMA_OK),
                  CHECK_FAIL,
                  "Invalid argument",
                  { "ibv_modify_qp to RTR failed", "is in INIT", NULL } },
                { "no device on the peer",
                  true,
                  true,
                  false,
                  false,
                  false,
                  exchanged(0, NULL, PEER_RDMA_NO_DEVICE),
                  CHECK_FAIL,
                  "no-device",
                  { "No RDMA to worker: no RDMA device on the peer",
                    "'haloctl check --only rdma.device' on worker",
                    NULL } },
                { "the peer could not set its queue pair up",
                  true,
                  true,
                  false,
                  false,
                  false,
                  exchanged(0, NULL, PEER_RDMA_FAILED),
                  CHECK_FAIL,
                  "failed",
                  { "the peer could not set up its queue pair", "journalctl -u halod on worker", NULL } },
                { "the peer is busy with another probe: nothing known",
                  true,
                  true,
                  false,
                  false,
                  false,
                  exchanged(0, NULL, PEER_RDMA_BUSY),
                  CHECK_SKIP,
                  "peer busy",
                  { "busy with another RDMA probe", NULL, NULL } },
                { "no device on this node's link",
                  true,
                  true,
                  false,
                  false,
                  false,
                  { .outcome = PEER_RDMA_NO_LOCAL_DEVICE, .error = -ENODEV },
                  CHECK_FAIL,
                  "no device here",
                  { "the link's NIC here has no RDMA device", "see rdma.device", NULL } },
                { "no address on this node's link",
                  true,
                  true,
                  false,
                  false,
                  false,
                  { .outcome = PEER_RDMA_NO_LOCAL_DEVICE, .error = -EADDRNOTAVAIL },
                  CHECK_FAIL,
                  "no device here",
                  { "this node has no address on the link", NULL, NULL } },
                { "no RDMA in this kernel",
                  true,
                  true,
                  false,
                  false,
                  false,
                  { .outcome = PEER_RDMA_NO_KERNEL, .error = -ENOSYS },
                  CHECK_FAIL,
                  "no RDMA here",
                  { "kernel has no RDMA support", NULL, NULL } },
                { "no rdma: section: skipped whatever the peer does",
                  true,
                  false,
                  true,
                  false,
                  false,
                  { .outcome = PEER_RDMA_NO_SECTION },
                  CHECK_SKIP,
                  NULL,
                  { "the profile has no rdma: section", NULL, NULL } },
                { "built without libibverbs: skipped",
                  true,
                  true,
                  false,
                  false,
                  false,
                  { .outcome = PEER_RDMA_NO_VERBS, .error = -EOPNOTSUPP },
                  CHECK_SKIP,
                  NULL,
                  { "built without libibverbs", NULL, NULL } },
                { "a peer that does not answer is not exchanged with",
                  true,
                  false,
                  false,
                  false,
                  true,
                  {},
                  CHECK_SKIP,
                  NULL,
                  { "worker does not answer (see peer.worker.reachable)", NULL, NULL } },
                { "a pending peer", true, false, true, false, true, {}, CHECK_SKIP, "pending", { "pending", NULL, NULL } },
                { "never measured yet (outside the window)",
                  true,
                  true,
                  false,
                  true,
                  true,
                  {},
                  CHECK_SKIP,
                  NULL,
                  { "measured in a coming round", NULL, NULL } },
        };

        for (size_t i = 0; i < ELEMENTSOF(table); i++) {
                const Case *t = &table[i];
                PeerRdmaCheckContext c = {
                        .node = "worker",
                        .path = "rdma0",
                        .required = t->required,
                        .reachable = t->reachable,
                        .pending = t->pending,
                        .remeasured = t->remeasured,
                };
                _cleanup_(check_list_done) CheckList l = {};
                const Check *check;

                fprintf(stderr, "case: %s\n", t->name);
                ASSERT_OK(check_peer_rdma(&c, t->no_measurement ? NULL : &t->m, &l));
                ASSERT_INT_EQ(l.n_checks, 1);
                check = &l.checks[0];
                fprintf(stderr, "  %s: %s\n", check_outcome_to_string(check->outcome), check->summary);
                ASSERT_STR_EQ(check->id, "peer.worker.rdma");
                ASSERT_INT_EQ(check->outcome, t->outcome);
                ASSERT_STR_EQ(check->actual, t->actual ?: "");
                ASSERT_INT_EQ(check->pending, t->pending && t->m.outcome != PEER_RDMA_NO_SECTION);
                for (size_t j = 0; j < ELEMENTSOF(t->summary) && t->summary[j]; j++)
                        ASSERT_TRUE(strstr(check->summary, t->summary[j]));
        }
}

static void test_outcome_of_device(void) {
        ASSERT_INT_EQ(peer_rdma_outcome_of_device(-EOPNOTSUPP), PEER_RDMA_NO_VERBS);
        ASSERT_INT_EQ(peer_rdma_outcome_of_device(-ENOSYS), PEER_RDMA_NO_KERNEL);
        ASSERT_INT_EQ(peer_rdma_outcome_of_device(-ENODEV), PEER_RDMA_NO_LOCAL_DEVICE);
        ASSERT_INT_EQ(peer_rdma_outcome_of_device(-EADDRNOTAVAIL), PEER_RDMA_NO_LOCAL_DEVICE);
}

int main(void) {
        test_render();
        test_outcome_of_device();
        return 0;
}
