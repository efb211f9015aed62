/* SPDX-License-Identifier: MIT */
/* The snapshot's transport part (SNAPSHOT_TRANSPORT): the sample fabric.<node>.transport compares with
 * the one of the verify before: the TCP sockets between the node's fabric addresses and the other
 * nodes' (sock_diag), the port counters of the node's RDMA devices (sysfs) and the processes holding QPs
 * on them (RDMA netlink). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/host.h"
#include "basic/time-util.h"
#include "net/sock-diag.h"
#include "rdma/rdma-qp-dump.h"
#include "snapshot/snapshot.h"

/* What one verify read. */
typedef struct FabricTransportSample {
        usec_t at; /* CLOCK_MONOTONIC */
        /* The TCP sockets between the node's fabric addresses and the other nodes' (sock_diag). */
        int tcp_error; /* 0, or why they could not be dumped */
        SockDiagTcp *tcp;
        size_t n_tcp;
        /* The node's RDMA devices (the ports of its links), their counters added up. */
        int rdma_error;        /* 0; -ENODEV: the links have no RDMA device; else why not read */
        char **rdma_devices;   /* "rxe0/1": device and port */
        bool rdma_has_bytes;   /* the devices count bytes (counters/port_*_data, irdma's ip*Octets) */
        uint64_t rdma_bytes;   /* both directions */
        uint64_t rdma_packets; /* of the devices that count packets only (rxe's sent_pkts, rcvd_pkts) */
        /* The processes that hold QPs on those devices (RDMA netlink); kernel holders left out. */
        int qp_error;
        RdmaQpHolder *holders;
        size_t n_holders;
} FabricTransportSample;

void fabric_transport_sample_done(FabricTransportSample *s);

/* Read and forgotten by snapshot_read() and snapshot_forget(): the sample of now, the ports
 * (SNAPSHOT_LOCATED) naming the RDMA devices, the node's links its fabric addresses and the profile's
 * other nodes the peers'. Errors reading one source stay in the sample (the check says what it could not
 * read); returns 0 or -ENOMEM. */
int snapshot_read_transport(Snapshot *s);
void snapshot_forget_transport(Snapshot *s);

/* Adds what one RDMA device port moved (both directions) to s: its PMA counters when it has them
 * (counters/port_xmit_data and port_rcv_data, mlx5), else irdma's hw_counters ip4InOctets,
 * ip4OutOctets, ip6InOctets, ip6OutOctets, else rxe's hw_counters sent_pkts and rcvd_pkts (packets,
 * *ret_bytes false). Returns 0, -ENOENT when it counts none of them, or the error of reading one. */
int fabric_transport_add_port_volume(
        const Host *h, const char *dev, unsigned port, FabricTransportSample *s, bool *ret_bytes);
