/* SPDX-License-Identifier: MIT */
/* This node's RDMA devices, found through its fabric ports: for haloctl probe and halod's responder. */
#include <string.h>

#include "snapshot/fabric.h"
#include "snapshot/rdma-node.h"

RdmaGidType rdma_node_gid_type(const NodeContext *c) {
        return c->profile && c->profile->rdma.present ? c->profile->rdma.gid : RDMA_GID_ROCE_V2;
}

int rdma_link_device(
        const NodeContext *c, const char *link, RdmaDevice **ret_device, struct in_addr *ret_address) {
        _cleanup_(rdma_device_freep) RdmaDevice *d = NULL;
        FabricPort *ports = NULL;
        struct in_addr address = {};
        size_t n = 0;
        int r = -EADDRNOTAVAIL;

        r = fabric_ports_find(c, &ports, &n);
        if (r < 0)
                return r;
        r = -EADDRNOTAVAIL;
        for (size_t i = 0; i < n && !d; i++) {
                if (!streq(ports[i].link, link) || !ports[i].has_address)
                        continue;
                address = ports[i].address;
                r = ports[i].ifname || ports[i].pci
                        ? rdma_device_find(c->host, ports[i].pci, ports[i].ifindex, &d)
                        : -ENODEV;
        }
        fabric_ports_free(ports, n);
        if (r < 0)
                return r;
        *ret_device = TAKE_PTR(d);
        *ret_address = address;
        return 0;
}

int rdma_responder_new_for_node(const NodeContext *c, RdmaResponder **ret) {
        _cleanup_(rdma_responder_freep) RdmaResponder *responder = NULL;
        FabricPort *ports = NULL;
        size_t n = 0;
        int r, first_error = 0;

        r = rdma_responder_new(&responder);
        if (r < 0)
                return r;
        r = fabric_ports_find(c, &ports, &n);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++) {
                RdmaDevice *d = NULL;

                if (!ports[i].has_address || (!ports[i].ifname && !ports[i].pci))
                        continue;
                r = rdma_device_find(c->host, ports[i].pci, ports[i].ifindex, &d);
                if (r >= 0)
                        r = rdma_responder_add(responder, ports[i].address, d, rdma_node_gid_type(c));
                if (r == -ENOMEM)
                        break;
                if (r < 0 && first_error == 0)
                        first_error = r;
        }
        fabric_ports_free(ports, n);
        if (r == -ENOMEM)
                return r;
        if (rdma_responder_n_devices(responder) == 0)
                return first_error < 0 ? first_error : -ENODEV;
        *ret = TAKE_PTR(responder);
        return 0;
}
