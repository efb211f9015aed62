/* SPDX-License-Identifier: MIT */
/* DCB netlink requests: DCB_CMD_IEEE_GET, and DCB_CMD_IEEE_SET/DEL of PFC, APP entries and the APP
 * trust order, each with NLM_F_ACK so that the reply is followed by an ack (or the kernel's refusal
 * with its extended ack). */
#include <linux/rtnetlink.h>
#include <net/if.h>

#include "net/dcb.h"
#include "net/rtnl-internal.h"

static int check_ifname(const char *ifname) {
        size_t n;

        if (!ifname)
                return -EINVAL;
        n = strlen(ifname);
        return n == 0 || n >= IF_NAMESIZE ? -EINVAL : 0;
}

static struct nlmsghdr *dcb_request_new(Rtnl *r, uint16_t type, uint8_t cmd, const char *ifname) {
        struct nlmsghdr *nlh = rtnl_request_new(r, type, NLM_F_ACK);
        struct dcbmsg *d = mnl_nlmsg_put_extra_header(nlh, sizeof(*d));

        d->dcb_family = AF_UNSPEC;
        d->cmd = cmd;
        mnl_attr_put_strz(nlh, DCB_ATTR_IFNAME, ifname);
        return nlh;
}

typedef struct GetReply {
        DcbState *state;
        bool seen;
} GetReply;

static int get_reply(const struct nlmsghdr *nlh, void *userdata) {
        GetReply *g = userdata;

        if (nlh->nlmsg_type != RTM_GETDCB)
                return 0;
        if (g->seen)
                return -EBADMSG;
        g->seen = true;
        return dcb_parse_get_reply(nlh, g->state);
}

int dcb_get(Rtnl *r, const char *ifname, DcbState *ret, char **ret_error) {
        GetReply g = { .state = ret };
        struct nlmsghdr *nlh;
        int k;

        if (ret_error)
                *ret_error = NULL;
        k = check_ifname(ifname);
        if (k < 0)
                return k;
        nlh = dcb_request_new(r, RTM_GETDCB, DCB_CMD_IEEE_GET, ifname);
        k = rtnl_transact(r, nlh, get_reply, &g, NULL, ret_error);
        if (k < 0)
                return k;
        return g.seen ? 0 : -EBADMSG;
}

typedef struct SetReply {
        int status;
        bool seen;
} SetReply;

static int set_reply(const struct nlmsghdr *nlh, void *userdata) {
        SetReply *s = userdata;

        if (nlh->nlmsg_type != RTM_SETDCB)
                return 0;
        if (s->seen)
                return -EBADMSG;
        s->seen = true;
        s->status = dcb_parse_set_reply(nlh);
        return s->status == -EBADMSG ? -EBADMSG : 0;
}

/* Sends a DCB_CMD_IEEE_SET/DEL request and returns the driver's result from the reply. */
static int set_transact(Rtnl *r, struct nlmsghdr *nlh, char **ret_error) {
        SetReply s = {};
        int k;

        k = rtnl_transact(r, nlh, set_reply, &s, NULL, ret_error);
        if (k < 0)
                return k;
        if (!s.seen)
                return -EBADMSG;
        return s.status;
}

int dcb_set_pfc(Rtnl *r, const char *ifname, const struct ieee_pfc *pfc, char **ret_error) {
        struct nlmsghdr *nlh;
        struct nlattr *ieee;
        int k;

        if (ret_error)
                *ret_error = NULL;
        k = check_ifname(ifname);
        if (k < 0)
                return k;
        nlh = dcb_request_new(r, RTM_SETDCB, DCB_CMD_IEEE_SET, ifname);
        ieee = mnl_attr_nest_start(nlh, DCB_ATTR_IEEE);
        mnl_attr_put(nlh, DCB_ATTR_IEEE_PFC, sizeof(*pfc), pfc);
        mnl_attr_nest_end(nlh, ieee);
        return set_transact(r, nlh, ret_error);
}

static int apps_request(
        Rtnl *r, uint8_t cmd, const char *ifname, const struct dcb_app *apps, size_t n, char **ret_error) {
        struct nlmsghdr *nlh;
        struct nlattr *ieee, *table;
        int k;

        if (ret_error)
                *ret_error = NULL;
        k = check_ifname(ifname);
        if (k < 0)
                return k;
        if (n == 0)
                return 0;
        if (n > DCB_APPS_MAX)
                return -E2BIG;
        nlh = dcb_request_new(r, RTM_SETDCB, cmd, ifname);
        ieee = mnl_attr_nest_start(nlh, DCB_ATTR_IEEE);
        table = mnl_attr_nest_start(nlh, DCB_ATTR_IEEE_APP_TABLE);
        for (size_t i = 0; i < n; i++)
                mnl_attr_put(
                        nlh,
                        apps[i].selector == DCBNL_APP_SEL_PCP ? DCBNL_ATTR_DCB_APP : DCB_ATTR_IEEE_APP,
                        sizeof(apps[i]),
                        &apps[i]);
        mnl_attr_nest_end(nlh, table);
        mnl_attr_nest_end(nlh, ieee);
        return set_transact(r, nlh, ret_error);
}

int dcb_add_apps(Rtnl *r, const char *ifname, const struct dcb_app *apps, size_t n, char **ret_error) {
        return apps_request(r, DCB_CMD_IEEE_SET, ifname, apps, n, ret_error);
}

int dcb_delete_apps(Rtnl *r, const char *ifname, const struct dcb_app *apps, size_t n, char **ret_error) {
        return apps_request(r, DCB_CMD_IEEE_DEL, ifname, apps, n, ret_error);
}

int dcb_set_trust(Rtnl *r, const char *ifname, const uint8_t *selectors, size_t n, char **ret_error) {
        struct nlmsghdr *nlh;
        struct nlattr *ieee, *table;
        int k;

        if (ret_error)
                *ret_error = NULL;
        k = check_ifname(ifname);
        if (k < 0)
                return k;
        if (n > DCB_TRUST_MAX)
                return -E2BIG;
        nlh = dcb_request_new(r, RTM_SETDCB, DCB_CMD_IEEE_SET, ifname);
        ieee = mnl_attr_nest_start(nlh, DCB_ATTR_IEEE);
        table = mnl_attr_nest_start(nlh, DCBNL_ATTR_APP_TRUST_TABLE);
        for (size_t i = 0; i < n; i++)
                mnl_attr_put_u8(
                        nlh,
                        selectors[i] == DCBNL_APP_SEL_PCP ? DCBNL_ATTR_DCB_APP : DCB_ATTR_IEEE_APP,
                        selectors[i]);
        mnl_attr_nest_end(nlh, table);
        mnl_attr_nest_end(nlh, ieee);
        return set_transact(r, nlh, ret_error);
}
