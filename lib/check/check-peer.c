/* SPDX-License-Identifier: MIT */
/* peer.<node>.reachable|mtu|latency|profile|rdma: one echo run and one MTU run per neighbour, then an RC
 * queue-pair exchange with each one measured this round, judged. */
#include <assert.h>
#include <inttypes.h>
#include <net/if.h>
#include <poll.h>

#include "check/check-peer-skip.h"
#include "check/check-peer.h"
#include "peer/peer-profile.h"
#include "peer/peer-schedule.h"
#include "peer/peer.h"
#include "profile/profile-digest.h"
#include "snapshot/fabric.h"
#include "snapshot/rdma-node.h"
#include "snapshot/snapshot-rdma.h"

void peer_status_list_done(PeerStatusList *l) {
        for (size_t i = 0; i < l->n_peers; i++)
                free(l->peers[i].node);
        l->peers = mfree(l->peers);
        l->n_peers = 0;
}

int peer_status_list_copy(const PeerStatusList *l, PeerStatusList *ret) {
        PeerStatusList copy = {};

        copy.peers = calloc(l->n_peers > 0 ? l->n_peers : 1, sizeof(PeerStatus));
        if (!copy.peers)
                return -ENOMEM;
        for (size_t i = 0; i < l->n_peers; i++) {
                copy.peers[i] = l->peers[i];
                copy.peers[i].node = strdup(l->peers[i].node);
                if (!copy.peers[i].node) {
                        peer_status_list_done(&copy);
                        return -ENOMEM;
                }
                copy.n_peers++;
        }
        *ret = copy;
        return 0;
}

/* One neighbour through the rounds: its echo run, then (when it answered) its MTU run. */
typedef struct PeerRun {
        const NodeContext *c;
        const PeerOptions *o;
        const PeerNeighbour *n;
        const PeerIdentity *self;
        Snapshot *snapshot;
        uint16_t port;
        uint64_t round_usec;
        char local[INET_ADDRSTRLEN];
        char remote[INET_ADDRSTRLEN];
        char path[256];    /* "rdma0", or "rdma0 via 10.0.1.2 (node2)" */
        char gateway[128]; /* for a routed peer: "node2", or the gateway's address when no node holds it */
        char id[CHECK_ID_MAX];

        bool measure;                /* the full echo run and the MTU probes; else liveness probes only */
        const PeerMeasurement *last; /* the last round's measurement (previous_peers), or NULL */
        int echo_status; /* of peer_probe_round(): 0, negative errno, or -EINPROGRESS (pending) */
        PeerProbeResult echo;
        bool older_peer; /* silent to the probe port, answered from an ephemeral one (retry_older_peers()) */
        bool reachable;  /* the right node answered */
        uint32_t mtu;    /* what the MTU run probes, 0: none (see check_mtu()) */
        int mtu_status;
        PeerProbeResult mtu_result;
        PeerRdmaMeasurement rdma; /* this round's exchange (measured peers only) */
        CheckList checks;         /* this neighbour's five checks, in order */
} PeerRun;

/* The MTU of the netdev of the link the probes leave by, from the snapshot (sysfs below the host
 * root), or the copy of a verify's (PeerOptions.link_mtus): what an MTU probe proves when the profile
 * leaves the MTU alone. -ENOENT when the link has no netdev whose MTU could be read. */
static int local_mtu(PeerRun *run, uint32_t *ret) {
        size_t i;
        int r;

        if (run->o->link_mtus) {
                r = peer_link_mtus_find(run->o->link_mtus, run->n->link, ret);
                if (r < 0)
                        return r;
                return *ret > 0 ? 0 : -ENOENT;
        }
        r = snapshot_read(run->snapshot, SNAPSHOT_MTU);
        if (r < 0)
                return r;
        r = snapshot_port_by_link(run->snapshot, run->n->link, &i);
        if (r < 0)
                return r;
        *ret = snapshot_port_mtu(run->snapshot, i);
        return *ret > 0 ? 0 : -ENOENT;
}

static const char *check_id(PeerRun *run, const char *what) {
        (void) snprintf(run->id, sizeof(run->id), "peer.%s.%s", run->n->node->name, what);
        return run->id;
}

static const char *probe_error_hint(const PeerRun *run, int r) {
        switch (r) {
        case -EADDRNOTAVAIL:
                return "this node's address is not configured: see the link checks";
        case -ENETUNREACH:
        case -EHOSTUNREACH:
                if (run->n->routed)
                        return "no route to it through the gateway (or the gateway said so): see "
                               "link.*.routes here and link.*.forwarding on the gateway";
                return "no route: is the link up with its address?";
        case -EMSGSIZE:
                return "the local interface's MTU is smaller";
        default:
                return "";
        }
}

