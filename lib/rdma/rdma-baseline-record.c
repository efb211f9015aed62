/* SPDX-License-Identifier: MIT */
/* A new measurement into the baseline file: the latest, and the baseline when there is none or the
 * node's state changed since (a baseline from another firmware, PCIe link or MTU says nothing about
 * this one). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/strv.h"
#include "nic/pci.h"
#include "rdma/rdma-baseline.h"

static int describe_pcie(unsigned speed_mts, unsigned width, char **ret) {
        char speed[PCIE_SPEED_STRING_MAX];

        return asprintf(ret, "PCIe %s GT/s x%u", pcie_speed_to_string(speed_mts, speed), width) < 0 ? -ENOMEM
                                                                                                    : 0;
}

static bool both_known(unsigned a, unsigned b) {
        return a > 0 && b > 0;
}

int rdma_node_state_differs(const RdmaNodeState *before, const RdmaNodeState *now, char **ret) {
        _cleanup_(strv_freep) char **changes = NULL;
        int r = 0;

        if (before->firmware[0] && now->firmware[0] && !streq(before->firmware, now->firmware))
                r = strv_extendf(&changes, "firmware %s → %s", before->firmware, now->firmware);
        if (r >= 0 && both_known(before->pcie_speed_mts, now->pcie_speed_mts) &&
            both_known(before->pcie_width, now->pcie_width) &&
            (before->pcie_speed_mts != now->pcie_speed_mts || before->pcie_width != now->pcie_width)) {
                _cleanup_(freep) char *a = NULL, *b = NULL;

                r = describe_pcie(before->pcie_speed_mts, before->pcie_width, &a);
                if (r >= 0)
                        r = describe_pcie(now->pcie_speed_mts, now->pcie_width, &b);
                if (r >= 0)
                        r = strv_extendf(&changes, "%s → %s", a, b);
        }
        if (r >= 0 && both_known(before->mtu, now->mtu) && before->mtu != now->mtu)
                r = strv_extendf(&changes, "MTU %u → %u", before->mtu, now->mtu);
        if (r >= 0 && both_known(before->port_mbit, now->port_mbit) && before->port_mbit != now->port_mbit)
                r = strv_extendf(&changes, "port speed %u → %u Mbit/s", before->port_mbit, now->port_mbit);
        if (r < 0)
                return -ENOMEM;
        if (!changes)
                return 0;
        if (ret) {
                *ret = strv_join(changes, ", ");
                if (!*ret)
                        return -ENOMEM;
        }
        return 1;
}

int rdma_baseline_record(RdmaBaselineFile *f, const char *node, const RdmaMeasurement *m, bool rebaseline) {
        RdmaBaselinePeer *peer = (RdmaBaselinePeer *) rdma_baseline_find(f, node), *peers;
        RdmaBaselineRecord what;
        int r;

        if (strlen(node) == 0 || strlen(node) >= RDMA_BASELINE_NAME_MAX)
                return -EINVAL;
        if (!peer) {
                peers = reallocarray(f->peers, f->n_peers + 1, sizeof(RdmaBaselinePeer));
                if (!peers)
                        return -ENOMEM;
                f->peers = peers;
                peer = &peers[f->n_peers++];
                *peer = (RdmaBaselinePeer){};
                strcpy(peer->node, node);
                what = RDMA_BASELINE_NEW;
        } else if (rebaseline)
                what = RDMA_BASELINE_REPLACED;
        else {
                r = rdma_node_state_differs(&peer->baseline.state, &m->state, NULL);
                if (r < 0)
                        return r;
                what = r > 0 ? RDMA_BASELINE_RETAKEN : RDMA_BASELINE_KEPT;
        }
        if (what != RDMA_BASELINE_KEPT)
                peer->baseline = *m;
        peer->last = *m;
        return what;
}
