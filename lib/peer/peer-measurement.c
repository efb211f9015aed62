/* SPDX-License-Identifier: MIT */
/* The Peers rows and their measurements (peer-measurement.h): ownership and look-up. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "basic/macro.h"
#include "peer/peer-measurement.h"

PeerRdmaOutcome peer_rdma_outcome_of_device(int r) {
        switch (r) {
        case -EOPNOTSUPP:
                return PEER_RDMA_NO_VERBS;
        case -ENOSYS:
                return PEER_RDMA_NO_KERNEL;
        default:
                return PEER_RDMA_NO_LOCAL_DEVICE;
        }
}

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

const PeerStatus *peer_status_list_find(const PeerStatusList *l, const char *node, const char *address) {
        for (size_t i = 0; l && i < l->n_peers; i++) {
                const PeerStatus *s = &l->peers[i];

                if (streq(s->node, node) && streq(s->address, address))
                        return s;
        }
        return NULL;
}

const PeerMeasurement *
        peer_status_list_last_measurement(const PeerStatusList *l, const char *node, const char *address) {
        const PeerStatus *row = peer_status_list_find(l, node, address);

        return row && row->reachable && !row->pending && row->measured.valid ? &row->measured : NULL;
}