/* The way the probes go: the link, and for a routed peer the gateway that the kernel's route names. */
static void format_path(PeerRun *run) {
        char via[INET_ADDRSTRLEN];

        if (!run->n->routed) {
                (void) snprintf(run->path, sizeof(run->path), "%s", run->n->link);
                return;
        }
        (void) inet_ntop(AF_INET, &run->n->via, via, sizeof(via));
        (void) snprintf(
                run->gateway, sizeof(run->gateway), "%s", run->n->gateway ? run->n->gateway->name : via);
        if (run->n->gateway)
                (void) snprintf(
                        run->path, sizeof(run->path), "%s via %s (%s)", run->n->link, via, run->n->gateway->name);
        else
                (void) snprintf(run->path, sizeof(run->path), "%s via %s", run->n->link, via);
}

/* What a rate-limited peer means, depending on the budget the probes drew from (halod(8), PEER
 * CHANNEL, Rate limit). */
static const char *rate_limited_hint(const PeerRun *run) {
        if (run->o->source_port != 0)
                return "Only this node's halod sends from its probe port: is a second halod running on "
                       "this node, or are Verify() calls asked back to back?";
        return "A program on this node (a flood from any local user, or haloctl probe) is using up the "
               "budget this node's programs other than halod share; halod's own probes have a budget of "
               "their own";
}

/* r from adding a check: marks that check pending (its probes had not ended). */
static int mark_pending(CheckList *out, int r) {
        if (r >= 0)
                out->checks[out->n_checks - 1].pending = true;
        return r;
}

/* peer.<node>.reachable from the echo run; sets run->reachable when the right node answered. */
static int check_reachable(PeerRun *run, CheckList *out) {
        const char *cluster = run->c->profile->cluster ?: "";
        const char *node = run->n->node->name;
        const PeerProbeResult *res = &run->echo;
        _cleanup_(freep) char *expected = NULL, *actual = NULL;
        int r = run->echo_status;

        run->reachable = false;
        if (asprintf(&expected, "%s of cluster %s answers at %s", node, cluster, run->remote) < 0)
                return -ENOMEM;

        if (r == -EINPROGRESS)
                return mark_pending(
                        out,
                        check_list_add(
                                out,
                                check_id(run, "reachable"),
                                CHECK_SKIP,
                                expected,
                                "pending",
                                "Pending: %s (%s) was still being probed when this round of peer checks ended after "
                                "%.1f s; it is probed again in the next round",
                                node,
                                run->remote,
                                (double) run->round_usec / 1e6));
        if (r < 0)
                return check_list_add(
                        out,
                        check_id(run, "reachable"),
                        CHECK_FAIL,
                        expected,
                        strerror(-r),
                        "Cannot probe %s at %s from %s on %s: %s%s%s",
                        node,
                        run->remote,
                        run->local,
                        run->path,
                        strerror(-r),
                        isempty(probe_error_hint(run, r)) ? "" : "; ",
                        probe_error_hint(run, r));
        if (res->answered == 0) {
                if (res->rate_limited > 0)
                        return check_list_add(
                                out,
                                check_id(run, "reachable"),
                                CHECK_FAIL,
                                expected,
                                "rate-limited",
                                "Rate-limited: %s (%s) refused the probes from %s as over the rate it answers "
                                "%s (%u notices, no answer); its halod runs. %s",
                                node,
                                run->remote,
                                run->local,
                                run->o->source_port != 0 ? "this node's halod"
                                                         : "this node's programs other than halod",
                                res->rate_limited,
                                rate_limited_hint(run));
                if (res->last_error == -ECONNREFUSED)
                        return check_list_add(
                                out,
                                check_id(run, "reachable"),
                                CHECK_FAIL,
                                expected,
                                "port unreachable",
                                "Nothing listens on %s UDP port %u: start halod on %s (systemctl start halod)",
                                run->remote,
                                run->port,
                                node);
                if (run->n->routed)
                        return check_list_add(
                                out,
                                check_id(run, "reachable"),
                                CHECK_FAIL,
                                expected,
                                "no answer",
                                "%s (%s) did not answer %u probes on UDP port %u sent over %s: the path goes "
                                "through a gateway; does %s forward (forwarding: true, link.*.forwarding there), "
                                "does %s have a route back to %s, and does halod run there?",
                                node,
                                run->remote,
                                res->sent,
                                run->port,
                                run->path,
                                run->gateway,
                                node,
                                run->local);
                return check_list_add(
                        out,
                        check_id(run, "reachable"),
                        CHECK_FAIL,
                        expected,
                        "no answer",
                        "%s (%s) did not answer %u probes on UDP port %u over %s: is halod running there, "
                        "and does the firewall zone of its %s interface allow the port?",
                        node,
                        run->remote,
                        res->sent,
                        run->port,
                        run->n->link,
                        run->n->link);
        }

        if (asprintf(
                    &actual,
                    "%s of cluster %s (%s)",
                    res->peer.node,
                    res->peer.cluster,
                    strna(health_to_string(res->peer.health))) < 0)
                return -ENOMEM;
        if (!streq(res->peer.node, node) || !streq(res->peer.cluster, cluster))
                return check_list_add(
                        out,
                        check_id(run, "reachable"),
                        CHECK_FAIL,
                        expected,
                        actual,
                        "%s answers as node '%s' of cluster '%s', expected '%s' of '%s': the address belongs "
                        "to another node or another cluster; check nodes.*.links in both profiles",
                        run->remote,
                        res->peer.node,
                        res->peer.cluster,
                        node,
                        cluster);

        run->reachable = true;
        return check_list_add(
                out,
                check_id(run, "reachable"),
                CHECK_PASS,
                expected,
                actual,
                "%s answers at %s over %s (%u/%u probes); it reports itself %s%s",
                node,
                run->remote,
                run->path,
                res->answered,
                res->sent,
                strna(health_to_string(res->peer.health)),
                run->older_peer
                        ? ". Its halod predates the privileged probe port and drops what this node's halod "
                          "sends from it: probed from an ephemeral port, within the budget of this node's "
                          "other programs, until it is upgraded (halod(8), PEER CHANNEL)"
                        : "");
}

