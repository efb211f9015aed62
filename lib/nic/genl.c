/* SPDX-License-Identifier: MIT */
/* Generic netlink (through basic/netlink.h): a family's id by name (the controller, CTRL_CMD_GETFAMILY),
 * requests with their genetlink header, acked unless they dump. */
#include <sys/socket.h>

#include "basic/netlink.h"
#include "nic/genl.h"

struct Genl {
        NetlinkSocket *socket;
};

int genl_open(Genl **ret) {
        _cleanup_(genl_closep) Genl *g = NULL;
        int r;

        g = calloc(1, sizeof(Genl));
        if (!g)
                return -ENOMEM;
        r = netlink_socket_open(NETLINK_GENERIC, &g->socket);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(g);
        return 0;
}

Genl *genl_close(Genl *g) {
        if (!g)
                return NULL;
        netlink_socket_close(g->socket);
        return mfree(g);
}

struct nlmsghdr *genl_request_new(Genl *g, uint16_t family, uint8_t cmd, uint8_t version, uint16_t flags) {
        struct nlmsghdr *nlh = netlink_request_new(g->socket, family, flags);
        struct genlmsghdr *genl;

        genl = mnl_nlmsg_put_extra_header(nlh, sizeof(struct genlmsghdr));
        genl->cmd = cmd;
        genl->version = version;
        return nlh;
}

int genl_transact(Genl *g, struct nlmsghdr *nlh, GenlReplyFunc reply, void *userdata, char **ret_error) {
        /* An ack ends a request that is not a dump, after its reply. */
        if (!(nlh->nlmsg_flags & NLM_F_DUMP))
                nlh->nlmsg_flags |= NLM_F_ACK;
        return netlink_transact(g->socket, nlh, reply, userdata, /* ret_interrupted= */ NULL, ret_error);
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
