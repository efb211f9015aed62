/* SPDX-License-Identifier: MIT */
/* The kernel's TCP sockets over IPv4, from socket diagnostics (NETLINK_SOCK_DIAG, with INET_DIAG_INFO):
 * per socket its addresses and ports, state, and tcp_info's bytes_acked and bytes_received (the bytes
 * this end sent that the peer acknowledged, and the bytes it received). Both families are dumped: an
 * IPv4 connection accepted by a dual-stack AF_INET6 listener (iperf3's server, many Python servers) is
 * an AF_INET6 socket with IPv4-mapped addresses, kept as IPv4.
 *
 * What a dump costs (bench/cost.sh, bench/RESULTS.md): the kernel walks its whole established hash
 * table (net.ipv4.tcp_ehash_entries buckets, sized by the machine's memory, shared by every network
 * namespace) whatever is asked, and with a few sockets that walk is nearly all of it: 262144 empty
 * buckets took about 0.7 ms per walk in halod's verify (0.3 ms back to back, the table in cache). So one
 * dump, not one per family: the request of the older TCPDIAG_GETSOCK type, which the kernel answers for both
 * families in one walk (inet_diag's compat path, AF_UNSPEC), with a plain SOCK_DIAG_BY_FAMILY dump per
 * family only where it is refused. And the kernel keeps only the sockets bound to the local addresses (an
 * inet_diag bytecode of S_CONDs, sock_diag_filter_build()), so that the other sockets' tcp_info is neither
 * gathered nor copied: a node with thousands of sockets elsewhere pays for the walk alone. The dump is asked
 * for every state but LISTEN (listeners move nothing). */
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

/* Parses one reply message of an inet_diag dump (SOCK_DIAG_BY_FAMILY or TCPDIAG_GETSOCK). Returns 0,
 * -ENODATA for a message that is not a socket record (NLMSG_DONE, NLMSG_ERROR, another type), -EAFNOSUPPORT
 * for a record that is neither an IPv4 socket nor an IPv6 one between IPv4-mapped addresses, -EBADMSG when
 * the message is cut short or its attributes are malformed. Pure. */
int sock_diag_parse_tcp(const struct nlmsghdr *nlh, SockDiagTcp *ret);

/* The inet_diag bytecode (INET_DIAG_REQ_BYTECODE) that keeps the sockets whose local address is one of
 * locals, IPv4-mapped ones too: its size, and the program written into buf. Returns its size, or
 * -EINVAL (none, or buf too small). Pure. */
size_t sock_diag_filter_size(size_t n_locals) _pure_;
int sock_diag_filter_build(const struct in_addr *locals, size_t n_locals, uint8_t *buf, size_t size);

/* Dumps the TCP sockets of the caller's network namespace whose local address is one of locals (none:
 * all), through s (netlink_socket_open(NETLINK_SOCK_DIAG, ...)). *ret is the caller's to free.
 * Returns 0, the kernel's errno, -EBADMSG for a malformed reply, -ENOMEM. ret_interrupted (may be
 * NULL): the socket table changed during the dump; a socket may be missing or doubled. */
int sock_diag_dump_tcp(
        NetlinkSocket *s,
        const struct in_addr *locals,
        size_t n_locals,
        SockDiagTcp **ret,
        size_t *ret_n,
        bool *ret_interrupted);
