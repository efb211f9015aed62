/* SPDX-License-Identifier: MIT */
/* Tests the per-peer TCP bytes between two socket dumps: sockets in both dumps, new ones, closed ones,
 * TIME_WAIT, other local addresses and other peers. (The real kernel's dump: the integration test
 * test-sock-diag.sh; its raw reply: the fuzz corpus fuzz-sock-diag.) */
#include <arpa/inet.h>

#include "../fuzz/netlink-walk.h"
#include "basic/fileio.h"
#include "basic/macro.h"
#include "net/tcp-peer-bytes.h"
#include "tests.h"

static struct in_addr ip(const char *s) {
        struct in_addr a;

        ASSERT_TRUE(inet_pton(AF_INET, s, &a) == 1);
        return a;
}

static SockDiagTcp
        sock(uint64_t cookie, const char *local, const char *remote, uint64_t acked, uint64_t received) {
        return (SockDiagTcp){
                .cookie = cookie,
                .local = ip(local),
                .remote = ip(remote),
                .has_bytes = true,
                .bytes_acked = acked,
                .bytes_received = received,
        };
}

static void test_two_dumps(void) {
        const SockDiagTcp before[] = {
                sock(1, "10.0.0.1", "10.0.0.2", 1000, 500),   /* grows */
                sock(2, "10.0.0.1", "10.0.0.2", 7000, 7000),  /* closes before the second dump: lost */
                sock(3, "10.0.0.1", "10.0.0.3", 100, 100),    /* the other peer */
                sock(9, "192.168.1.5", "10.0.0.2", 100, 100), /* another local address */
        };
        SockDiagTcp after[] = {
                sock(1, "10.0.0.1", "10.0.0.2", 501000, 2500),
                sock(4, "10.0.0.1", "10.0.0.2", 30000, 40),      /* new: counts from 0 */
                sock(3, "10.0.0.1", "10.0.0.3", 100, 100),       /* idle */
                sock(5, "10.0.0.1", "10.0.0.4", 999999, 999999), /* not a peer */
                sock(9, "192.168.1.5", "10.0.0.2", 900100, 100), /* not the fabric address */
                sock(6, "10.0.0.1", "10.0.0.2", 0, 0),
        };
        TcpPeerBytes peers[] = { { .peer = ip("10.0.0.2"), .sent = 77 }, { .peer = ip("10.0.0.3") } };

        after[5].has_bytes = false; /* TIME_WAIT: no tcp_info */
        ASSERT_OK(tcp_peer_bytes(
                before, ELEMENTSOF(before), after, ELEMENTSOF(after), ip("10.0.0.1"), peers, 2));
        ASSERT_INT_EQ(peers[0].sent, 500000 + 30000);
        ASSERT_INT_EQ(peers[0].received, 2000 + 40);
        ASSERT_INT_EQ(peers[0].n_sockets, 3);
        ASSERT_INT_EQ(peers[1].sent, 0);
        ASSERT_INT_EQ(peers[1].received, 0);
        ASSERT_INT_EQ(peers[1].n_sockets, 1);

        /* INADDR_ANY: the other local address's socket counts too */
        ASSERT_OK(tcp_peer_bytes(
                before, ELEMENTSOF(before), after, ELEMENTSOF(after), ip("0.0.0.0"), peers, 1));
        ASSERT_INT_EQ(peers[0].sent, 500000 + 30000 + 900000);
}

