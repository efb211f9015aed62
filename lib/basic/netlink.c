/* SPDX-License-Identifier: MIT */
/* The netlink request socket: open, one request at a time, acks and errors with extended-ack text. */
#include <linux/netlink.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>

#include "basic/errorf.h"
#include "basic/netlink.h"

struct NetlinkSocket {
        struct mnl_socket *nl;
        uint32_t portid;
        uint32_t seq;
        uint8_t *buf;
};

int netlink_socket_open(int bus, NetlinkSocket **ret) {
        _cleanup_(netlink_socket_closep) NetlinkSocket *s = NULL;
        int one = 1;

        s = calloc(1, sizeof(NetlinkSocket));
        if (!s)
                return -ENOMEM;
        /* Zeroed: libmnl leaves the padding after a short attribute (IFA_PROTO's one byte) as it finds
         * it, and a request may be the socket's first use. */
        s->buf = calloc(1, NETLINK_BUFFER_SIZE);
        if (!s->buf)
                return -ENOMEM;

        s->nl = mnl_socket_open2(bus, SOCK_CLOEXEC);
        if (!s->nl)
                return negative_errno();
        if (mnl_socket_setsockopt(s->nl, NETLINK_EXT_ACK, &one, sizeof(one)) < 0 ||
            mnl_socket_setsockopt(s->nl, NETLINK_CAP_ACK, &one, sizeof(one)) < 0)
                return negative_errno();
        if (mnl_socket_bind(s->nl, 0, MNL_SOCKET_AUTOPID) < 0)
                return negative_errno();

        s->portid = mnl_socket_get_portid(s->nl);
        /* Any start will do; a time-derived one keeps two sockets of one process apart in traces. */
        s->seq = (uint32_t) time(NULL);
        *ret = TAKE_PTR(s);
        return 0;
}

NetlinkSocket *netlink_socket_close(NetlinkSocket *s) {
        if (!s)
                return NULL;
        if (s->nl)
                (void) mnl_socket_close(s->nl);
        free(s->buf);
        return mfree(s);
}

struct nlmsghdr *netlink_request_new(NetlinkSocket *s, uint16_t type, uint16_t flags) {
        struct nlmsghdr *nlh;

        memset(s->buf, 0, NETLINK_BUFFER_SIZE);
        nlh = mnl_nlmsg_put_header(s->buf);
        nlh->nlmsg_type = type;
        nlh->nlmsg_flags = NLM_F_REQUEST | flags;
        return nlh;
}

typedef struct Transaction {
        NetlinkReplyFunc reply;
        void *userdata;
        int error;
        char *ext_ack;
        bool interrupted;
} Transaction;

static int ext_ack_attr_cb(const struct nlattr *attr, void *data) {
        Transaction *t = data;

        if (mnl_attr_get_type(attr) != NLMSGERR_ATTR_MSG)
                return MNL_CB_OK;
        if (mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) < 0)
                return MNL_CB_OK; /* a malformed explanation is no explanation */
        free(t->ext_ack);
        t->ext_ack = strdup(mnl_attr_get_str(attr));
        return MNL_CB_OK;
}

/* The extended ack follows the error header, and the echoed request unless NLM_F_CAPPED says the
 * kernel left it out. */
static void parse_ext_ack(const struct nlmsghdr *nlh, size_t offset, Transaction *t) {
        if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS) || offset > mnl_nlmsg_get_payload_len(nlh))
                return;
        (void) mnl_attr_parse(nlh, offset, ext_ack_attr_cb, t);
}

static int error_cb(const struct nlmsghdr *nlh, void *data) {
        Transaction *t = data;
        const struct nlmsgerr *err = mnl_nlmsg_get_payload(nlh);
        size_t offset = sizeof(struct nlmsgerr);

        if (mnl_nlmsg_get_payload_len(nlh) < sizeof(struct nlmsgerr)) {
                t->error = -EBADMSG;
                return MNL_CB_ERROR;
        }
        if (err->error == 0)
                return MNL_CB_STOP; /* the ack */

        if (!(nlh->nlmsg_flags & NLM_F_CAPPED)) {
                if (err->msg.nlmsg_len < sizeof(struct nlmsghdr))
                        offset = SIZE_MAX;
                else
                        offset += err->msg.nlmsg_len - sizeof(struct nlmsghdr);
        }
        parse_ext_ack(nlh, offset, t);
        t->error = err->error < 0 && err->error >= -ERRNO_MAX ? err->error : -EIO;
        return MNL_CB_ERROR;
}

static int done_cb(const struct nlmsghdr *nlh, void *data) {
        Transaction *t = data;
        int error;

        /* A dump that failed half way reports the error in NLMSG_DONE's payload. */
        if (mnl_nlmsg_get_payload_len(nlh) < sizeof(int))
                return MNL_CB_STOP;
        memcpy(&error, mnl_nlmsg_get_payload(nlh), sizeof(error));
        if (error >= 0)
                return MNL_CB_STOP;
        parse_ext_ack(nlh, sizeof(int), t);
        t->error = error >= -ERRNO_MAX ? error : -EIO;
        return MNL_CB_ERROR;
}

static int data_cb(const struct nlmsghdr *nlh, void *data) {
        Transaction *t = data;
        int r;

        if (nlh->nlmsg_flags & NLM_F_DUMP_INTR)
                t->interrupted = true;
        /* After a failure of our own, read on to the end so that the socket stays in step. */
        if (t->error < 0 || !t->reply)
                return MNL_CB_OK;
        r = t->reply(nlh, t->userdata);
        if (r < 0)
                t->error = r;
        return MNL_CB_OK;
}

int netlink_transact(
        NetlinkSocket *s,
        struct nlmsghdr *nlh,
        NetlinkReplyFunc reply,
        void *userdata,
        bool *ret_interrupted,
        char **ret_error) {
        mnl_cb_t ctl_cbs[NLMSG_MIN_TYPE] = {
                [NLMSG_ERROR] = error_cb,
                [NLMSG_DONE] = done_cb,
        };
        Transaction t = { .reply = reply, .userdata = userdata };
        uint32_t seq;

        if (ret_error)
                *ret_error = NULL;

        nlh->nlmsg_seq = seq = ++s->seq;
        if (mnl_socket_sendto(s->nl, nlh, nlh->nlmsg_len) < 0)
                return negative_errno();

        for (;;) {
                ssize_t n;
                int k;

                n = mnl_socket_recvfrom(s->nl, s->buf, NETLINK_BUFFER_SIZE);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        t.error = negative_errno();
                        break;
                }
                k = mnl_cb_run2(s->buf, n, seq, s->portid, data_cb, &t, ctl_cbs, ELEMENTSOF(ctl_cbs));
                if (k < 0) {
                        if (t.error == 0)
                                t.error = negative_errno();
                        break;
                }
                if (k == MNL_CB_STOP)
                        break;
        }

        if (t.error < 0 && ret_error)
                *ret_error = TAKE_PTR(t.ext_ack);
        free(t.ext_ack);
        if (ret_interrupted)
                *ret_interrupted = t.interrupted;
        return t.error;
}
