/* SPDX-License-Identifier: MIT */
/* The kernel's TCP sockets over IPv4, from socket diagnostics (NETLINK_SOCK_DIAG, inet_diag_req_v2
 * with INET_DIAG_INFO): per socket its addresses and ports, state, and tcp_info's bytes_acked and
 * bytes_received (the bytes this end sent that the peer acknowledged, and the bytes it received).
 * Both families are dumped: an IPv4 connection accepted by a dual-stack AF_INET6 listener (iperf3's
 * server, many Python servers) is an AF_INET6 socket with IPv4-mapped addresses, kept as IPv4.
 *
 * Filtering is in user space, not with an inet_diag bytecode: the dump is asked for every state but
 * LISTEN (listeners move nothing), and the records outside the local address are dropped as they are
 * parsed. A node of the cluster holds at most some thousands of TCP sockets, which the kernel dumps in
 * a few 32 KiB reads; a bytecode would save those reads but adds a small jump program whose mistakes
 * the kernel answers with a bare EINVAL. The filter stays one comparison that a test can read. The
 * kernel walks its whole TCP hash table for each family's dump whatever the filter, and with a few
 * sockets that walk is most of the cost: two dumps (AF_INET, AF_INET6) are two walks. */
#pragma once

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/netlink.h"

typedef struct SockDiagTcp {
        struct in_addr local, remote;
        uint16_t local_port, remote_port; /* host order */
        uint8_t state;                    /* TCP_ESTABLISHED, ... (netinet/tcp.h) */
        uint64_t cookie;                  /* the kernel's socket cookie: one socket across two dumps */
        uint32_t uid, inode;
        bool has_bytes; /* tcp_info came with bytes_acked and bytes_received (not for TIME_WAIT) */
        uint64_t bytes_acked, bytes_received;
} SockDiagTcp;

/* Parses one reply message of an inet_diag dump. Returns 0, -ENODATA for a message that is not a
 * socket record (NLMSG_DONE, NLMSG_ERROR, another type), -EAFNOSUPPORT for a record that is neither
 * an IPv4 socket nor an IPv6 one between IPv4-mapped addresses, -EBADMSG when the message is cut short or
 * its attributes are malformed. Pure. */
int sock_diag_parse_tcp(const struct nlmsghdr *nlh, SockDiagTcp *ret);

/* Dumps the TCP sockets of the caller's network namespace whose local address is local (INADDR_ANY:
 * all), through s (netlink_socket_open(NETLINK_SOCK_DIAG, ...)). *ret is the caller's to free.
 * Returns 0, the kernel's errno, -EBADMSG for a malformed reply, -ENOMEM. ret_interrupted (may be
 * NULL): the socket table changed during the dump; a socket may be missing or doubled. */
int sock_diag_dump_tcp(
        NetlinkSocket *s, struct in_addr local, SockDiagTcp **ret, size_t *ret_n, bool *ret_interrupted);
