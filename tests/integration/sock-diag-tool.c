/* SPDX-License-Identifier: MIT */
/* sock-diag-tool [--raw FILE] LOCAL[,LOCAL...] PEER...: what halod's TCP watch (lib/net/sock-diag.h,
 * lib/net/tcp-peer-bytes.h) sees in the caller's network namespace, the kernel keeping the sockets on
 * the LOCAL addresses. Takes a first dump and prints
 * "dumped N", waits for a line on stdin, takes a second and prints, per peer,
 * "peer ADDR sockets N sent BYTES received BYTES", then for each socket of the second dump from LOCAL
 * "seen ADDR:PORT acked BYTES received BYTES" (to a peer: tcp_info's totals) or "other ADDR:PORT". --raw
 * FILE: a third dump's socket records as the kernel sent them to halod's request (a fuzz seed). */
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

/* The request halod sends (lib/net/sock-diag.c): inet_diag's compat TCPDIAG_GETSOCK, both families in
 * one walk, the kernel keeping the sockets on locals. */
static int dump_raw(NetlinkSocket *s, const struct in_addr *locals, size_t n_locals, const char *path) {
        _cleanup_(fclosep) FILE *f = fopen(path, "we");
        size_t size = sock_diag_filter_size(n_locals);
        struct inet_diag_req *req;
        struct nlmsghdr *nlh;
        struct nlattr *attr;

        if (!f)
                return -errno;
        nlh = netlink_request_new(s, TCPDIAG_GETSOCK, NLM_F_DUMP);
        req = mnl_nlmsg_put_extra_header(nlh, sizeof(*req));
        req->idiag_family = AF_UNSPEC;
        req->idiag_states = ~(1U << TCP_LISTEN);
        req->idiag_ext = 1U << (INET_DIAG_INFO - 1);
        attr = (struct nlattr *) mnl_nlmsg_get_payload_tail(nlh);
        attr->nla_type = INET_DIAG_REQ_BYTECODE;
        attr->nla_len = (uint16_t) (MNL_ATTR_HDRLEN + size);
        if (sock_diag_filter_build(locals, n_locals, mnl_attr_get_payload(attr), size) < 0)
                return -EINVAL;
        nlh->nlmsg_len += MNL_ALIGN(attr->nla_len);
        return netlink_transact(s, nlh, write_raw, f, NULL, NULL);
}

int main(int argc, char *argv[]) {
        _cleanup_(netlink_socket_closep) NetlinkSocket *s = NULL;
        _cleanup_(freep) SockDiagTcp *before = NULL, *after = NULL;
        _cleanup_(freep) TcpPeerBytes *peers = NULL;
        const char *raw = NULL;
        size_t n_before, n_after, n_peers;
        struct in_addr local, locals[8];
        size_t n_locals = 0;
        char line[64];
        int r;

        if (argc > 2 && streq(argv[1], "--raw")) {
                raw = argv[2];
                argv += 2;
                argc -= 2;
        }
        if (argc < 3) {
                fprintf(stderr, "usage: sock-diag-tool [--raw FILE] LOCAL[,LOCAL...] PEER...\n");
                return 2;
        }
        for (char *a = argv[1], *next; a; a = next) {
                next = strchr(a, ',');
                if (next)
                        *next++ = '\0';
                if (n_locals == ELEMENTSOF(locals) || inet_pton(AF_INET, a, &locals[n_locals++]) != 1) {
                        fprintf(stderr, "%s: not an IPv4 address, or more than %zu\n", a, ELEMENTSOF(locals));
                        return 2;
                }
        }
        /* the bytes per peer from any of them */
        local = n_locals == 1 ? locals[0] : (struct in_addr){ .s_addr = htonl(INADDR_ANY) };
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
                r = sock_diag_dump_tcp(s, locals, n_locals, &before, &n_before, NULL);
        if (r < 0) {
                fprintf(stderr, "first dump: %s\n", strerror(-r));
                return 1;
        }
        printf("dumped %zu\n", n_before);
        fflush(stdout);
        if (!fgets(line, sizeof(line), stdin))
                return 1;

        r = sock_diag_dump_tcp(s, locals, n_locals, &after, &n_after, NULL);
        if (r >= 0 && raw)
                r = dump_raw(s, locals, n_locals, raw);
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
