/* SPDX-License-Identifier: MIT */
/* Parsing rtnetlink link and address messages into plain structs, every attribute validated. */
/* glibc's net/if.h must come before linux/if.h (which then leaves out what glibc defined). */
#include <net/if.h>

#include <linux/if.h>
#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <stddef.h>
#include <stdio.h>

#include "net/rtnl-internal.h"

/* The part of struct rtnl_link_stats64 the link reads: up to rx_missed_errors, which every kernel
 * with IFLA_STATS64 sends (the struct only grew at its end). */
#define STATS64_MIN (offsetof(struct rtnl_link_stats64, rx_missed_errors) + sizeof(__u64))

typedef struct AttrTable {
        const struct nlattr **tb;
        int max;
        bool invalid;
} AttrTable;

static int link_attr_cb(const struct nlattr *attr, void *data) {
        AttrTable *t = data;
        int type = mnl_attr_get_type(attr), r = 0;

        if (mnl_attr_type_valid(attr, t->max) < 0)
                return MNL_CB_OK; /* newer kernel, newer attribute: not ours */

        switch (type) {
        case IFLA_IFNAME:
                r = mnl_attr_validate(attr, MNL_TYPE_NUL_STRING);
                if (r >= 0 && mnl_attr_get_payload_len(attr) > IF_NAMESIZE)
                        r = -1;
                break;
        case IFLA_MTU:
        case IFLA_MIN_MTU:
        case IFLA_MAX_MTU:
        case IFLA_CARRIER_CHANGES:
        case IFLA_CARRIER_DOWN_COUNT:
                r = mnl_attr_validate(attr, MNL_TYPE_U32);
                break;
        case IFLA_STATS64:
                r = mnl_attr_validate(attr, MNL_TYPE_BINARY);
                if (r >= 0 && mnl_attr_get_payload_len(attr) < STATS64_MIN)
                        r = -1;
                break;
        case IFLA_OPERSTATE:
                r = mnl_attr_validate(attr, MNL_TYPE_U8);
                break;
        case IFLA_ADDRESS:
                r = mnl_attr_validate(attr, MNL_TYPE_BINARY);
                if (r >= 0 && mnl_attr_get_payload_len(attr) > RTNL_MAC_MAX)
                        r = -1;
                break;
        default:
                return MNL_CB_OK; /* not used: not stored */
        }
        if (r < 0) {
                t->invalid = true;
                return MNL_CB_ERROR;
        }
        t->tb[type] = attr;
        return MNL_CB_OK;
}

static void parse_link_counters(const struct nlattr *const *tb, RtnlLink *l) {
        if (tb[IFLA_STATS64]) {
                struct rtnl_link_stats64 st = {};

                /* Copied: the attribute's payload is 4-byte aligned, the struct's fields 8. */
                memcpy(&st, mnl_attr_get_payload(tb[IFLA_STATS64]), STATS64_MIN);
                l->has_stats = true;
                l->rx_packets = st.rx_packets;
                l->tx_packets = st.tx_packets;
                l->rx_crc_errors = st.rx_crc_errors;
                l->rx_frame_errors = st.rx_frame_errors;
                l->rx_missed_errors = st.rx_missed_errors;
        }
        if (tb[IFLA_CARRIER_CHANGES]) {
                l->has_carrier_changes = true;
                l->carrier_changes = mnl_attr_get_u32(tb[IFLA_CARRIER_CHANGES]);
        }
        if (tb[IFLA_CARRIER_DOWN_COUNT]) {
                l->has_carrier_down_count = true;
                l->carrier_down_count = mnl_attr_get_u32(tb[IFLA_CARRIER_DOWN_COUNT]);
        }
}

