/* SPDX-License-Identifier: MIT */
/* IPv4 routes over rtnetlink: parsing route messages (every attribute validated), the dump's reply,
 * and adding, replacing and deleting the routes halod owns. */
#include <arpa/inet.h>
#include <linux/rtnetlink.h>
#include <stdio.h>

#include "net/rtnl-internal.h"

typedef struct RouteAttrs {
        const struct nlattr *tb[RTA_MAX + 1];
        bool invalid;
} RouteAttrs;

static int route_attr_cb(const struct nlattr *attr, void *data) {
        RouteAttrs *t = data;
        int type = mnl_attr_get_type(attr), r;

        if (mnl_attr_type_valid(attr, RTA_MAX) < 0)
                return MNL_CB_OK; /* newer kernel, newer attribute: not ours */

        switch (type) {
        case RTA_DST:
        case RTA_GATEWAY:
                r = mnl_attr_validate2(attr, MNL_TYPE_BINARY, sizeof(struct in_addr));
                break;
        case RTA_OIF:
        case RTA_PRIORITY:
        case RTA_TABLE:
                r = mnl_attr_validate(attr, MNL_TYPE_U32);
                break;
        case RTA_MULTIPATH:
                r = 0;
                break;
        default:
                return MNL_CB_OK;
        }
        if (r < 0) {
                t->invalid = true;
                return MNL_CB_ERROR;
        }
        t->tb[type] = attr;
        return MNL_CB_OK;
}

int rtnl_parse_route(const struct nlmsghdr *nlh, RtnlRoute *ret) {
        RouteAttrs t = {};
        const struct rtmsg *rtm;
        RtnlRoute route = {};
        uint32_t table, oif = 0;

        if (mnl_nlmsg_get_payload_len(nlh) < sizeof(struct rtmsg))
                return -EBADMSG;
        rtm = mnl_nlmsg_get_payload(nlh);
        if (rtm->rtm_family != AF_INET)
                return 0;
        if (mnl_attr_parse(nlh, sizeof(struct rtmsg), route_attr_cb, &t) < 0 || t.invalid)
                return -EBADMSG;
        if (rtm->rtm_dst_len > 32 || (rtm->rtm_dst_len > 0 && !t.tb[RTA_DST]))
                return -EBADMSG;

        /* RTA_TABLE holds table ids above 255, for which rtm_table says RT_TABLE_COMPAT. */
        table = t.tb[RTA_TABLE] ? mnl_attr_get_u32(t.tb[RTA_TABLE]) : rtm->rtm_table;
        if (table != RT_TABLE_MAIN || rtm->rtm_type != RTN_UNICAST || t.tb[RTA_MULTIPATH])
                return 0;
        if (t.tb[RTA_OIF]) {
                oif = mnl_attr_get_u32(t.tb[RTA_OIF]);
                if (oif > INT32_MAX)
                        return -EBADMSG;
        }

        route.dst_len = rtm->rtm_dst_len;
        if (t.tb[RTA_DST])
                memcpy(&route.dst, mnl_attr_get_payload(t.tb[RTA_DST]), sizeof(route.dst));
        if (t.tb[RTA_GATEWAY])
                memcpy(&route.gateway, mnl_attr_get_payload(t.tb[RTA_GATEWAY]), sizeof(route.gateway));
        route.ifindex = (int) oif;
        route.metric = t.tb[RTA_PRIORITY] ? mnl_attr_get_u32(t.tb[RTA_PRIORITY]) : 0;
        route.protocol = rtm->rtm_protocol;
        *ret = route;
        return 1;
}

static int append_route(RtnlRoute **routes, size_t *n_routes, const RtnlRoute *route) {
        RtnlRoute *a = reallocarray(*routes, *n_routes + 1, sizeof(RtnlRoute));

        if (!a)
                return -ENOMEM;
        *routes = a;
        a[(*n_routes)++] = *route;
        return 0;
}

int rtnl_route_reply(const struct nlmsghdr *nlh, void *userdata) {
        RtnlState *s = userdata;
        RtnlRoute route;
        int r;

        if (nlh->nlmsg_type != RTM_NEWROUTE)
                return 0;
        r = rtnl_parse_route(nlh, &route);
        if (r <= 0)
                return r;
        return append_route(&s->routes, &s->n_routes, &route);
}

