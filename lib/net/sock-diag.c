/* SPDX-License-Identifier: MIT */
/* The TCP socket dump over NETLINK_SOCK_DIAG: one request for both families, filtered in the kernel by
 * local address. */
#include <linux/inet_diag.h>
#include <linux/sock_diag.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <sys/socket.h>

#include "net/sock-diag.h"

#define IN_SET_NOSUPPORT(r) ((r) == -ENOENT || (r) == -EAFNOSUPPORT || (r) == -EOPNOTSUPP)

typedef struct Dump {
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

/* The filter, when there are addresses to keep, as the request's INET_DIAG_REQ_BYTECODE. */
static int put_filter(struct nlmsghdr *nlh, const struct in_addr *locals, size_t n_locals) {
        size_t size = sock_diag_filter_size(n_locals);
        struct nlattr *attr;

        if (n_locals == 0)
                return 0;
        if (size > UINT16_MAX - MNL_ATTR_HDRLEN ||
            nlh->nlmsg_len + MNL_ATTR_HDRLEN + size > NETLINK_BUFFER_SIZE)
                return -E2BIG;
        attr = (struct nlattr *) mnl_nlmsg_get_payload_tail(nlh);
        attr->nla_type = INET_DIAG_REQ_BYTECODE;
        attr->nla_len = (uint16_t) (MNL_ATTR_HDRLEN + size);
        if (sock_diag_filter_build(locals, n_locals, mnl_attr_get_payload(attr), size) < 0)
                return -EINVAL;
        nlh->nlmsg_len += MNL_ALIGN(attr->nla_len);
        return 0;
}

/* Both families in one walk of the kernel's hash table: inet_diag's compat request, which it answers
 * with AF_UNSPEC (inet_diag_dump_compat()). */
static int dump_both(NetlinkSocket *s, const struct in_addr *locals, size_t n_locals, Dump *d, bool *intr) {
        struct nlmsghdr *nlh = netlink_request_new(s, TCPDIAG_GETSOCK, NLM_F_DUMP);
        struct inet_diag_req *req = mnl_nlmsg_put_extra_header(nlh, sizeof(*req));
        int r;

        req->idiag_family = AF_UNSPEC;
        req->idiag_states = ~(1U << TCP_LISTEN);
        req->idiag_ext = 1U << (INET_DIAG_INFO - 1);
        r = put_filter(nlh, locals, n_locals);
        if (r < 0)
                return r;
        return netlink_transact(s, nlh, reply_cb, d, intr, /* ret_error= */ NULL);
}

/* One family's walk, where the compat request is refused. */
static int dump_family(
        NetlinkSocket *s, uint8_t family, const struct in_addr *locals, size_t n_locals, Dump *d, bool *intr) {
        struct nlmsghdr *nlh = netlink_request_new(s, SOCK_DIAG_BY_FAMILY, NLM_F_DUMP);
        struct inet_diag_req_v2 *req = mnl_nlmsg_put_extra_header(nlh, sizeof(*req));
        int r;

        req->sdiag_family = family;
        req->sdiag_protocol = IPPROTO_TCP;
        req->idiag_states = ~(1U << TCP_LISTEN);
        req->idiag_ext = 1U << (INET_DIAG_INFO - 1);
        r = put_filter(nlh, locals, n_locals);
        if (r < 0)
                return r;
        r = netlink_transact(s, nlh, reply_cb, d, intr, /* ret_error= */ NULL);
        /* a kernel without IPv6 has no AF_INET6 sockets to report */
        return family == AF_INET6 && IN_SET_NOSUPPORT(r) ? 0 : r;
}

int sock_diag_dump_tcp(
        NetlinkSocket *s,
        const struct in_addr *locals,
        size_t n_locals,
        SockDiagTcp **ret,
        size_t *ret_n,
        bool *ret_interrupted) {
        Dump d = {};
        bool interrupted = false;
        int r;

        if (!s || !ret || !ret_n || (n_locals > 0 && !locals))
                return -EINVAL;

        r = dump_both(s, locals, n_locals, &d, &interrupted);
        if (IN_SET_NOSUPPORT(r) || r == -EINVAL) {
                bool intr = false;

                d.n = 0;
                r = dump_family(s, AF_INET, locals, n_locals, &d, &interrupted);
                if (r >= 0)
                        r = dump_family(s, AF_INET6, locals, n_locals, &d, &intr);
                interrupted = interrupted || intr;
        }
        if (r < 0) {
                free(d.records);
                return r;
        }
        *ret = d.records;
        *ret_n = d.n;
        if (ret_interrupted)
                *ret_interrupted = interrupted;
        return 0;
}
