/* SPDX-License-Identifier: MIT */
/* This node's RDMA devices, found through its fabric ports: for haloctl probe and halod's responder. */
#include <string.h>

#include "snapshot/fabric.h"
#include "snapshot/rdma-node.h"

RdmaGidType rdma_node_gid_type(const NodeContext *c) {
        return node_context_rdma_gid_type(c);
}

int rdma_link_device(
        const NodeContext *c, const char *link, RdmaDevice **ret_device, struct in_addr *ret_address) {
        _cleanup_(rdma_device_freep) RdmaDevice *d = NULL;
        _cleanup_(fabric_ports_done) FabricPorts p = {};
        struct in_addr address = {};
        int r = -EADDRNOTAVAIL;

        r = fabric_ports_find(c, &p);
        if (r < 0)
                return r;
        r = -EADDRNOTAVAIL;
        for (size_t i = 0; i < p.n && !d; i++) {
                if (!streq(p.ports[i].link, link) || !p.ports[i].has_address)
                        continue;
                address = p.ports[i].address;
                r = p.ports[i].ifname || p.ports[i].pci
                        ? rdma_device_find(c->host, p.ports[i].pci, p.ports[i].ifindex, &d)
                        : -ENODEV;
        }
        if (r < 0)
                return r;
        *ret_device = TAKE_PTR(d);
        *ret_address = address;
        return 0;
}

int rdma_responder_new_for_node(const NodeContext *c, RdmaResponder **ret) {
        _cleanup_(rdma_responder_freep) RdmaResponder *responder = NULL;
        _cleanup_(fabric_ports_done) FabricPorts p = {};
        int r, first_error = 0;

        r = rdma_responder_new(&responder);
        if (r < 0)
                return r;
        r = fabric_ports_find(c, &p);
        if (r < 0)
                return r;
        for (size_t i = 0; i < p.n; i++) {
                RdmaDevice *d = NULL;

                if (!p.ports[i].has_address || (!p.ports[i].ifname && !p.ports[i].pci))
                        continue;
                /* Found now, so that a node without RDMA says so at once; then looked up again for
                 * each session, so that no uverbs file stays open between them. */
                r = rdma_device_find(c->host, p.ports[i].pci, p.ports[i].ifindex, &d);
                d = rdma_device_free(d);
                if (r >= 0)
                        r = rdma_responder_add_lookup(
                                responder,
                                p.ports[i].address,
                                c->host,
                                p.ports[i].pci,
                                p.ports[i].ifindex,
                                rdma_node_gid_type(c));
                if (r == -ENOMEM)
                        break;
                if (r < 0 && first_error == 0)
                        first_error = r;
        }
        if (r == -ENOMEM)
                return r;
        if (rdma_responder_n_devices(responder) == 0)
                return first_error < 0 ? first_error : -ENODEV;
        *ret = TAKE_PTR(responder);
        return 0;
}