int rtnl_parse_link(const struct nlmsghdr *nlh, RtnlLink *ret) {
        const struct nlattr *tb[IFLA_MAX + 1] = {};
        AttrTable t = { .tb = tb, .max = IFLA_MAX };
        const struct ifinfomsg *ifi;
        RtnlLink l = { .operstate = IF_OPER_UNKNOWN };

        if (mnl_nlmsg_get_payload_len(nlh) < sizeof(struct ifinfomsg))
                return -EBADMSG;
        ifi = mnl_nlmsg_get_payload(nlh);
        if (mnl_attr_parse(nlh, sizeof(struct ifinfomsg), link_attr_cb, &t) < 0 || t.invalid)
                return -EBADMSG;
        if (ifi->ifi_index <= 0 || !tb[IFLA_IFNAME])
                return -EBADMSG;

        l.ifindex = ifi->ifi_index;
        l.flags = ifi->ifi_flags;
        snprintf(l.name, sizeof(l.name), "%s", mnl_attr_get_str(tb[IFLA_IFNAME]));
        if (tb[IFLA_MTU])
                l.mtu = mnl_attr_get_u32(tb[IFLA_MTU]);
        if (tb[IFLA_MIN_MTU])
                l.min_mtu = mnl_attr_get_u32(tb[IFLA_MIN_MTU]);
        if (tb[IFLA_MAX_MTU])
                l.max_mtu = mnl_attr_get_u32(tb[IFLA_MAX_MTU]);
        if (tb[IFLA_OPERSTATE])
                l.operstate = mnl_attr_get_u8(tb[IFLA_OPERSTATE]);
        if (tb[IFLA_ADDRESS]) {
                l.mac_len = mnl_attr_get_payload_len(tb[IFLA_ADDRESS]);
                memcpy(l.mac, mnl_attr_get_payload(tb[IFLA_ADDRESS]), l.mac_len);
        }
        parse_link_counters(tb, &l);
        *ret = l;
        return 0;
}