int rtnl_parse_routes(const void *buf, size_t size, RtnlRoute **routes, size_t *n_routes) {
        const uint8_t *at = buf;
        size_t left = size;

        /* The same walk as rtnl_parse_events(), for the same reason (libmnl's signed length). */
        while (left > 0) {
                const struct nlmsghdr *nlh = (const struct nlmsghdr *) at;
                RtnlRoute route;
                size_t len;
                int r;

                if (left < sizeof(struct nlmsghdr))
                        return -EBADMSG;
                len = nlh->nlmsg_len;
                if (len < sizeof(struct nlmsghdr) || len > left || NLMSG_ALIGN(len) > left)
                        return -EBADMSG;
                if (nlh->nlmsg_type == NLMSG_DONE)
                        break;
                if (nlh->nlmsg_type == RTM_NEWROUTE) {
                        r = rtnl_parse_route(nlh, &route);
                        if (r < 0)
                                return r;
                        if (r > 0 && append_route(routes, n_routes, &route) < 0)
                                return -ENOMEM;
                }
                at += NLMSG_ALIGN(len);
                left -= NLMSG_ALIGN(len);
        }
        return 0;
}

static struct nlmsghdr *route_request_new(Rtnl *r, uint16_t type, uint16_t flags, const RtnlRoute *route) {
        struct nlmsghdr *nlh = rtnl_request_new(r, type, NLM_F_ACK | flags);
        struct rtmsg *rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));

        rtm->rtm_family = AF_INET;
        rtm->rtm_dst_len = route->dst_len;
        rtm->rtm_table = RT_TABLE_MAIN;
        rtm->rtm_type = RTN_UNICAST;
        if (route->dst_len > 0)
                mnl_attr_put(nlh, RTA_DST, sizeof(route->dst), &route->dst);
        if (route->gateway.s_addr != 0)
                mnl_attr_put(nlh, RTA_GATEWAY, sizeof(route->gateway), &route->gateway);
        if (route->ifindex > 0)
                mnl_attr_put_u32(nlh, RTA_OIF, (uint32_t) route->ifindex);
        mnl_attr_put_u32(nlh, RTA_PRIORITY, route->metric);
        return nlh;
}

int rtnl_replace_route(Rtnl *r, const RtnlRoute *route, char **ret_error) {
        struct nlmsghdr *nlh;
        struct rtmsg *rtm;

        if (route->dst_len > 32)
                return -EINVAL;
        nlh = route_request_new(r, RTM_NEWROUTE, NLM_F_CREATE | NLM_F_REPLACE, route);
        rtm = mnl_nlmsg_get_payload(nlh);
        rtm->rtm_protocol = RTNL_ROUTE_PROTO_HALOD;
        /* Through a gateway: universe scope; on the link itself: link scope, as ip(8) picks. */
        rtm->rtm_scope = route->gateway.s_addr != 0 ? RT_SCOPE_UNIVERSE : RT_SCOPE_LINK;
        return rtnl_transact(r, nlh, NULL, NULL, NULL, ret_error);
}

int rtnl_delete_route(Rtnl *r, const RtnlRoute *route, char **ret_error) {
        struct nlmsghdr *nlh;
        struct rtmsg *rtm;

        if (route->dst_len > 32)
                return -EINVAL;
        nlh = route_request_new(r, RTM_DELROUTE, 0, route);
        rtm = mnl_nlmsg_get_payload(nlh);
        /* The kernel matches the protocol too: only a route of that owner goes. */
        rtm->rtm_protocol = route->protocol;
        rtm->rtm_scope = RT_SCOPE_NOWHERE;
        return rtnl_transact(r, nlh, NULL, NULL, NULL, ret_error);
}

const char *rtnl_route_to_string(const RtnlRoute *route, char *buf) {
        char d[INET_ADDRSTRLEN], g[INET_ADDRSTRLEN];
        int n;

        n = snprintf(
                buf,
                RTNL_ROUTE_STRING_MAX,
                "%s/%u",
                inet_ntop(AF_INET, &route->dst, d, sizeof(d)) ?: "?",
                route->dst_len);
        if (route->gateway.s_addr != 0 && n > 0 && (size_t) n < RTNL_ROUTE_STRING_MAX)
                n += snprintf(
                        buf + n,
                        RTNL_ROUTE_STRING_MAX - (size_t) n,
                        " via %s",
                        inet_ntop(AF_INET, &route->gateway, g, sizeof(g)) ?: "?");
        if (route->metric != 0 && n > 0 && (size_t) n < RTNL_ROUTE_STRING_MAX)
                (void) snprintf(buf + n, RTNL_ROUTE_STRING_MAX - (size_t) n, " metric %u", route->metric);
        return buf;
}