static const PeerStatus *previous_row(const PeerOptions *o, const PeerRun *run) {
        for (size_t i = 0; o->previous_peers && i < o->previous_peers->n_peers; i++) {
                const PeerStatus *s = &o->previous_peers->peers[i];

                if (streq(s->node, run->n->node->name) && streq(s->address, run->remote))
                        return s;
        }
        return NULL;
}

/* The peer's last measurement, when the last round left one to render from: it answered then, and its
 * latency was measured and its MTU run ended. */
static const PeerMeasurement *last_measurement(const PeerOptions *o, const PeerRun *run) {
        const PeerStatus *row = previous_row(o, run);

        return row && row->reachable && !row->pending && row->measured.valid ? &row->measured : NULL;
}

/* An unmeasured peer without a measurement to render from (not reached: such a peer is measured). */
static int not_measured(PeerRun *run, const char *what, CheckList *out) {
        return check_list_skip(
                out,
                check_id(run, what),
                "Not measured in this round: %s answers; it is measured in a later one",
                run->n->node->name);
}

/* The check what, skipped because the echo run found no peer to measure (or has not ended). */
static int skip_unreachable(PeerRun *run, const char *what, const char *not_done, CheckList *out) {
        return check_peer_skip_unanswered(
                out, check_id(run, what), not_done, run->n->node->name, run->echo_status == -EINPROGRESS);
}

static int check_latency(PeerRun *run, CheckList *out) {
        /* An unmeasured peer's latency is its last measurement's, rendered again. */
        const PeerProbeResult *res = run->measure ? &run->echo : run->last ? &run->last->echo : NULL;
        uint64_t warn_median = run->o->latency_warn_median_usec ?: PEER_LATENCY_WARN_MEDIAN_USEC;
        uint64_t warn_p99 = run->o->latency_warn_p99_usec ?: PEER_LATENCY_WARN_P99_USEC;
        _cleanup_(freep) char *expected = NULL, *actual = NULL;
        unsigned lost;

        if (!run->reachable)
                return skip_unreachable(run, "latency", "Not measured", out);
        if (!res)
                return not_measured(run, "latency", out);

        lost = res->sent - res->answered;
        if (asprintf(&expected, "median <= %" PRIu64 " us, p99 <= %" PRIu64 " us, no loss", warn_median, warn_p99) <
                    0 ||
            asprintf(
                    &actual,
                    "median %" PRIu64 " us, p99 %" PRIu64 " us, %u/%u lost",
                    res->rtt_median_usec,
                    res->rtt_p99_usec,
                    lost,
                    res->sent) < 0)
                return -ENOMEM;

        if (res->rtt_median_usec > warn_median || res->rtt_p99_usec > warn_p99 || lost > 0)
                return check_list_add(
                        out,
                        check_id(run, "latency"),
                        CHECK_WARN,
                        expected,
                        actual,
                        "Round trip to %s is slow or lossy: median %" PRIu64 " µs, p99 %" PRIu64
                        " µs, %u of %u probes lost (warn above %" PRIu64 " µs median or %" PRIu64
                        " µs p99): look for a busy CPU, a routed hop, or errors on the %s interface",
                        run->n->node->name,
                        res->rtt_median_usec,
                        res->rtt_p99_usec,
                        lost,
                        res->sent,
                        warn_median,
                        warn_p99,
                        run->n->link);
        return check_list_add(
                out,
                check_id(run, "latency"),
                CHECK_PASS,
                expected,
                actual,
                "Round trip to %s over %s (UDP): median %" PRIu64 " µs, p99 %" PRIu64 " µs over %u probes",
                run->n->node->name,
                run->path,
                res->rtt_median_usec,
                res->rtt_p99_usec,
                res->answered);
}

/* The MTU that the MTU run of a reachable peer probes: the profile's, else the kernel's of the local
 * interface; 0 when there is none or the probe cannot carry it (check_mtu() says which). */
