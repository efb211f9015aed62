/* SPDX-License-Identifier: MIT */
/* peer.<node>.profile: whether the peer runs the same profile, by the digest its answer carries. */
#include "check/check-peer-step.h"
#include "profile/profile-digest.h"

int check_peer_profile(PeerCheck *k, CheckList *out) {
        const PeerProbeResult *res = &k->p->echo;
        char mine[SHA256_HEX_MAX], theirs[SHA256_HEX_MAX];
        const char *node = k->p->n->node->name;

        if (!k->p->reachable)
                return peer_check_skip_unreachable(k, "profile", "Not compared", out);

        hex_encode(k->round->self.digest, PEER_DIGEST_SIZE, mine);
        if (!res->peer.has_digest)
                return check_list_add(
                        out,
                        peer_check_id(k, "profile"),
                        CHECK_WARN,
                        mine,
                        "",
                        "%s did not send a profile digest: is its halod older than this one?",
                        node);

        hex_encode(res->peer.digest, PEER_DIGEST_SIZE, theirs);
        if (!streq(mine, theirs))
                return check_list_add(
                        out,
                        peer_check_id(k, "profile"),
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
                peer_check_id(k, "profile"),
                CHECK_PASS,
                mine,
                theirs,
                "%s runs the same profile (digest %.*s)",
                node,
                (int) PROFILE_DIGEST_SHORT,
                mine);
}
