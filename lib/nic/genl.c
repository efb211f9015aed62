/* SPDX-License-Identifier: MIT */
/* The generic netlink socket: a family's id by name (the controller, CTRL_CMD_GETFAMILY), requests
 * matched by sequence number, and the kernel's extended-ack text kept for the caller. */
#include <sys/socket.h>
#include <time.h>

#include "nic/genl.h"

/* Large enough for any one reply; a dump is read in as many buffers as it takes. */
#define GENL_BUFFER_SIZE (32U * 1024U)

struct Genl {
        struct mnl_socket *nl;
        uint32_t portid;
        uint32_t seq;
        uint8_t *buf;
};

int genl_open(Genl **ret) {
        _cleanup_(genl_closep) Genl *g = NULL;
        int one = 1;

        g = calloc(1, sizeof(Genl));
        if (!g)
                return -ENOMEM;
        /* Zeroed: libmnl leaves the padding after a short attribute as it finds it. */
        g->buf = calloc(1, GENL_BUFFER_SIZE);
        if (!g->buf)
                return -ENOMEM;

        g->nl = mnl_socket_open2(NETLINK_GENERIC, SOCK_CLOEXEC);
        if (!g->nl)
                return negative_errno();
        /* The extended ack is the kernel's own explanation ("Device is busy resetting"), and without
         * NETLINK_CAP_ACK every error echoes the request back. */
        if (mnl_socket_setsockopt(g->nl, NETLINK_EXT_ACK, &one, sizeof(one)) < 0 ||
            mnl_socket_setsockopt(g->nl, NETLINK_CAP_ACK, &one, sizeof(one)) < 0)
                return negative_errno();
        if (mnl_socket_bind(g->nl, 0, MNL_SOCKET_AUTOPID) < 0)
                return negative_errno();

        g->portid = mnl_socket_get_portid(g->nl);
        g->seq = (uint32_t) time(NULL);
        *ret = TAKE_PTR(g);
        return 0;
}

Genl *genl_close(Genl *g) {
        if (!g)
                return NULL;
        if (g->nl)
                (void) mnl_socket_close(g->nl);
        free(g->buf);
        return mfree(g);
}

typedef struct Transaction {
        GenlReplyFunc reply;
        void *userdata;
        int error;
        char *ext_ack;
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

        /* The extended ack follows the echoed request, unless NLM_F_CAPPED says it was left out. */
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

        /* After a failure of our own, read on to the end so that the socket stays in step. */
        if (t->error < 0 || !t->reply)
                return MNL_CB_OK;
        r = t->reply(nlh, t->userdata);
        if (r < 0)
                t->error = r;
        return MNL_CB_OK;
}

struct nlmsghdr *genl_request_new(Genl *g, uint16_t family, uint8_t cmd, uint8_t version, uint16_t flags) {
        struct nlmsghdr *nlh = mnl_nlmsg_put_header(g->buf);
        struct genlmsghdr *genl;

        nlh->nlmsg_type = family;
        nlh->nlmsg_flags = NLM_F_REQUEST | flags;
        genl = mnl_nlmsg_put_extra_header(nlh, sizeof(struct genlmsghdr));
        genl->cmd = cmd;
        genl->version = version;
        return nlh;
}

int genl_transact(Genl *g, struct nlmsghdr *nlh, GenlReplyFunc reply, void *userdata, char **ret_error) {
        mnl_cb_t ctl_cbs[NLMSG_MIN_TYPE] = {
                [NLMSG_ERROR] = error_cb,
                [NLMSG_DONE] = done_cb,
        };
        Transaction t = { .reply = reply, .userdata = userdata };
        uint32_t seq;

        if (ret_error)
                *ret_error = NULL;

        /* An ack ends a request that is not a dump, after its reply. */
        if (!(nlh->nlmsg_flags & NLM_F_DUMP))
                nlh->nlmsg_flags |= NLM_F_ACK;
        nlh->nlmsg_seq = seq = ++g->seq;
        if (mnl_socket_sendto(g->nl, nlh, nlh->nlmsg_len) < 0)
                return negative_errno();

        for (;;) {
                ssize_t n;
                int k;

                n = mnl_socket_recvfrom(g->nl, g->buf, GENL_BUFFER_SIZE);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        t.error = negative_errno();
                        break;
                }
                k = mnl_cb_run2(g->buf, n, seq, g->portid, data_cb, &t, ctl_cbs, ELEMENTSOF(ctl_cbs));
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
        return t.error;
}

int genl_message_command(const struct nlmsghdr *nlh, uint8_t *ret_cmd) {
        const struct genlmsghdr *genl;

        if (nlh->nlmsg_len < sizeof(struct nlmsghdr) ||
            mnl_nlmsg_get_payload_len(nlh) < sizeof(struct genlmsghdr))
                return -EBADMSG;
        genl = mnl_nlmsg_get_payload(nlh);
        *ret_cmd = genl->cmd;
        return 0;
}

static int family_attr_cb(const struct nlattr *attr, void *data) {
        const struct nlattr **tb = data;
        int type = mnl_attr_get_type(attr);

        if (mnl_attr_type_valid(attr, CTRL_ATTR_MAX) < 0)
                return MNL_CB_OK;
        if (type == CTRL_ATTR_FAMILY_ID) {
                if (mnl_attr_validate(attr, MNL_TYPE_U16) < 0)
                        return MNL_CB_ERROR;
                tb[type] = attr;
        }
        return MNL_CB_OK;
}

static int family_reply(const struct nlmsghdr *nlh, void *userdata) {
        const struct nlattr *tb[CTRL_ATTR_MAX + 1] = {};
        uint16_t *id = userdata;
        uint8_t cmd;

        if (genl_message_command(nlh, &cmd) < 0)
                return -EBADMSG;
        if (cmd != CTRL_CMD_NEWFAMILY)
                return 0;
        if (mnl_attr_parse(nlh, GENL_HDRLEN, family_attr_cb, tb) < 0 || !tb[CTRL_ATTR_FAMILY_ID])
                return -EBADMSG;
        *id = mnl_attr_get_u16(tb[CTRL_ATTR_FAMILY_ID]);
        return 0;
}

int genl_resolve_family(Genl *g, const char *name, uint16_t *ret_id, char **ret_error) {
        struct nlmsghdr *nlh;
        uint16_t id = 0;
        int r;

        if (isempty(name) || strlen(name) >= GENL_NAMSIZ)
                return -EINVAL;
        nlh = genl_request_new(g, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1, 0);
        mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, name);
        r = genl_transact(g, nlh, family_reply, &id, ret_error);
        if (r < 0)
                return r;
        if (id == 0)
                return -EBADMSG; /* acked without saying: not what the controller does */
        *ret_id = id;
        return 0;
}
