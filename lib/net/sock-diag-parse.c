/* SPDX-License-Identifier: MIT */
/* One inet_diag reply message into a SockDiagTcp: the header, then INET_DIAG_INFO's tcp_info. */
#include <linux/inet_diag.h>
#include <linux/sock_diag.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>

#include "net/sock-diag.h"

/* tcp_info grew over the years; bytes_received is the last field we read (Linux 4.1 added both). */
#define TCP_INFO_BYTES_END (offsetof(struct tcp_info, tcpi_bytes_received) + sizeof(uint64_t))

/* ::ffff:a.b.c.d, as the four big-endian words of inet_diag_sockid */
static bool is_v4_mapped(const __be32 a[4]) {
        return a[0] == 0 && a[1] == 0 && a[2] == htonl(0xffffU);
}

static int info_attr_cb(const struct nlattr *attr, void *data) {
        const struct nlattr **info = data;

        if (mnl_attr_get_type(attr) == INET_DIAG_INFO)
                *info = attr;
        return MNL_CB_OK;
}

int sock_diag_parse_tcp(const struct nlmsghdr *nlh, SockDiagTcp *ret) {
        const struct nlattr *info = NULL;
        struct inet_diag_msg msg;
        SockDiagTcp t = {};

        if (!nlh || !ret)
                return -EINVAL;
        if (nlh->nlmsg_type != SOCK_DIAG_BY_FAMILY && nlh->nlmsg_type != TCPDIAG_GETSOCK)
                return -ENODATA;
        if (nlh->nlmsg_len < MNL_NLMSG_HDRLEN || mnl_nlmsg_get_payload_len(nlh) < sizeof(msg))
                return -EBADMSG;
        memcpy(&msg, mnl_nlmsg_get_payload(nlh), sizeof(msg));
        /* inet_diag_sockid: ports and addresses in network order, cookie as two host-order halves. An
         * IPv4 connection accepted by a dual-stack AF_INET6 listener (iperf3's, python's with
         * IPV6_V6ONLY off) is an AF_INET6 socket with IPv4-mapped addresses: the same IPv4 peer. */
        if (msg.idiag_family == AF_INET) {
                memcpy(&t.local, &msg.id.idiag_src[0], sizeof(t.local));
                memcpy(&t.remote, &msg.id.idiag_dst[0], sizeof(t.remote));
        } else if (msg.idiag_family == AF_INET6 && is_v4_mapped(msg.id.idiag_src) && is_v4_mapped(msg.id.idiag_dst)) {
                memcpy(&t.local, &msg.id.idiag_src[3], sizeof(t.local));
                memcpy(&t.remote, &msg.id.idiag_dst[3], sizeof(t.remote));
        } else
                return -EAFNOSUPPORT;
        t.local_port = ntohs(msg.id.idiag_sport);
        t.remote_port = ntohs(msg.id.idiag_dport);
        t.state = msg.idiag_state;
        t.cookie = (uint64_t) msg.id.idiag_cookie[1] << 32 | msg.id.idiag_cookie[0];
        t.uid = msg.idiag_uid;
        t.inode = msg.idiag_inode;

        if (mnl_attr_parse(nlh, sizeof(msg), info_attr_cb, &info) < 0)
                return -EBADMSG;
        if (info && mnl_attr_get_payload_len(info) >= TCP_INFO_BYTES_END) {
                struct tcp_info ti;

                memcpy(&ti, mnl_attr_get_payload(info), TCP_INFO_BYTES_END);
                t.bytes_acked = ti.tcpi_bytes_acked;
                t.bytes_received = ti.tcpi_bytes_received;
                t.has_bytes = true;
        }

        *ret = t;
        return 0;
}