static uint32_t mtu_to_probe(PeerRun *run) {
        uint32_t mtu = run->n->mtu;

        if (!run->reachable)
                return 0;
        if (mtu == 0 && local_mtu(run, &mtu) < 0)
                return 0;
        if (mtu < PEER_IPV4_UDP_OVERHEAD + PEER_REQUEST_SIZE_MIN ||
            mtu - PEER_IPV4_UDP_OVERHEAD > PEER_MESSAGE_SIZE_MAX)
                return 0;
        return mtu;
}

static int check_mtu(PeerRun *run, CheckList *out) {
        _cleanup_(freep) char *expected = NULL;
        const char *node = run->n->node->name;
        /* An unmeasured peer's MTU run is its last measurement's, rendered again. */
        const PeerMeasurement now = { .mtu = run->mtu,
                                      .mtu_status = run->mtu_status,
                                      .mtu_result = run->mtu_result };
        const PeerMeasurement *m = run->measure ? &now : run->last;
        const PeerProbeResult *res;
        uint32_t mtu = run->n->mtu;
        int r;

        if (!run->reachable)
                return skip_unreachable(run, "mtu", "Not probed", out);
        if (!m)
                return not_measured(run, "mtu", out);
        res = &m->mtu_result;
        r = m->mtu_status;
        if (m->mtu == 0) {
                int k = mtu == 0 ? local_mtu(run, &mtu) : 0;

                if (k == -ENOMEM)
                        return k;
                if (k < 0)
                        return check_list_add(
                                out,
                                check_id(run, "mtu"),
                                CHECK_SKIP,
                                NULL,
                                NULL,
                                "Not probed: the profile sets no MTU for %s and the MTU of its netdev (holding %s) "
                                "could not be read",
                                run->n->link,
                                run->local);
                return check_list_add(
                        out,
                        check_id(run, "mtu"),
                        CHECK_SKIP,
                        NULL,
                        NULL,
                        "Not probed: an MTU of %" PRIu32 " is outside what the probe covers (%u-%u)",
                        mtu,
                        PEER_IPV4_UDP_OVERHEAD + PEER_REQUEST_SIZE_MIN,
                        PEER_IPV4_UDP_OVERHEAD + PEER_MESSAGE_SIZE_MAX);
        }
        mtu = m->mtu;

        if (asprintf(&expected, "%" PRIu32 "-byte datagrams cross both ways unfragmented", mtu) < 0)
                return -ENOMEM;

        if (r == -EINPROGRESS)
                return mark_pending(
                        out,
                        check_list_add(
                                out,
                                check_id(run, "mtu"),
                                CHECK_SKIP,
                                expected,
                                "pending",
                                "Pending: the %" PRIu32
                                "-byte probes of %s had not ended when this round of peer checks ended after %.1f s; "
                                "they run again in the next round",
                                mtu,
                                node,
                                (double) run->round_usec / 1e6));
        if (r == -EMSGSIZE)
                return check_list_add(
                        out,
                        check_id(run, "mtu"),
                        CHECK_FAIL,
                        expected,
                        "refused locally",
                        "This node cannot send a %" PRIu32
                        "-byte datagram to %s without fragmenting: the "
                        "interface holding %s (or the route to %s) has a smaller MTU; see link.%s.mtu",
                        mtu,
                        node,
                        run->local,
                        run->remote,
                        run->n->link);
        if (r < 0)
                return check_list_add(
                        out,
                        check_id(run, "mtu"),
                        CHECK_FAIL,
                        expected,
                        strerror(-r),
                        "Cannot send an MTU probe to %s: %s",
                        node,
                        strerror(-r));
        if (res->answered == 0 && res->rate_limited > 0)
                return check_list_add(
                        out,
                        check_id(run, "mtu"),
                        CHECK_FAIL,
                        expected,
                        "rate-limited",
                        "Rate-limited: %s refused the %" PRIu32
                        "-byte probes from %s as over the rate it "
                        "answers; the MTU is not known. %s",
                        node,
                        mtu,
                        run->local,
                        rate_limited_hint(run));
        if (res->answered == 0)
                return check_list_add(
                        out,
                        check_id(run, "mtu"),
                        CHECK_FAIL,
                        expected,
                        "lost",
                        "%" PRIu32
                        "-byte datagrams with don't-fragment set do not cross to %s and back (%u "
                        "tries), while small probes do: %s's interface, or a switch on the path, has an "
                        "MTU below %" PRIu32 "; set it to %" PRIu32 " there",
                        mtu,
                        node,
                        res->sent,
                        node,
                        mtu,
                        mtu);
        return check_list_add(
                out,
                check_id(run, "mtu"),
                CHECK_PASS,
                expected,
                "crossed",
                "%" PRIu32 "-byte datagrams cross to %s and back over %s with don't-fragment set",
                mtu,
                node,
                run->path);
}

