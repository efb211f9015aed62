/* SPDX-License-Identifier: MIT */
/* peer.<node>.rdma rendered from the data of one RC queue-pair exchange (check-peer-rdma.h). */
#include <arpa/inet.h>
#include <inttypes.h>
#include <stdio.h>

#include "check/check-peer-rdma.h"
#include "check/check-peer-skip.h"

static const char *check_id(const PeerRdmaCheckContext *c, char id[static CHECK_ID_MAX]) {
        (void) snprintf(id, CHECK_ID_MAX, "peer.%s.rdma", c->node);
        return id;
}

/* A problem fails the check when the profile says rdma.required, else it warns (as rdma.* do). */
static CheckOutcome problem(const PeerRdmaCheckContext *c) {
        return c->required ? CHECK_FAIL : CHECK_WARN;
}

static const char *peer_status_text(PeerRdmaStatus st) {
        switch (st) {
        case PEER_RDMA_NO_DEVICE:
                return "no RDMA device on the peer (or no RoCE GID for its address there)";
        case PEER_RDMA_FAILED:
                return "the peer could not set up its queue pair";
        default:
                return "the peer answered with an unknown status";
        }
}

static int render_peer_refused(
        const PeerRdmaCheckContext *c, const PeerRdmaMeasurement *m, const char *id, CheckList *out) {
        if (m->result.peer_status == PEER_RDMA_BUSY)
                /* Another probe (haloctl probe, a third node's round) holds the peer's one session:
                 * nothing is known either way, and the next round asks again. */
                return check_list_add(
                        out,
                        id,
                        CHECK_SKIP,
                        "an RC queue pair connects",
                        "peer busy",
                        "Not measured: %s's halod was busy with another RDMA probe; it is asked again in the "
                        "next round",
                        c->node);
        return check_list_add(
                out,
                id,
                problem(c),
                "an RC queue pair connects",
                peer_rdma_status_to_string(m->result.peer_status),
                "No RDMA to %s: %s; see %s on %s",
                c->node,
                peer_status_text(m->result.peer_status),
                m->result.peer_status == PEER_RDMA_FAILED ? "journalctl -u halod"
                                                          : "'haloctl check --only rdma.device'",
                c->node);
}

/* After the hello crossed (UDP on the peer channel's port), an echo that never comes means RoCE v2's own
 * packets do not: RC retransmits for several seconds before its completion says so. */
static const char *exchange_hint(int error) {
        if (error == -ETIMEDOUT)
                return "; the hello crossed, so RoCE v2's packets (UDP port 4791) are dropped on the way: a "
                       "firewall on either node (nft list ruleset), an ACL, or a GID that does not route";
        return "";
}

static int render_exchanged(
        const PeerRdmaCheckContext *c, const PeerRdmaMeasurement *m, const char *id, CheckList *out) {
        const RdmaProbeResult *res = &m->result;
        char gid[INET6_ADDRSTRLEN], peer_gid[INET6_ADDRSTRLEN], actual[128];

        if (m->error < 0)
                return check_list_add(
                        out,
                        id,
                        problem(c),
                        "an RC queue pair connects",
                        strerror(-m->error),
                        "RDMA to %s over %s%s from %s fails while the peer channel answers: %s%s",
                        c->node,
                        c->path,
                        c->remeasured ? " (last round that measured it)" : "",
                        isempty(m->device) ? "this node" : m->device,
                        isempty(m->error_text.message) ? strerror(-m->error) : m->error_text.message,
                        exchange_hint(m->error));
        if (res->peer_status != PEER_RDMA_OK)
                return render_peer_refused(c, m, id, out);

        (void) inet_ntop(AF_INET6, &res->gid, gid, sizeof(gid));
        (void) inet_ntop(AF_INET6, &res->peer_gid, peer_gid, sizeof(peer_gid));
        (void) snprintf(
                actual,
                sizeof(actual),
                "path MTU %u, median %.1f us",
                res->path_mtu,
                (double) res->rtt_median_nsec / 1000.0);
        return check_list_add(
                out,
                id,
                CHECK_PASS,
                "an RC queue pair connects",
                actual,
                "RC queue pair to %s over %s%s: %s GID %" PRIu32 " %s to GID %" PRIu32
                " %s, path MTU %u, round trip median %.1f µs over %u SENDs, one %" PRIu64 "-byte RDMA WRITE",
                c->node,
                c->path,
                c->remeasured ? " (last round that measured it)" : "",
                m->device,
                res->gid_index,
                gid,
                res->peer_gid_index,
                peer_gid,
                res->path_mtu,
                (double) res->rtt_median_nsec / 1000.0,
                res->pings,
                res->write_bytes);
}

int check_peer_rdma(const PeerRdmaCheckContext *c, const PeerRdmaMeasurement *m, CheckList *out) {
        char id[CHECK_ID_MAX];

        (void) check_id(c, id);
        /* The two reasons not to check at all hold whatever the peer does. */
        if (m && m->outcome == PEER_RDMA_NO_SECTION)
                return check_list_skip(out, id, "Not checked: the profile has no rdma: section");
        if (m && m->outcome == PEER_RDMA_NO_VERBS)
                return check_list_skip(
                        out,
                        id,
                        "Not checked: this halod was built without libibverbs (meson -Dlibibverbs=enabled)");
        if (c->pending || !c->reachable)
                return check_peer_skip_unanswered(out, id, "Not exchanged", c->node, c->pending);
        if (!m || m->outcome == PEER_RDMA_NOT_RUN)
                return check_list_skip(out, id, "Not exchanged yet: %s is measured in a coming round", c->node);

        switch (m->outcome) {
        case PEER_RDMA_NO_KERNEL:
                return check_list_add(
                        out,
                        id,
                        problem(c),
                        "an RC queue pair connects",
                        "no RDMA here",
                        "No RDMA to %s: this node's kernel has no RDMA support (no /sys/class/infiniband); "
                        "see rdma.driver",
                        c->node);
        case PEER_RDMA_NO_LOCAL_DEVICE:
                return check_list_add(
                        out,
                        id,
                        problem(c),
                        "an RC queue pair connects",
                        "no device here",
                        "No RDMA to %s: %s; see rdma.device",
                        c->node,
                        m->error == -EADDRNOTAVAIL ? "this node has no address on the link"
                                                   : "the link's NIC here has no RDMA device");
        case PEER_RDMA_EXCHANGED:
                return render_exchanged(c, m, id, out);
        default:
                return -EINVAL;
        }
}
