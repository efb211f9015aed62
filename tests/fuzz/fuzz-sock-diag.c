/* SPDX-License-Identifier: MIT */
/* Fuzzes the inet_diag reply parser (lib/net/sock-diag.h) and feeds what it parsed to the per-peer
 * aggregator (lib/net/tcp-peer-bytes.h) as both dumps. The input is a run of netlink messages. */
#include <libmnl/libmnl.h>
#include <stdint.h>

#include "net/sock-diag.h"
#include "net/tcp-peer-bytes.h"
#include "netlink-walk.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static SockDiagTcp records[64];
static size_t n_records;

static void parse_one(const struct nlmsghdr *nlh) {
        SockDiagTcp t;

        if (sock_diag_parse_tcp(nlh, &t) >= 0 && n_records < ELEMENTSOF(records))
                records[n_records++] = t;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        TcpPeerBytes peers[2] = {};

        n_records = 0;
        fuzz_netlink_walk(data, size, parse_one);
        if (n_records > 0) {
                peers[0].peer = records[0].remote;
                peers[1].peer = records[n_records - 1].remote;
        }
        /* the first half as the first dump, all of it as the second */
        (void) tcp_peer_bytes(records, n_records / 2, records, n_records, records[0].local, peers, 2);
        return 0;
}