static int check_profile_digest(PeerRun *run, CheckList *out) {
        const PeerProbeResult *res = &run->echo;
        char mine[SHA256_HEX_MAX], theirs[SHA256_HEX_MAX];
        const char *node = run->n->node->name;

        if (!run->reachable)
                return skip_unreachable(run, "profile", "Not compared", out);

        hex_encode(run->self->digest, PEER_DIGEST_SIZE, mine);
        if (!res->peer.has_digest)
                return check_list_add(
                        out,
                        check_id(run, "profile"),
                        CHECK_WARN,
                        mine,
                        "",
                        "%s did not send a profile digest: is its halod older than this one?",
                        node);

        hex_encode(res->peer.digest, PEER_DIGEST_SIZE, theirs);
        if (!streq(mine, theirs))
                return check_list_add(
                        out,
                        check_id(run, "profile"),
                        CHECK_WARN,
                        mine,
                        theirs,
                        "%s runs a different profile: digest %.*s there, %.*s here; copy the same halod.yaml "
                        "to every node and reload (haloctl reload)",
                        node,
                        (int) PROFILE_DIGEST_SHORT,
                        theirs,
                        (int) PROFILE_DIGEST_SHORT,
                        mine);
        return check_list_add(
                out,
                check_id(run, "profile"),
                CHECK_PASS,
                mine,
                theirs,
                "%s runs the same profile (digest %.*s)",
                node,
                (int) PROFILE_DIGEST_SHORT,
                mine);
}

/* This round's RDMA device on one link, shared by the exchanges with every peer behind it: looked up
 * once per round (the lookup reads the fabric ports and opens the devices to match their GIDs) and
 * closed when the round's exchanges are done, so that no uverbs file stays open between rounds (see
 * halod(8), PEER CHECKS: a held one keeps `rdma link delete` from finishing). */
typedef struct RoundDevice {
        const char *link; /* the profile's link name; NULL: slot unused */
        RdmaDevice *device;
        struct in_addr address;
        int error; /* rdma_link_device()'s */
} RoundDevice;

static void round_devices_free(RoundDevice *devices, size_t n) {
        for (size_t i = 0; i < n; i++)
                devices[i].device = rdma_device_free(devices[i].device);
}

/* The round's device of run's link, looked up on the first exchange over that link. */
static const RoundDevice *round_device(PeerRun *run, RoundDevice *devices, size_t n) {
        size_t i;

        for (i = 0; i < n && devices[i].link; i++)
                if (streq(devices[i].link, run->n->link))
                        return &devices[i];
        assert(i < n); /* one slot per peer: never more links than that */
        devices[i] = (RoundDevice){ .link = run->n->link };
        devices[i].error = rdma_link_device(run->c, run->n->link, &devices[i].device, &devices[i].address);
        return &devices[i];
}

/* The RC queue-pair exchange with a measured peer that answers: a few SENDs and one RDMA WRITE of the
 * path MTU through the peer's halod, as haloctl probe does it at length. */
static void exchange_rdma(PeerRun *run, const RoundDevice *rd, uint64_t deadline) {
        uint64_t t = now(CLOCK_MONOTONIC), left = deadline > t ? deadline - t : 0;
        RdmaProbeParams params;

        if (rd->error < 0) {
                run->rdma = (PeerRdmaMeasurement){
                        .outcome = peer_rdma_outcome_of_device(rd->error),
                        .error = rd->error,
                };
                return;
        }
        run->rdma = (PeerRdmaMeasurement){ .outcome = PEER_RDMA_EXCHANGED };
        (void) snprintf(run->rdma.device, sizeof(run->rdma.device), "%s", rd->device->name);
        params = (RdmaProbeParams){
                .device = rd->device,
                .gid_type = rdma_node_gid_type(run->c),
                .local = run->n->local,
                .remote = run->n->remote,
                .port = run->port,
                /* From halod's probe port: the peer's responder serves it before anyone else (an older
                 * one drops it). */
                .source_port = run->older_peer ? 0 : run->o->source_port,
                .self = run->self,
                .pings = PEER_RDMA_PINGS,
                .timeout_usec = left / RDMA_HELLO_TRIES < RDMA_PROBE_TIMEOUT_USEC_DEFAULT
                        ? left / RDMA_HELLO_TRIES
                        : RDMA_PROBE_TIMEOUT_USEC_DEFAULT,
                .echo_timeout_usec = left < PEER_RDMA_ECHO_TIMEOUT_USEC ? left : PEER_RDMA_ECHO_TIMEOUT_USEC,
                /* Another prober's exchange (a node's round) ends within a few round trips; a
                 * haloctl probe's run takes seconds, and then this round says busy. */
                .busy_wait_usec = left / 4 > 0 ? left / 4 : UINT64_MAX,
                .write_path_mtu = true,
        };
        run->rdma.error = rdma_probe(&params, &run->rdma.error_text, &run->rdma.result);
}

static bool cancelled(const PeerOptions *o) {
        struct pollfd p = { .fd = o->cancel_fd, .events = POLLIN };

        return o->cancel_fd > 0 && poll(&p, 1, 0) > 0;
}

/* Exchanges with the measured peers that answer, one after the other (the peer's responder serves one
 * probe at a time, and each exchange takes a few round trips), in what is left of the round: its
 * waits are cut to that, and one that cannot start before the round's deadline is left for the next
 * round (the check repeats the last exchange). Returns -ECANCELED when cancel_fd became readable in
 * between. */
