/* SPDX-License-Identifier: MIT */
/* The TCP socket dump over NETLINK_SOCK_DIAG: the request, and the records kept by local address. */
#include <linux/inet_diag.h>
#include <linux/sock_diag.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <sys/socket.h>

#include "net/sock-diag.h"

#define IN_SET_NOSUPPORT(r) ((r) == -ENOENT || (r) == -EAFNOSUPPORT || (r) == -EOPNOTSUPP)

typedef struct Dump {
        struct in_addr local;
        SockDiagTcp *records;
        size_t n, allocated;
} Dump;

static int reply_cb(const struct nlmsghdr *nlh, void *userdata) {
        Dump *d = userdata;
        SockDiagTcp t;
        int r;

        r = sock_diag_parse_tcp(nlh, &t);
        if (r == -ENODATA || r == -EAFNOSUPPORT)
                return 0;
        if (r < 0)
                return r;
        if (d->local.s_addr != htonl(INADDR_ANY) && t.local.s_addr != d->local.s_addr)
                return 0;

        if (d->n == d->allocated) {
                size_t n = d->allocated ? d->allocated * 2 : 64;
                SockDiagTcp *p = reallocarray(d->records, n, sizeof(SockDiagTcp));

                if (!p)
                        return -ENOMEM;
                d->records = p;
                d->allocated = n;
        }
        d->records[d->n++] = t;
        return 0;
}

int sock_diag_dump_tcp(
        NetlinkSocket *s, struct in_addr local, SockDiagTcp **ret, size_t *ret_n, bool *ret_interrupted) {
        static const uint8_t families[] = { AF_INET, AF_INET6 };
        _cleanup_(freep) SockDiagTcp *records = NULL;
        struct inet_diag_req_v2 *req;
        struct nlmsghdr *nlh;
        Dump d = { .local = local };
        bool interrupted = false;
        int r;

        if (!s || !ret || !ret_n)
                return -EINVAL;

        /* AF_INET6 too: there an IPv4 connection accepted by a dual-stack listener lives */
        for (size_t i = 0; i < ELEMENTSOF(families); i++) {
                bool intr = false;

                nlh = netlink_request_new(s, SOCK_DIAG_BY_FAMILY, NLM_F_DUMP);
                req = mnl_nlmsg_put_extra_header(nlh, sizeof(*req));
                req->sdiag_family = families[i];
                req->sdiag_protocol = IPPROTO_TCP;
                req->idiag_states = ~(1U << TCP_LISTEN);
                req->idiag_ext = 1U << (INET_DIAG_INFO - 1);

                r = netlink_transact(s, nlh, reply_cb, &d, &intr, /* ret_error= */ NULL);
                records = d.records;
                /* a kernel without IPv6 has no AF_INET6 sockets to report */
                if (r < 0 && !(families[i] == AF_INET6 && IN_SET_NOSUPPORT(r)))
                        return r;
                d.records = TAKE_PTR(records);
                interrupted = interrupted || intr;
        }
        records = d.records;

        *ret = TAKE_PTR(records);
        *ret_n = d.n;
        if (ret_interrupted)
                *ret_interrupted = interrupted;
        return 0;
}
