/* SPDX-License-Identifier: MIT */
/* The rtnetlink requests (through basic/netlink.h): the link+address+route dump and the changes halod
 * makes to links (MTU, up, IPv4 addresses); rtnl-route.c has the route changes. */
/* glibc's net/if.h must come before linux/if.h (which then leaves out what glibc defined). */
#include <net/if.h>

#include <linux/if.h>
#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/ip.h>
#include <linux/rtnetlink.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/socket.h>

#include "basic/netlink.h"
#include "net/rtnl-internal.h"

#define RTNL_DUMP_ATTEMPTS 5

/* Atomic, so that a dump on any thread is counted. */
static atomic_uint_fast64_t dump_count;

struct Rtnl {
        NetlinkSocket *socket;
};

int rtnl_open(Rtnl **ret) {
        _cleanup_(rtnl_closep) Rtnl *r = NULL;
        int k;

        r = calloc(1, sizeof(Rtnl));
        if (!r)
                return -ENOMEM;
        k = netlink_socket_open(NETLINK_ROUTE, &r->socket);
        if (k < 0)
                return k;
        *ret = TAKE_PTR(r);
        return 0;
}

Rtnl *rtnl_close(Rtnl *r) {
        if (!r)
                return NULL;
        netlink_socket_close(r->socket);
        return mfree(r);
}

int rtnl_transact(
        Rtnl *r, struct nlmsghdr *nlh, RtnlReplyFunc reply, void *userdata, bool *ret_interrupted, char **ret_error) {
        return netlink_transact(r->socket, nlh, reply, userdata, ret_interrupted, ret_error);
}

struct nlmsghdr *rtnl_request_new(Rtnl *r, uint16_t type, uint16_t flags) {
        return netlink_request_new(r->socket, type, flags);
}

static int link_reply(const struct nlmsghdr *nlh, void *userdata) {
        RtnlState *s = userdata;
        RtnlLink l, *a;
        int r;

        if (nlh->nlmsg_type != RTM_NEWLINK)
                return 0;
        r = rtnl_parse_link(nlh, &l);
        if (r < 0)
                return r;
        a = reallocarray(s->links, s->n_links + 1, sizeof(RtnlLink));
        if (!a)
                return -ENOMEM;
        s->links = a;
        s->links[s->n_links++] = l;
        return 0;
}

static int address_reply(const struct nlmsghdr *nlh, void *userdata) {
        RtnlState *s = userdata;
        RtnlAddress addr, *a;
        RtnlLink *l;
        int r;

        if (nlh->nlmsg_type != RTM_NEWADDR)
                return 0;
        r = rtnl_parse_address(nlh, &addr);
        if (r <= 0)
                return r;
        l = (RtnlLink *) rtnl_state_find_by_index(s, addr.ifindex);
        if (!l)
                return 0; /* the link appeared after the link dump; the next dump sees both */
        a = reallocarray(l->addresses, l->n_addresses + 1, sizeof(RtnlAddress));
        if (!a)
                return -ENOMEM;
        l->addresses = a;
        l->addresses[l->n_addresses++] = addr;
        return 0;
}

static int dump_once(Rtnl *r, RtnlState *s, bool *ret_interrupted, char **ret_error) {
        struct nlmsghdr *nlh;
        struct ifinfomsg *ifi;
        struct ifaddrmsg *ifa;
        struct rtmsg *rtm;
        bool interrupted_links = false, interrupted_addresses = false, interrupted_routes = false;
        int k;

        nlh = rtnl_request_new(r, RTM_GETLINK, NLM_F_DUMP);
        ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
        ifi->ifi_family = AF_UNSPEC;
        /* Counters are most of a link message and halod reads none of them. */
        mnl_attr_put_u32(nlh, IFLA_EXT_MASK, RTEXT_FILTER_SKIP_STATS);
        k = rtnl_transact(r, nlh, link_reply, s, &interrupted_links, ret_error);
        if (k < 0)
                return k;

        nlh = rtnl_request_new(r, RTM_GETADDR, NLM_F_DUMP);
        ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
        ifa->ifa_family = AF_INET;
        k = rtnl_transact(r, nlh, address_reply, s, &interrupted_addresses, ret_error);
        if (k < 0)
                return k;

        /* Every table is dumped (a dump request cannot filter without strict checking); the reply
         * function keeps the main table's. */
        nlh = rtnl_request_new(r, RTM_GETROUTE, NLM_F_DUMP);
        rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
        rtm->rtm_family = AF_INET;
        k = rtnl_transact(r, nlh, rtnl_route_reply, s, &interrupted_routes, ret_error);
        if (k < 0)
                return k;

        *ret_interrupted = interrupted_links || interrupted_addresses || interrupted_routes;
        return 0;
}

uint64_t rtnl_dump_count(void) {
        return atomic_load(&dump_count);
}

int rtnl_dump(Rtnl *r, RtnlState *ret, char **ret_error) {
        atomic_fetch_add(&dump_count, 1);
        for (unsigned attempt = 0; attempt < RTNL_DUMP_ATTEMPTS; attempt++) {
                RtnlState s = {};
                bool interrupted = false;
                int k;

                k = dump_once(r, &s, &interrupted, ret_error);
                if (k < 0) {
                        rtnl_state_done(&s);
                        return k;
                }
                if (!interrupted) {
                        *ret = s;
                        return 0;
                }
                /* The kernel's tables changed under the dump: what we got may be inconsistent. */
                rtnl_state_done(&s);
        }
        if (ret_error)
                *ret_error = NULL;
        return -EAGAIN;
}