static int exchange_rdma_all(PeerRun *runs, size_t n, uint64_t deadline) {
        _cleanup_(freep) RoundDevice *devices = NULL;
        int r = 0;

        if (n == 0)
                return 0;
        devices = calloc(n, sizeof(RoundDevice));
        if (!devices)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                PeerRun *run = &runs[i];

                if (!run->measure || !run->reachable)
                        continue;
                if (!run->c->profile->rdma.present) {
                        run->rdma = (PeerRdmaMeasurement){ .outcome = PEER_RDMA_NO_SECTION };
                        continue;
                }
                if (cancelled(run->o)) {
                        r = -ECANCELED;
                        break;
                }
                if (now(CLOCK_MONOTONIC) + PEER_RDMA_EXCHANGE_MIN_USEC > deadline)
                        continue;
                exchange_rdma(run, round_device(run, devices, n), deadline);
        }
        round_devices_free(devices, n);
        return r;
}

/* The exchange peer.<node>.rdma renders: this round's, or the last one measured when this round did
 * not measure the peer (the moving window), had no time left for it, or found its responder busy. A failed
 * exchange leaves the peer's session open until it falls idle (10 s, longer than a round): without this, a
 * broken path would read fail, skip, fail... and Health would flap with it. ret_earlier says which. */
static const PeerRdmaMeasurement *rdma_measurement(const PeerRun *run, bool *ret_earlier) {
        const PeerRdmaMeasurement *earlier = run->last && run->last->rdma.outcome != PEER_RDMA_NOT_RUN
                ? &run->last->rdma
                : NULL;
        bool busy = run->rdma.outcome == PEER_RDMA_EXCHANGED && run->rdma.error >= 0 &&
                run->rdma.result.peer_status == PEER_RDMA_BUSY;
        bool not_run = run->rdma.outcome == PEER_RDMA_NOT_RUN; /* no time left in the round */

        *ret_earlier = !run->measure || ((busy || not_run) && earlier);
        if (*ret_earlier)
                return earlier;
        return &run->rdma;
}

static int check_rdma(PeerRun *run, CheckList *out) {
        PeerRdmaCheckContext c = {
                .node = run->n->node->name,
                .path = run->path,
                .required = run->c->profile->rdma.required,
                .reachable = run->reachable,
                .pending = run->echo_status == -EINPROGRESS,
        };
        const PeerRdmaMeasurement *m = rdma_measurement(run, &c.remeasured);

        /* Not to check whatever the round did: said the same way every round. */
        if (!run->c->profile->rdma.present) {
                static const PeerRdmaMeasurement none = { .outcome = PEER_RDMA_NO_SECTION };

                m = &none;
        }
        return check_peer_rdma(&c, m, out);
}

static void peer_runs_free(PeerRun *runs, size_t n) {
        for (size_t i = 0; runs && i < n; i++)
                check_list_done(&runs[i].checks);
        free(runs);
}

static int peer_status_from_run(const PeerRun *run, PeerStatus *ret) {
        const PeerStatus *before = run->measure ? NULL : previous_row(run->o, run);
        PeerMeasurement measured = {};

        if (run->measure && run->reachable && run->mtu_status != -EINPROGRESS) {
                bool earlier;
                const PeerRdmaMeasurement *rdma = rdma_measurement(run, &earlier);

                measured = (PeerMeasurement){
                        .valid = true,
                        .echo = run->echo,
                        .mtu = run->mtu,
                        .mtu_status = run->mtu_status,
                        .mtu_result = run->mtu_result,
                        .rdma = rdma ? *rdma : (PeerRdmaMeasurement){},
                };
        } else if (!run->measure && run->reachable && run->last)
                measured = *run->last;

        *ret = (PeerStatus){
                .node = strdup(run->n->node->name),
                .reachable = run->reachable,
                .pending = run->echo_status == -EINPROGRESS,
                .rtt_median_usec = run->reachable ? run->echo.rtt_median_usec : 0,
                .rtt_p99_usec = run->reachable ? run->echo.rtt_p99_usec : 0,
                .measured = measured,
        };
        if (!ret->node)
                return -ENOMEM;
        if (run->reachable && before) {
                /* One liveness answer is no latency figure: the row keeps the last measured one. */
                ret->rtt_median_usec = before->rtt_median_usec;
                ret->rtt_p99_usec = before->rtt_p99_usec;
        }
        memcpy(ret->address, run->remote, sizeof(ret->address));
        return 0;
}

/* Runs one round over the runs whose params have a port (the others are left alone) and stores each
 * one's status and result in its run: the echo fields, or with mtu the MTU fields. */