static void test_edges(void) {
        const SockDiagTcp only[] = { sock(1, "10.0.0.1", "10.0.0.2", 10, 20) };
        SockDiagTcp shrunk = sock(1, "10.0.0.1", "10.0.0.2", 5, 5);
        SockDiagTcp huge[] = { sock(1, "10.0.0.1", "10.0.0.2", UINT64_MAX, 0),
                               sock(2, "10.0.0.1", "10.0.0.2", 5, 0) };
        TcpPeerBytes peer = { .peer = ip("10.0.0.2") };

        /* no first dump: everything counts from 0 */
        ASSERT_OK(tcp_peer_bytes(NULL, 0, only, 1, ip("10.0.0.1"), &peer, 1));
        ASSERT_INT_EQ(peer.sent, 10);
        ASSERT_INT_EQ(peer.received, 20);
        /* counters that went down (never for one cookie; be safe): nothing, not a wrap */
        ASSERT_OK(tcp_peer_bytes(only, 1, &shrunk, 1, ip("10.0.0.1"), &peer, 1));
        ASSERT_INT_EQ(peer.sent, 0);
        /* saturates */
        ASSERT_OK(tcp_peer_bytes(NULL, 0, huge, 2, ip("10.0.0.1"), &peer, 1));
        ASSERT_TRUE(peer.sent == UINT64_MAX);
        /* nothing at all */
        ASSERT_OK(tcp_peer_bytes(NULL, 0, NULL, 0, ip("10.0.0.1"), &peer, 1));
        ASSERT_INT_EQ(peer.n_sockets, 0);
        ASSERT_INT_EQ(tcp_peer_bytes(NULL, 1, NULL, 0, ip("10.0.0.1"), &peer, 1), -EINVAL);
}

/* The real kernel's records, as test-sock-diag.sh kept them (tests/fuzz/corpus/fuzz-sock-diag): in A
 * the client's AF_INET sockets to 10.77.0.2 (25 MB acked) and 10.77.0.3; in B the dual-stack
 * listener's AF_INET6 ones, between IPv4-mapped addresses, from 10.77.0.1. */
static SockDiagTcp parsed[8];
static size_t n_parsed;

static void parse_one(const struct nlmsghdr *nlh) {
        if (n_parsed < ELEMENTSOF(parsed))
                ASSERT_OK(sock_diag_parse_tcp(nlh, &parsed[n_parsed++]));
}

static void parse_file(const char *name) {
        _cleanup_(freep) char *path = NULL, *data = NULL;
        size_t size;

        ASSERT_TRUE(asprintf(&path, "%s/fuzz/corpus/fuzz-sock-diag/%s", TEST_DATA_DIR "/..", name) > 0);
        ASSERT_OK(read_full_file(path, 1024 * 1024, &data, &size));
        n_parsed = 0;
        fuzz_netlink_walk((const uint8_t *) data, size, parse_one);
}

static void test_real_records(void) {
        char a[INET_ADDRSTRLEN];

        parse_file("tcp-dump");
        ASSERT_INT_EQ(n_parsed, 2);
        for (size_t i = 0; i < n_parsed; i++) {
                ASSERT_STR_EQ(inet_ntop(AF_INET, &parsed[i].local, a, sizeof(a)), "10.77.0.1");
                ASSERT_INT_EQ(parsed[i].remote_port, 5001);
                ASSERT_INT_EQ(parsed[i].state, 1 /* TCP_ESTABLISHED */);
                ASSERT_TRUE(parsed[i].has_bytes);
                ASSERT_TRUE(parsed[i].bytes_acked >= 20000000);
                ASSERT_TRUE(parsed[i].cookie != 0);
        }
        ASSERT_TRUE(
                parsed[0].remote.s_addr == ip("10.77.0.2").s_addr ||
                parsed[1].remote.s_addr == ip("10.77.0.2").s_addr);

        parse_file("tcp-dump-v4-mapped");
        ASSERT_INT_EQ(n_parsed, 2);
        for (size_t i = 0; i < n_parsed; i++) {
                ASSERT_STR_EQ(inet_ntop(AF_INET, &parsed[i].remote, a, sizeof(a)), "10.77.0.1");
                ASSERT_INT_EQ(parsed[i].local_port, 5001);
                ASSERT_TRUE(parsed[i].bytes_received >= 20000000);
        }
}

int main(void) {
        test_real_records();
        test_two_dumps();
        test_edges();
        return 0;
}