static struct nlmsghdr *link_request_new(Rtnl *r, int ifindex) {
        struct nlmsghdr *nlh = rtnl_request_new(r, RTM_NEWLINK, NLM_F_ACK);
        struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));

        ifi->ifi_family = AF_UNSPEC;
        ifi->ifi_index = ifindex;
        return nlh;
}

int rtnl_set_mtu(Rtnl *r, int ifindex, uint32_t mtu, char **ret_error) {
        struct nlmsghdr *nlh = link_request_new(r, ifindex);

        mnl_attr_put_u32(nlh, IFLA_MTU, mtu);
        return rtnl_transact(r, nlh, NULL, NULL, NULL, ret_error);
}

int rtnl_set_link_up(Rtnl *r, int ifindex, bool up, char **ret_error) {
        struct nlmsghdr *nlh = link_request_new(r, ifindex);
        struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);

        ifi->ifi_change = IFF_UP;
        ifi->ifi_flags = up ? IFF_UP : 0;
        return rtnl_transact(r, nlh, NULL, NULL, NULL, ret_error);
}

int rtnl_set_ipv4_forwarding(Rtnl *r, int ifindex, bool on, char **ret_error) {
        struct nlmsghdr *nlh = link_request_new(r, ifindex);
        struct nlattr *af_spec, *inet, *conf;

        /* The interface's IPv4 devconf through rtnetlink (the kernel's inet_set_link_af()), which needs
         * CAP_NET_ADMIN only, where /proc/sys/net/ipv4/conf/IF/forwarding needs a writable /proc/sys:
         * halod.service keeps that read-only (ProtectKernelTunables=yes). The attribute's type is the
         * devconf's index. */
        af_spec = mnl_attr_nest_start(nlh, IFLA_AF_SPEC);
        inet = mnl_attr_nest_start(nlh, AF_INET);
        conf = mnl_attr_nest_start(nlh, IFLA_INET_CONF);
        mnl_attr_put_u32(nlh, IPV4_DEVCONF_FORWARDING, on ? 1 : 0);
        mnl_attr_nest_end(nlh, conf);
        mnl_attr_nest_end(nlh, inet);
        mnl_attr_nest_end(nlh, af_spec);
        return rtnl_transact(r, nlh, NULL, NULL, NULL, ret_error);
}

static struct nlmsghdr *address_request_new(
        Rtnl *r, uint16_t type, uint16_t flags, int ifindex, const struct in_addr *address, uint8_t prefixlen) {
        struct nlmsghdr *nlh = rtnl_request_new(r, type, NLM_F_ACK | flags);
        struct ifaddrmsg *ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));

        ifa->ifa_family = AF_INET;
        ifa->ifa_prefixlen = prefixlen;
        ifa->ifa_scope = RT_SCOPE_UNIVERSE;
        ifa->ifa_index = (uint32_t) ifindex;
        mnl_attr_put(nlh, IFA_LOCAL, sizeof(*address), address);
        return nlh;
}

static int add_address(
        Rtnl *r, int ifindex, const struct in_addr *address, uint8_t prefixlen, uint8_t proto, char **ret_error) {
        struct nlmsghdr *nlh;

        if (prefixlen < 1 || prefixlen > 32)
                return -EINVAL;

        nlh = address_request_new(r, RTM_NEWADDR, NLM_F_CREATE | NLM_F_REPLACE, ifindex, address, prefixlen);
        mnl_attr_put(nlh, IFA_ADDRESS, sizeof(*address), address);
        /* /31 and /32 have no broadcast address (RFC 3021). */
        if (prefixlen <= 30) {
                uint32_t mask = htonl(~0U << (32 - prefixlen));
                struct in_addr broadcast = { .s_addr = address->s_addr | ~mask };

                mnl_attr_put(nlh, IFA_BROADCAST, sizeof(broadcast), &broadcast);
        }
        if (proto != 0)
                mnl_attr_put_u8(nlh, IFA_PROTO, proto);
        return rtnl_transact(r, nlh, NULL, NULL, NULL, ret_error);
}

int rtnl_add_address(Rtnl *r, int ifindex, const struct in_addr *address, uint8_t prefixlen, char **ret_error) {
        return add_address(r, ifindex, address, prefixlen, RTNL_ADDRESS_PROTO_HALOD, ret_error);
}

int rtnl_restore_address(Rtnl *r, const RtnlAddress *a, char **ret_error) {
        return add_address(r, a->ifindex, &a->address, a->prefixlen, a->proto, ret_error);
}

int rtnl_delete_address(Rtnl *r, int ifindex, const struct in_addr *address, uint8_t prefixlen, char **ret_error) {
        struct nlmsghdr *nlh;

        if (prefixlen > 32)
                return -EINVAL;
        nlh = address_request_new(r, RTM_DELADDR, 0, ifindex, address, prefixlen);
        /* Without IFA_ADDRESS the kernel ignores the prefix length and deletes 10.0.0.1/8 for /24. */
        mnl_attr_put(nlh, IFA_ADDRESS, sizeof(*address), address);
        return rtnl_transact(r, nlh, NULL, NULL, NULL, ret_error);
}
