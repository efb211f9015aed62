/* SPDX-License-Identifier: MIT */
/* sock-diag-tool [--raw FILE] LOCAL PEER...: what halod's TCP watch (lib/net/sock-diag.h,
 * lib/net/tcp-peer-bytes.h) sees in the caller's network namespace. Takes a first dump and prints
 * "dumped N", waits for a line on stdin, takes a second and prints, per peer,
 * "peer ADDR sockets N sent BYTES received BYTES", then for each socket of the second dump from LOCAL
 * "seen ADDR:PORT acked BYTES received BYTES" (to a peer: tcp_info's totals) or "other ADDR:PORT". --raw
 * FILE: a third dump's socket records (AF_INET, then AF_INET6) as the kernel sent them (a fuzz
 * seed). */
#include <arpa/inet.h>
#include <linux/inet_diag.h>
#include <linux/sock_diag.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "basic/netlink.h"
#include "net/sock-diag.h"
#include "net/tcp-peer-bytes.h"

static int write_raw(const struct nlmsghdr *nlh, void *userdata) {
        return fwrite(nlh, 1, nlh->nlmsg_len, userdata) == nlh->nlmsg_len ? 0 : -EIO;
}

static int dump_raw(NetlinkSocket *s, const char *path) {
        _cleanup_(fclosep) FILE *f = fopen(path, "we");
        struct inet_diag_req_v2 *req;
        struct nlmsghdr *nlh;

        if (!f)
                return -errno;
        for (int family = AF_INET; family >= 0; family = family == AF_INET ? AF_INET6 : -1) {
                int r;

                nlh = netlink_request_new(s, SOCK_DIAG_BY_FAMILY, NLM_F_DUMP);
                req = mnl_nlmsg_put_extra_header(nlh, sizeof(*req));
                req->sdiag_family = (uint8_t) family;
                req->sdiag_protocol = IPPROTO_TCP;
                req->idiag_states = ~(1U << TCP_LISTEN);
                req->idiag_ext = 1U << (INET_DIAG_INFO - 1);
                r = netlink_transact(s, nlh, write_raw, f, NULL, NULL);
                if (r < 0)
                        return r;
        }
        return 0;
}

int main(int argc, char *argv[]) {
        _cleanup_(netlink_socket_closep) NetlinkSocket *s = NULL;
        _cleanup_(freep) SockDiagTcp *before = NULL, *after = NULL;
        _cleanup_(freep) TcpPeerBytes *peers = NULL;
        const char *raw = NULL;
        size_t n_before, n_after, n_peers;
        struct in_addr local;
        char line[64];
        int r;

        if (argc > 2 && streq(argv[1], "--raw")) {
                raw = argv[2];
                argv += 2;
                argc -= 2;
        }
        if (argc < 3 || inet_pton(AF_INET, argv[1], &local) != 1) {
                fprintf(stderr, "usage: sock-diag-tool [--raw FILE] LOCAL PEER...\n");
                return 2;
        }
        n_peers = (size_t) argc - 2;
        peers = calloc(n_peers, sizeof(TcpPeerBytes));
        if (!peers)
                return 1;
        for (size_t i = 0; i < n_peers; i++)
                if (inet_pton(AF_INET, argv[i + 2], &peers[i].peer) != 1) {
                        fprintf(stderr, "%s: not an IPv4 address\n", argv[i + 2]);
                        return 2;
                }

        r = netlink_socket_open(NETLINK_SOCK_DIAG, &s);
        if (r >= 0)
                r = sock_diag_dump_tcp(s, &local, 1, &before, &n_before, NULL);
        if (r < 0) {
                fprintf(stderr, "first dump: %s\n", strerror(-r));
                return 1;
        }
        printf("dumped %zu\n", n_before);
        fflush(stdout);
        if (!fgets(line, sizeof(line), stdin))
                return 1;

        r = sock_diag_dump_tcp(s, &local, 1, &after, &n_after, NULL);
        if (r >= 0 && raw)
                r = dump_raw(s, raw);
        if (r >= 0)
                r = tcp_peer_bytes(before, n_before, after, n_after, local, peers, n_peers);
        if (r < 0) {
                fprintf(stderr, "second dump: %s\n", strerror(-r));
                return 1;
        }
        for (size_t i = 0; i < n_peers; i++)
                printf("peer %s sockets %u sent %llu received %llu\n",
                       inet_ntoa(peers[i].peer),
                       peers[i].n_sockets,
                       (unsigned long long) peers[i].sent,
                       (unsigned long long) peers[i].received);
        for (size_t i = 0; i < n_after; i++) {
                bool peer = false;

                for (size_t j = 0; j < n_peers; j++)
                        peer = peer || peers[j].peer.s_addr == after[i].remote.s_addr;
                if (peer)
                        printf("seen %s:%u acked %llu received %llu\n",
                               inet_ntoa(after[i].remote),
                               after[i].remote_port,
                               (unsigned long long) after[i].bytes_acked,
                               (unsigned long long) after[i].bytes_received);
                else
                        printf("other %s:%u\n", inet_ntoa(after[i].remote), after[i].remote_port);
        }
        return 0;
}