static int probe_round(
        PeerRun *runs, size_t n, const PeerProbeParams *params, const PeerProbeRound *round, bool mtu) {
        _cleanup_(freep) PeerProbeParams *todo = NULL;
        _cleanup_(freep) PeerProbeResult *results = NULL;
        _cleanup_(freep) size_t *index = NULL;
        _cleanup_(freep) int *status = NULL;
        size_t k = 0;
        int r;

        if (n == 0)
                return 0;
        todo = calloc(n, sizeof(PeerProbeParams));
        results = calloc(n, sizeof(PeerProbeResult));
        index = calloc(n, sizeof(size_t));
        status = calloc(n, sizeof(int));
        if (!todo || !results || !index || !status)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++)
                if (params[i].port != 0) {
                        todo[k] = params[i];
                        index[k++] = i;
                }

        r = peer_probe_round(todo, k, round, status, results);
        if (r < 0)
                return r;
        for (size_t j = 0; j < k; j++) {
                PeerRun *run = &runs[index[j]];

                if (mtu) {
                        run->mtu_status = status[j];
                        run->mtu_result = results[j];
                } else {
                        run->echo_status = status[j];
                        run->echo = results[j];
                }
        }
        return 0;
}

/* A responder of a halod from before the privileged probe port drops datagrams from it as from a
 * privileged port, silently (halod(8), PEER CHANNEL, The probe port): the neighbours that gave no sign
 * at all to the echo probes from the probe port (no answer, no rate-limited notice, no ICMP error)
 * are asked again from an ephemeral port, and those that answer it are probed from one
 * for the rest of the round. No local user can make a current peer silent to the probe port: its
 * budget is halod's alone. */
static int retry_older_peers(PeerRun *runs, size_t n, PeerProbeParams *params, const PeerProbeRound *round) {
        _cleanup_(freep) PeerProbeParams *retry = NULL;
        _cleanup_(freep) PeerProbeResult *first = NULL;
        _cleanup_(freep) int *first_status = NULL;
        bool any = false;
        int r;

        retry = calloc(n, sizeof(PeerProbeParams));
        first = calloc(n, sizeof(PeerProbeResult));
        first_status = calloc(n, sizeof(int));
        if (!retry || !first || !first_status)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                const PeerProbeResult *e = &runs[i].echo;

                first[i] = runs[i].echo;
                first_status[i] = runs[i].echo_status;
                retry[i] = params[i];
                retry[i].source_port = 0;
                /* One datagram: whether it answers at all. A silent peer costs the round one probe
                 * timeout more, not a second run (31 silent peers: Verify() 3.0 s instead of 2.4 s). */
                retry[i].count = 1;
                retry[i].liveness = true;
                if (params[i].source_port == 0 || runs[i].echo_status < 0 || e->answered > 0 ||
                    e->rate_limited > 0 || e->last_error != 0)
                        retry[i].port = 0; /* not in this round */
                else
                        any = true;
        }
        if (!any)
                return 0;
        r = probe_round(runs, n, retry, round, /* mtu= */ false);
        if (r < 0)
                return r;
        any = false;
        for (size_t i = 0; i < n; i++) {
                if (retry[i].port == 0)
                        continue;
                if (runs[i].echo_status >= 0 && runs[i].echo.answered > 0) {
                        runs[i].older_peer = true;
                        params[i].source_port = 0;
                        any = true;
                } else {
                        /* Silent both ways (or cut short by the round's end): judged by the first run. */
                        runs[i].echo = first[i];
                        runs[i].echo_status = first_status[i];
                        retry[i].port = 0;
                }
        }
        if (!any)
                return 0;
        /* The older peers' run again, in full, from an ephemeral port. */
        for (size_t i = 0; i < n; i++)
                if (retry[i].port != 0)
                        retry[i] = params[i];
        return probe_round(runs, n, retry, round, /* mtu= */ false);
}

/* Probes every neighbour at once: an echo round, then an MTU round for those that answered, both
 * within one deadline; then judges each. */