static int address_attr_cb(const struct nlattr *attr, void *data) {
        AttrTable *t = data;
        int type = mnl_attr_get_type(attr), r = 0;

        if (mnl_attr_type_valid(attr, t->max) < 0)
                return MNL_CB_OK;

        switch (type) {
        case IFA_LOCAL:
        case IFA_ADDRESS:
                r = mnl_attr_validate2(attr, MNL_TYPE_BINARY, sizeof(struct in_addr));
                break;
        case IFA_FLAGS:
                r = mnl_attr_validate(attr, MNL_TYPE_U32);
                break;
        case IFA_PROTO:
                r = mnl_attr_validate(attr, MNL_TYPE_U8);
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

int rtnl_parse_address(const struct nlmsghdr *nlh, RtnlAddress *ret) {
        const struct nlattr *tb[IFA_MAX + 1] = {};
        AttrTable t = { .tb = tb, .max = IFA_MAX };
        const struct ifaddrmsg *ifa;
        const struct nlattr *a;
        RtnlAddress addr = {};

        if (mnl_nlmsg_get_payload_len(nlh) < sizeof(struct ifaddrmsg))
                return -EBADMSG;
        ifa = mnl_nlmsg_get_payload(nlh);
        if (ifa->ifa_family != AF_INET)
                return 0;
        if (mnl_attr_parse(nlh, sizeof(struct ifaddrmsg), address_attr_cb, &t) < 0 || t.invalid)
                return -EBADMSG;

        /* IFA_LOCAL is the address itself; IFA_ADDRESS is the peer on point-to-point links. */
        a = tb[IFA_LOCAL] ?: tb[IFA_ADDRESS];
        if (!a || ifa->ifa_index == 0 || ifa->ifa_index > INT32_MAX || ifa->ifa_prefixlen > 32)
                return -EBADMSG;

        addr.ifindex = (int) ifa->ifa_index;
        memcpy(&addr.address, mnl_attr_get_payload(a), sizeof(addr.address));
        addr.prefixlen = ifa->ifa_prefixlen;
        addr.scope = ifa->ifa_scope;
        addr.flags = tb[IFA_FLAGS] ? mnl_attr_get_u32(tb[IFA_FLAGS]) : ifa->ifa_flags;
        if (tb[IFA_PROTO])
                addr.proto = mnl_attr_get_u8(tb[IFA_PROTO]);
        *ret = addr;
        return 1;
}

typedef struct ParseEvents {
        RtnlEventFunc cb;
        void *userdata;
        int error;
} ParseEvents;

static int event_cb(const struct nlmsghdr *nlh, void *data) {
        ParseEvents *p = data;
        RtnlEvent e = {};
        RtnlLink link;
        RtnlAddress address;
        RtnlRoute route;
        int r;

        switch (nlh->nlmsg_type) {
        case RTM_NEWLINK:
        case RTM_DELLINK:
                r = rtnl_parse_link(nlh, &link);
                if (r < 0)
                        goto fail;
                e.type = nlh->nlmsg_type == RTM_NEWLINK ? RTNL_EVENT_NEW_LINK : RTNL_EVENT_DEL_LINK;
                e.link = &link;
                break;
        case RTM_NEWADDR:
        case RTM_DELADDR:
                r = rtnl_parse_address(nlh, &address);
                if (r < 0)
                        goto fail;
                if (r == 0)
                        return MNL_CB_OK;
                e.type = nlh->nlmsg_type == RTM_NEWADDR ? RTNL_EVENT_NEW_ADDRESS : RTNL_EVENT_DEL_ADDRESS;
                e.address = &address;
                break;
        case RTM_NEWROUTE:
        case RTM_DELROUTE:
                r = rtnl_parse_route(nlh, &route);
                if (r < 0)
                        goto fail;
                if (r == 0)
                        return MNL_CB_OK;
                e.type = nlh->nlmsg_type == RTM_NEWROUTE ? RTNL_EVENT_NEW_ROUTE : RTNL_EVENT_DEL_ROUTE;
                e.route = &route;
                break;
        default:
                return MNL_CB_OK;
        }

        r = p->cb(&e, p->userdata);
        if (r < 0)
                goto fail;
        return MNL_CB_OK;

fail:
        p->error = r;
        return MNL_CB_ERROR;
}

int rtnl_parse_events(const void *buf, size_t size, RtnlEventFunc cb, void *userdata) {
        ParseEvents p = { .cb = cb, .userdata = userdata };
        const uint8_t *at = buf;
        size_t left = size;

        /* Our own walk rather than mnl_cb_run(): libmnl 1.0.4 compares nlmsg_len as a signed int
         * and would follow a length of 0xffffffff out of the buffer. The kernel pads every message
         * to NLMSG_ALIGNTO; one that is not padded inside the buffer is malformed. */
        while (left > 0) {
                const struct nlmsghdr *nlh = (const struct nlmsghdr *) at;
                size_t len;

                if (left < sizeof(struct nlmsghdr))
                        return -EBADMSG;
                len = nlh->nlmsg_len;
                if (len < sizeof(struct nlmsghdr) || len > left || NLMSG_ALIGN(len) > left)
                        return -EBADMSG;
                if (nlh->nlmsg_type == NLMSG_DONE)
                        break;
                if (event_cb(nlh, &p) == MNL_CB_ERROR)
                        return p.error < 0 ? p.error : -EBADMSG;
                at += NLMSG_ALIGN(len);
                left -= NLMSG_ALIGN(len);
        }
        return 0;
}

static const char *const rtnl_event_type_table[_RTNL_EVENT_TYPE_MAX] = {
        [RTNL_EVENT_NEW_LINK] = "new-link",       [RTNL_EVENT_DEL_LINK] = "del-link",
        [RTNL_EVENT_NEW_ADDRESS] = "new-address", [RTNL_EVENT_DEL_ADDRESS] = "del-address",
        [RTNL_EVENT_NEW_ROUTE] = "new-route",     [RTNL_EVENT_DEL_ROUTE] = "del-route",
};

DEFINE_STRING_TABLE_LOOKUP_TO_STRING(rtnl_event_type, RtnlEventType);
