/* SPDX-License-Identifier: MIT */
/* peer.<node>.mtu: whether full-size don't-fragment datagrams crossed to the peer and back (this
 * round's MTU run, or for an unmeasured peer its last one). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "check/check-peer-step.h"

/* No MTU run: the profile sets none and the local one is unknown, or the probe cannot carry it. */
static int mtu_not_probed(PeerCheck *k, CheckList *out) {
        uint32_t mtu = k->p->n->mtu;

        if (mtu == 0 && k->p->local_mtu_status < 0)
                return check_list_add(
                        out,
                        peer_check_id(k, "mtu"),
                        CHECK_SKIP,
                        NULL,
                        NULL,
                        "Not probed: the profile sets no MTU for %s and the MTU of its netdev (holding %s) "
                        "could not be read",
                        k->p->n->link,
                        k->p->local);
        if (mtu == 0)
                mtu = k->p->local_mtu;
        return check_list_add(
                out,
                peer_check_id(k, "mtu"),
                CHECK_SKIP,
                NULL,
                NULL,
                "Not probed: an MTU of %" PRIu32 " is outside what the probe covers (%u-%u)",
                mtu,
                PEER_IPV4_UDP_OVERHEAD + PEER_REQUEST_SIZE_MIN,
                PEER_IPV4_UDP_OVERHEAD + PEER_MESSAGE_SIZE_MAX);
}

/* The MTU run could not send, or had not ended. */
static int mtu_not_run(PeerCheck *k, uint32_t mtu, int r, const char *expected, CheckList *out) {
        const char *node = k->p->n->node->name;

        if (r == -EINPROGRESS)
                return peer_check_mark_pending(
                        out,
                        check_list_add(
                                out,
                                peer_check_id(k, "mtu"),
                                CHECK_SKIP,
                                expected,
                                "pending",
                                "Pending: the %" PRIu32
                                "-byte probes of %s had not ended when this round of peer checks ended after %.1f s; "
                                "they run again in the next round",
                                mtu,
                                node,
                                (double) k->round->round_usec / 1e6));
        if (r == -EMSGSIZE)
                return check_list_add(
                        out,
                        peer_check_id(k, "mtu"),
                        CHECK_FAIL,
                        expected,
                        "refused locally",
                        "This node cannot send a %" PRIu32
                        "-byte datagram to %s without fragmenting: the "
                        "interface holding %s (or the route to %s) has a smaller MTU; see link.%s.mtu",
                        mtu,
                        node,
                        k->p->local,
                        k->p->remote,
                        k->p->n->link);
        return check_list_add(
                out,
                peer_check_id(k, "mtu"),
                CHECK_FAIL,
                expected,
                strerror(-r),
                "Cannot send an MTU probe to %s: %s",
                node,
                strerror(-r));
}

/* The MTU run ended: crossed, refused as over the rate, or lost. */
static int mtu_ran(PeerCheck *k, uint32_t mtu, const PeerProbeResult *res, const char *expected, CheckList *out) {
        const char *node = k->p->n->node->name;

        if (res->answered == 0 && res->rate_limited > 0)
                return check_list_add(
                        out,
                        peer_check_id(k, "mtu"),
                        CHECK_FAIL,
                        expected,
                        "rate-limited",
                        "Rate-limited: %s refused the %" PRIu32
                        "-byte probes from %s as over the rate it "
                        "answers; the MTU is not known. %s",
                        node,
                        mtu,
                        k->p->local,
                        peer_check_rate_limited_hint(k));
        if (res->answered == 0)
                return check_list_add(
                        out,
                        peer_check_id(k, "mtu"),
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
                peer_check_id(k, "mtu"),
                CHECK_PASS,
                expected,
                "crossed",
                "%" PRIu32 "-byte datagrams cross to %s and back over %s with don't-fragment set",
                mtu,
                node,
                k->path);
}

int check_peer_mtu(PeerCheck *k, CheckList *out) {
        /* An unmeasured peer's MTU run is its last measurement's, rendered again. */
        const PeerMeasurement now = { .mtu = k->p->mtu,
                                      .mtu_status = k->p->mtu_status,
                                      .mtu_result = k->p->mtu_result };
        const PeerMeasurement *m = k->p->measure ? &now : k->p->last;
        _cleanup_(freep) char *expected = NULL;

        if (!k->p->reachable)
                return peer_check_skip_unreachable(k, "mtu", "Not probed", out);
        if (!m)
                return peer_check_not_measured(k, "mtu", out);
        if (m->mtu == 0)
                return mtu_not_probed(k, out);

        if (asprintf(&expected, "%" PRIu32 "-byte datagrams cross both ways unfragmented", m->mtu) < 0)
                return -ENOMEM;
        if (m->mtu_status < 0)
                return mtu_not_run(k, m->mtu, m->mtu_status, expected, out);
        return mtu_ran(k, m->mtu, &m->mtu_result, expected, out);
}