static int check_neighbours(
        const NodeContext *c,
        const PeerOptions *o,
        Snapshot *snapshot,
        const PeerNeighbour *neighbours,
        size_t n,
        const PeerIdentity *self,
        CheckList *out,
        PeerStatusList *ret_status) {
        uint64_t round_usec = o->round_usec ?: PEER_ROUND_USEC_DEFAULT;
        PeerProbeRound round = {
                .deadline = now(CLOCK_MONOTONIC) + round_usec,
                .cancel_fd = o->cancel_fd > 0 ? o->cancel_fd : -EBADF,
                .in_flight_max = o->in_flight_max,
        };
        _cleanup_(freep) PeerProbeParams *params = NULL;
        _cleanup_(freep) bool *forced = NULL, *measure = NULL;
        PeerStatusList status = {};
        PeerRun *runs = NULL;
        int r;

        runs = calloc(n > 0 ? n : 1, sizeof(PeerRun));
        params = calloc(n > 0 ? n : 1, sizeof(PeerProbeParams));
        forced = calloc(n > 0 ? n : 1, sizeof(bool));
        measure = calloc(n > 0 ? n : 1, sizeof(bool));
        status.peers = calloc(n > 0 ? n : 1, sizeof(PeerStatus));
        if (!runs || !params || !forced || !measure || !status.peers) {
                r = -ENOMEM;
                goto finish;
        }

        for (size_t i = 0; i < n; i++) {
                runs[i] = (PeerRun){
                        .c = c,
                        .o = o,
                        .n = &neighbours[i],
                        .self = self,
                        .snapshot = snapshot,
                        .port = peer_port(c->profile),
                        .round_usec = round_usec,
                };
                (void) inet_ntop(AF_INET, &neighbours[i].local, runs[i].local, sizeof(runs[i].local));
                (void) inet_ntop(AF_INET, &neighbours[i].remote, runs[i].remote, sizeof(runs[i].remote));
                format_path(&runs[i]);
                runs[i].last = last_measurement(o, &runs[i]);
                forced[i] = !runs[i].last;
        }
        (void) peer_schedule_measure(n, o->measure_per_round, o->round, forced, measure);
        for (size_t i = 0; i < n; i++) {
                runs[i].measure = measure[i];
                params[i] = (PeerProbeParams){
                        .local = neighbours[i].local,
                        .remote = neighbours[i].remote,
                        .port = runs[i].port,
                        .source_port = o->source_port,
                        .self = self,
                        .count = measure[i] ? (o->probes ?: PEER_PROBE_COUNT_DEFAULT) : PEER_PROBE_GIVE_UP,
                        .timeout_usec = o->timeout_usec ?: PEER_PROBE_TIMEOUT_USEC_DEFAULT,
                        .liveness = !measure[i],
                };
        }
        r = probe_round(runs, n, params, &round, /* mtu= */ false);
        if (r >= 0)
                r = retry_older_peers(runs, n, params, &round);
        if (r < 0)
                goto finish;

        for (size_t i = 0; i < n; i++) {
                r = check_reachable(&runs[i], &runs[i].checks);
                if (r < 0)
                        goto finish;
                runs[i].mtu = runs[i].measure ? mtu_to_probe(&runs[i]) : 0;
                params[i].port = runs[i].mtu > 0 ? runs[i].port : 0; /* 0: not in the MTU round */
                params[i].mtu = runs[i].mtu;
                params[i].count = PEER_PROBE_GIVE_UP;
                params[i].liveness = false;
        }
        r = probe_round(runs, n, params, &round, /* mtu= */ true);
        if (r < 0)
                goto finish;
        r = exchange_rdma_all(runs, n, round.deadline);
        if (r < 0)
                goto finish;

        for (size_t i = 0; i < n; i++) {
                r = check_mtu(&runs[i], &runs[i].checks);
                if (r >= 0)
                        r = check_latency(&runs[i], &runs[i].checks);
                if (r >= 0)
                        r = check_profile_digest(&runs[i], &runs[i].checks);
                if (r >= 0)
                        r = check_rdma(&runs[i], &runs[i].checks);
                if (r >= 0)
                        r = check_list_take(out, &runs[i].checks);
                if (r >= 0)
                        r = peer_status_from_run(&runs[i], &status.peers[status.n_peers]);
                if (r < 0)
                        goto finish;
                status.n_peers++;
        }

        if (ret_status) {
                peer_status_list_done(ret_status);
                *ret_status = status;
                status = (PeerStatusList){};
        }
        r = 0;
finish:
        peer_status_list_done(&status);
        peer_runs_free(runs, n);
        return r;
}

int check_peers_with_status(
        const NodeContext *c, const PeerOptions *o, CheckList *out, PeerStatusList *ret_status) {
        static const PeerOptions defaults = { .health = HEALTH_STARTING };
        _cleanup_(snapshot_done) Snapshot own = {};
        _cleanup_(freep) PeerNeighbour *neighbours = NULL;
        PeerIdentity self;
        size_t n = 0;
        int r;

        if (!o)
                o = &defaults;
        if (!c->node || !c->profile || !c->profile->health.peers) {
                if (ret_status)
                        peer_status_list_done(ret_status);
                return 0;
        }

        r = peer_neighbours(c->profile, c->node, &neighbours, &n);
        if (r < 0)
                return r;
        r = peer_identity_from_profile(c->profile, c->node, o->health, &self);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                /* A name the wire cannot carry: say so once per peer instead of probing. */
                for (size_t i = 0; i < n; i++) {
                        char id[CHECK_ID_MAX];

                        (void) snprintf(id, sizeof(id), "peer.%s.reachable", neighbours[i].node->name);
                        if (check_list_add(
                                    out,
                                    id,
                                    CHECK_FAIL,
                                    NULL,
                                    NULL,
                                    "Cannot probe %s: the cluster and node names must be 1-%u printable "
                                    "characters without spaces to travel on the peer channel",
                                    neighbours[i].node->name,
                                    PEER_NAME_MAX) < 0)
                                return -ENOMEM;
                }
                return 0;
        }

        return check_neighbours(
                c, o, snapshot_or_own(o->snapshot, &own, c), neighbours, n, &self, out, ret_status);
}

int check_peers(const NodeContext *c, const PeerOptions *o, CheckList *out) {
        return check_peers_with_status(c, o, out, NULL);
}
