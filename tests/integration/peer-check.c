/* SPDX-License-Identifier: MIT */
/* Runs the peer checks once for one node of a profile and prints them, with the Peers rows, the way
 * halod would publish them. For the integration tests until halod hosts them.
 * Usage: peer-check PROFILE NODE */
#include <inttypes.h>
#include <stdio.h>

#include "basic/strv.h"
#include "check/check-peer.h"
#include "profile/profile.h"
#include "snapshot/rdma-node.h"

int main(int argc, char *argv[]) {
        _cleanup_(profile_freep) Profile *p = NULL;
        _cleanup_(strv_freep) char **errors = NULL;
        PeerStatusList peers = {};
        CheckList checks = {};
        NodeContext c = { .host = &HOST_SYSTEM };
        PeerRoundOptions o = { .health = HEALTH_HEALTHY, .rdma_device_find = rdma_link_device };
        _cleanup_(peer_round_done) PeerRound round = {};
        _cleanup_(peer_link_mtus_done) PeerLinkMtus mtus = {};
        _cleanup_(snapshot_done) Snapshot snapshot = {};
        int r;

        if (argc != 3) {
                fprintf(stderr, "Usage: %s PROFILE NODE\n", argv[0]);
                return EXIT_FAILURE;
        }
        r = profile_load_file(argv[1], &p, &errors);
        if (r < 0) {
                STRV_FOREACH(e, errors)
                        fprintf(stderr, "%s\n", *e);
                return EXIT_FAILURE;
        }
        c.profile = p;
        c.node = profile_find_node(p, argv[2]);
        if (!c.node) {
                fprintf(stderr, "%s: no node '%s'.\n", argv[1], argv[2]);
                return EXIT_FAILURE;
        }

        snapshot_init(&snapshot, &c);
        if (snapshot_read(&snapshot, SNAPSHOT_MTU) >= 0 && peer_link_mtus_from_snapshot(&snapshot, &mtus) >= 0)
                o.link_mtus = &mtus;
        r = peer_round_run(&c, &o, &round);
        if (r >= 0)
                r = check_peers(&c, &round, /* o= */ NULL, &checks, &peers);
        if (r < 0) {
                fprintf(stderr, "check_peers: %s\n", strerror(-r));
                return EXIT_FAILURE;
        }
        for (size_t i = 0; i < checks.n_checks; i++)
                printf("%s %s %s\n",
                       check_outcome_to_string(checks.checks[i].outcome),
                       checks.checks[i].id,
                       checks.checks[i].summary);
        for (size_t i = 0; i < peers.n_peers; i++)
                printf("Peers (%s, %s, %s, %" PRIu64 ", %" PRIu64 ")\n",
                       peers.peers[i].node,
                       peers.peers[i].address,
                       peers.peers[i].reachable ? "true" : "false",
                       peers.peers[i].rtt_median_usec,
                       peers.peers[i].rtt_p99_usec);
        peer_status_list_done(&peers);
        check_list_done(&checks);
        return EXIT_SUCCESS;
}
