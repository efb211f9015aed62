/* SPDX-License-Identifier: MIT */
/* Bytes moved over TCP between the local fabric address and each peer between two socket dumps
 * (net/sock-diag.h). Pure.
 *
 * What two dumps can and cannot see:
 * - A socket in both dumps (same kernel cookie) counts what its tcp_info grew by.
 * - A socket only in the second dump was opened in between: it counts from 0, i.e. all it moved.
 * - A socket that closed between the two dumps is lost: whatever it moved since the first dump is
 *   not counted (the kernel keeps no record of a closed socket's bytes). Short connections that
 *   open and close within one interval are not seen at all; bulk transfers (NCCL's, iperf3's) keep
 *   their sockets for the whole run and are.
 * - A socket without bytes in the second dump (TIME_WAIT: the kernel gives no tcp_info) counts 0. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "net/sock-diag.h"

typedef struct TcpPeerBytes {
        struct in_addr peer; /* set by the caller */
        uint64_t sent;       /* bytes_acked: what the peer acknowledged */
        uint64_t received;
        unsigned n_sockets; /* sockets to the peer in the second dump */
} TcpPeerBytes;

/* Adds, into each peers[i] (whose other fields it first zeroes), what the sockets between local and
 * peers[i].peer moved between before and after. local INADDR_ANY matches any local address. Returns 0
 * or -ENOMEM. */
int tcp_peer_bytes(
        const SockDiagTcp *before,
        size_t n_before,
        const SockDiagTcp *after,
        size_t n_after,
        struct in_addr local,
        TcpPeerBytes *peers,
        size_t n_peers);
