/* SPDX-License-Identifier: MIT */
/* The snapshot's transport part: the sample fabric.<node>.transport compares with the one before: the
 * TCP sockets on the fabric (sock_diag), the RDMA devices' port counters (sysfs) and the processes
 * holding QPs on them (RDMA netlink). */
#include <linux/netlink.h>
#include <stdlib.h>
#include <string.h>

#include "basic/strv.h"
#include "rdma/rdma-sysfs.h"
#include "rdma/taskstats.h"
#include "snapshot/snapshot-rdma-name.h"
#include "snapshot/snapshot-transport.h"

void fabric_transport_sample_done(FabricTransportSample *s) {
        if (!s)
                return;
        free(s->tcp);
        strv_free(s->rdma_devices);
        free(s->holders);
        *s = (FabricTransportSample){};
}

/* Whether a is the address of one of node's links. */
static bool node_has(const ProfileNode *node, struct in_addr a) {
        return node && profile_node_has_address(node, a);
}

/* Keeps the sockets from one of the node's addresses to another node's: the ones the check counts.
 * halod's own throughput sink (haloctl probe, TCP on the peer channel's port) is not the workload's. */
static void keep_fabric_sockets(const NodeContext *c, SockDiagTcp *tcp, size_t *n) {
        uint16_t port = c->profile->health.port;
        size_t k = 0;

        for (size_t i = 0; i < *n; i++) {
                const ProfileNode *peer = profile_find_node_by_address(c->profile, tcp[i].remote);

                if (tcp[i].local_port == port || tcp[i].remote_port == port)
                        continue;
                if (node_has(c->node, tcp[i].local) && peer && peer != c->node)
                        tcp[k++] = tcp[i];
        }
        *n = k;
}

static void read_tcp(const NodeContext *c, FabricTransportSample *s) {
        _cleanup_(netlink_socket_closep) NetlinkSocket *nl = NULL;
        _cleanup_(freep) struct in_addr *locals = NULL;
        size_t n = c->node->n_links;
        int r;

        /* The kernel keeps only the sockets on the node's addresses (sock-diag.h says why). */
        locals = calloc(n > 0 ? n : 1, sizeof(struct in_addr));
        if (!locals) {
                s->tcp_error = -ENOMEM;
                return;
        }
        for (size_t i = 0; i < n; i++)
                locals[i] = c->node->links[i].address.address;
        r = netlink_socket_open(NETLINK_SOCK_DIAG, &nl);
        if (r >= 0)
                r = sock_diag_dump_tcp(nl, locals, n, &s->tcp, &s->n_tcp, NULL);
        if (r < 0) {
                s->tcp_error = r;
                return;
        }
        keep_fabric_sockets(c, s->tcp, &s->n_tcp);
}

/* The PMA counters port_xmit_data and port_rcv_data count 4-byte words, as the InfiniBand
 * PortCounters attribute does. */
int fabric_transport_add_port_volume(
        const Host *h, const char *dev, unsigned port, FabricTransportSample *s, bool *ret_bytes) {
        static const char *const irdma[] = { "ip4InOctets", "ip4OutOctets", "ip6InOctets", "ip6OutOctets" };
        uint64_t a, b;
        bool any = false;
        int r;

        r = rdma_sysfs_read_port_counter(h, dev, port, "port_xmit_data", &a);
        if (r >= 0)
                r = rdma_sysfs_read_port_counter(h, dev, port, "port_rcv_data", &b);
        if (r >= 0) {
                s->rdma_bytes += (a + b) * 4;
                *ret_bytes = true;
                return 0;
        }
        if (r != -ENOENT)
                return r;

        for (size_t i = 0; i < ELEMENTSOF(irdma); i++) {
                r = rdma_sysfs_read_hw_counter(h, dev, port, irdma[i], &a);
                if (r == -ENOENT)
                        continue;
                if (r < 0)
                        return r;
                s->rdma_bytes += a;
                any = true;
        }
        if (any) {
                *ret_bytes = true;
                return 0;
        }

        r = rdma_sysfs_read_hw_counter(h, dev, port, "sent_pkts", &a);
        if (r >= 0)
                r = rdma_sysfs_read_hw_counter(h, dev, port, "rcvd_pkts", &b);
        if (r < 0)
                return r;
        s->rdma_packets += a + b;
        *ret_bytes = false;
        return 0;
}

static int read_rdma(const NodeContext *c, Snapshot *snapshot, FabricTransportSample *s) {
        bool all_bytes = true;
        int r;

        for (size_t i = 0; i < snapshot->n_ports; i++) {
                const char *dev;
                unsigned port;
                bool bytes;

                r = snapshot_rdma_name(snapshot, i, &dev, &port);
                if (r == -ENODEV || r == -ENOENT)
                        continue;
                if (r >= 0)
                        r = fabric_transport_add_port_volume(c->host, dev, port, s, &bytes);
                if (r == -ENOMEM)
                        return r;
                if (r < 0)
                        return (void) (s->rdma_error = r), 0;
                all_bytes = all_bytes && bytes;
                r = strv_extendf(&s->rdma_devices, "%s/%u", dev, port);
                if (r < 0)
                        return r;
        }
        if (!s->rdma_devices)
                s->rdma_error = -ENODEV;
        s->rdma_has_bytes = s->rdma_devices && all_bytes;
        return 0;
}

/* Whether the QP is on one of the sample's devices ("dev/port"). */
static bool on_fabric(const FabricTransportSample *s, const RdmaQp *qp) {
        size_t n = strlen(qp->dev_name);

        STRV_FOREACH(d, s->rdma_devices)
                if (n > 0 && strncmp(*d, qp->dev_name, n) == 0 && (*d)[n] == '/')
                        return true;
        return false;
}

static int read_qps(FabricTransportSample *s) {
        _cleanup_(netlink_socket_closep) NetlinkSocket *nl = NULL;
        _cleanup_(taskstats_closep) Taskstats *taskstats = NULL;
        _cleanup_(freep) RdmaQp *qps = NULL;
        size_t n = 0, k = 0;
        int r;

        if (!s->rdma_devices)
                return 0;
        r = netlink_socket_open(NETLINK_RDMA, &nl);
        if (r >= 0)
                r = rdma_qp_dump(nl, &qps, &n);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return (void) (s->qp_error = r), 0;
        /* Processes only: the kernel's own QPs (ib_core's GSI QP) move no workload. */
        for (size_t i = 0; i < n; i++)
                if (qps[i].has_pid && on_fabric(s, &qps[i]))
                        qps[k++] = qps[i];
        /* Under halod's unit the workload's /proc/PID is hidden (ProtectProc=invisible): the kernel's
         * task statistics name it then. */
        return rdma_qp_holders(
                qps, k, rdma_task_from_proc_or_taskstats, &taskstats, &s->holders, &s->n_holders);
}

int snapshot_read_transport(Snapshot *snapshot) {
        const NodeContext *c = snapshot->context;
        _cleanup_(fabric_transport_sample_done) FabricTransportSample s = { .at = now(CLOCK_MONOTONIC) };
        int r = 0;

        if (c->node) {
                read_tcp(c, &s);
                r = read_rdma(c, snapshot, &s);
                if (r >= 0)
                        r = read_qps(&s);
        }
        if (r < 0)
                return r;
        snapshot->transport = malloc(sizeof(FabricTransportSample));
        if (!snapshot->transport)
                return -ENOMEM;
        *snapshot->transport = s;
        s = (FabricTransportSample){};
        return 0;
}

void snapshot_forget_transport(Snapshot *s) {
        fabric_transport_sample_done(s->transport);
        s->transport = mfree(s->transport);
}
