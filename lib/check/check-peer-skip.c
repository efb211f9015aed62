/* SPDX-License-Identifier: MIT */
/* The skips of a peer check whose peer did not answer the echo run or was not measured
 * (check-peer-skip.h, check-peer-step.h). */
#include "check/check-peer-skip.h"
#include "check/check-peer-step.h"

int check_peer_skip_unanswered(
        CheckList *out, const char *id, const char *not_done, const char *node, bool pending) {
        int r;

        if (!pending)
                return check_list_skip(
                        out, id, "%s: %s does not answer (see peer.%s.reachable)", not_done, node, node);
        r = check_list_add(
                out,
                id,
                CHECK_SKIP,
                NULL,
                "pending",
                "%s: the probes of %s are pending (see peer.%s.reachable)",
                not_done,
                node,
                node);
        if (r >= 0)
                out->checks[out->n_checks - 1].pending = true;
        return r;
}

int peer_check_skip_unreachable(PeerCheck *k, const char *what, const char *not_done, CheckList *out) {
        return check_peer_skip_unanswered(
                out, peer_check_id(k, what), not_done, k->p->n->node->name, k->p->echo_status == -EINPROGRESS);
}

int peer_check_not_measured(PeerCheck *k, const char *what, CheckList *out) {
        return check_list_skip(
                out,
                peer_check_id(k, what),
                "Not measured in this round: %s answers; it is measured in a later one",
                k->p->n->node->name);
}
