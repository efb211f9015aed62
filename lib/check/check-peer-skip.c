/* SPDX-License-Identifier: MIT */
/* The skip of a peer check whose peer did not answer the echo run (check-peer-skip.h). */
#include "check/check-peer-skip.h"

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
