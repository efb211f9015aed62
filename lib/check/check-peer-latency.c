/* SPDX-License-Identifier: MIT */
/* peer.<node>.latency: the echo run's round trips (or for an unmeasured peer its last run's) against
 * the bounds. */
#include <inttypes.h>
#include <stdio.h>

#include "check/check-peer-step.h"

int check_peer_latency(PeerCheck *k, CheckList *out) {
        /* An unmeasured peer's latency is its last measurement's, rendered again. */
        const PeerProbeResult *res = k->p->measure ? &k->p->echo : k->p->last ? &k->p->last->echo : NULL;
        uint64_t warn_median = k->latency_warn_median_usec, warn_p99 = k->latency_warn_p99_usec;
        _cleanup_(freep) char *expected = NULL, *actual = NULL;
        unsigned lost;

        if (!k->p->reachable)
                return peer_check_skip_unreachable(k, "latency", "Not measured", out);
        if (!res)
                return peer_check_not_measured(k, "latency", out);

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
                        peer_check_id(k, "latency"),
                        CHECK_WARN,
                        expected,
                        actual,
                        "Round trip to %s is slow or lossy: median %" PRIu64 " µs, p99 %" PRIu64
                        " µs, %u of %u probes lost (warn above %" PRIu64 " µs median or %" PRIu64
                        " µs p99): look for a busy CPU, a routed hop, or errors on the %s interface",
                        k->p->n->node->name,
                        res->rtt_median_usec,
                        res->rtt_p99_usec,
                        lost,
                        res->sent,
                        warn_median,
                        warn_p99,
                        k->p->n->link);
        return check_list_add(
                out,
                peer_check_id(k, "latency"),
                CHECK_PASS,
                expected,
                actual,
                "Round trip to %s over %s (UDP): median %" PRIu64 " µs, p99 %" PRIu64 " µs over %u probes",
                k->p->n->node->name,
                k->path,
                res->rtt_median_usec,
                res->rtt_p99_usec,
                res->answered);
}
