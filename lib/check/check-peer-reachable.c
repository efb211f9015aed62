/* SPDX-License-Identifier: MIT */
/* peer.<node>.reachable: who answered the echo run, and if no one, why not. */
#include <stdio.h>
#include <string.h>

#include "check/check-peer-step.h"

static const char *probe_error_hint(const PeerCheck *k, int r) {
        switch (r) {
        case -EADDRNOTAVAIL:
                return "this node's address is not configured: see the link checks";
        case -ENETUNREACH:
        case -EHOSTUNREACH:
                if (k->p->n->routed)
                        return "no route to it through the gateway (or the gateway said so): see "
                               "link.*.routes here and link.*.forwarding on the gateway";
                return "no route: is the link up with its address?";
        case -EMSGSIZE:
                return "the local interface's MTU is smaller";
        default:
                return "";
        }
}

static int reachable_pending(PeerCheck *k, const char *expected, CheckList *out) {
        return peer_check_mark_pending(
                out,
                check_list_add(
                        out,
                        peer_check_id(k, "reachable"),
                        CHECK_SKIP,
                        expected,
                        "pending",
                        "Pending: %s (%s) was still being probed when this round of peer checks ended after "
                        "%.1f s; it is probed again in the next round",
                        k->p->n->node->name,
                        k->p->remote,
                        (double) k->round->round_usec / 1e6));
}

static int reachable_not_probed(PeerCheck *k, const char *expected, int r, CheckList *out) {
        const char *hint = probe_error_hint(k, r);

        return check_list_add(
                out,
                peer_check_id(k, "reachable"),
                CHECK_FAIL,
                expected,
                strerror(-r),
                "Cannot probe %s at %s from %s on %s: %s%s%s",
                k->p->n->node->name,
                k->p->remote,
                k->p->local,
                k->path,
                strerror(-r),
                isempty(hint) ? "" : "; ",
                hint);
}

static int reachable_rate_limited(PeerCheck *k, const char *expected, CheckList *out) {
        return check_list_add(
                out,
                peer_check_id(k, "reachable"),
                CHECK_FAIL,
                expected,
                "rate-limited",
                "Rate-limited: %s (%s) refused the probes from %s as over the rate it answers "
                "%s (%u notices, no answer); its halod runs. %s",
                k->p->n->node->name,
                k->p->remote,
                k->p->local,
                k->round->source_port != 0 ? "this node's halod" : "this node's programs other than halod",
                k->p->echo.rate_limited,
                peer_check_rate_limited_hint(k));
}

static int reachable_silent(PeerCheck *k, const char *expected, CheckList *out) {
        const char *node = k->p->n->node->name;

        if (k->p->n->routed)
                return check_list_add(
                        out,
                        peer_check_id(k, "reachable"),
                        CHECK_FAIL,
                        expected,
                        "no answer",
                        "%s (%s) did not answer %u probes on UDP port %u sent over %s: the path goes "
                        "through a gateway; does %s forward (forwarding: true, link.*.forwarding there), "
                        "does %s have a route back to %s, and does halod run there?",
                        node,
                        k->p->remote,
                        k->p->echo.sent,
                        k->round->port,
                        k->path,
                        k->gateway,
                        node,
                        k->p->local);
        return check_list_add(
                out,
                peer_check_id(k, "reachable"),
                CHECK_FAIL,
                expected,
                "no answer",
                "%s (%s) did not answer %u probes on UDP port %u over %s: is halod running there, "
                "and does the firewall zone of its %s interface allow the port?",
                node,
                k->p->remote,
                k->p->echo.sent,
                k->round->port,
                k->p->n->link,
                k->p->n->link);
}

/* No answer at all: refused as over the rate, nothing listening, or silence. */
static int reachable_unanswered(PeerCheck *k, const char *expected, CheckList *out) {
        if (k->p->echo.rate_limited > 0)
                return reachable_rate_limited(k, expected, out);
        if (k->p->echo.last_error == -ECONNREFUSED)
                return check_list_add(
                        out,
                        peer_check_id(k, "reachable"),
                        CHECK_FAIL,
                        expected,
                        "port unreachable",
                        "Nothing listens on %s UDP port %u: start halod on %s (systemctl start halod)",
                        k->p->remote,
                        k->round->port,
                        k->p->n->node->name);
        return reachable_silent(k, expected, out);
}

/* An answer: from the node the profile places there, or from another one. */
static int reachable_answered(PeerCheck *k, const char *expected, const char *cluster, CheckList *out) {
        const PeerProbeResult *res = &k->p->echo;
        const char *node = k->p->n->node->name;
        _cleanup_(freep) char *actual = NULL;

        if (asprintf(
                    &actual,
                    "%s of cluster %s (%s)",
                    res->peer.node,
                    res->peer.cluster,
                    strna(health_to_string(res->peer.health))) < 0)
                return -ENOMEM;
        if (!k->p->reachable)
                return check_list_add(
                        out,
                        peer_check_id(k, "reachable"),
                        CHECK_FAIL,
                        expected,
                        actual,
                        "%s answers as node '%s' of cluster '%s', expected '%s' of '%s': the address belongs "
                        "to another node or another cluster; check nodes.*.links in both profiles",
                        k->p->remote,
                        res->peer.node,
                        res->peer.cluster,
                        node,
                        cluster);
        return check_list_add(
                out,
                peer_check_id(k, "reachable"),
                CHECK_PASS,
                expected,
                actual,
                "%s answers at %s over %s (%u/%u probes); it reports itself %s%s",
                node,
                k->p->remote,
                k->path,
                res->answered,
                res->sent,
                strna(health_to_string(res->peer.health)),
                k->p->older_peer
                        ? ". Its halod predates the privileged probe port and drops what this node's halod "
                          "sends from it: probed from an ephemeral port, within the budget of this node's "
                          "other programs, until it is upgraded (halod(8), PEER CHANNEL)"
                        : "");
}

int check_peer_reachable(PeerCheck *k, CheckList *out) {
        const char *cluster = k->c->profile->cluster ?: "";
        _cleanup_(freep) char *expected = NULL;
        int r = k->p->echo_status;

        if (asprintf(&expected, "%s of cluster %s answers at %s", k->p->n->node->name, cluster, k->p->remote) <
            0)
                return -ENOMEM;
        if (r == -EINPROGRESS)
                return reachable_pending(k, expected, out);
        if (r < 0)
                return reachable_not_probed(k, expected, r, out);
        if (k->p->echo.answered == 0)
                return reachable_unanswered(k, expected, out);
        return reachable_answered(k, expected, cluster, out);
}
