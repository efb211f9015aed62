/* SPDX-License-Identifier: MIT */
/* The rtnetlink socket: requests matched by sequence number, acks with the kernel's extended-ack
 * text, the link+address dump and the changes halod makes (MTU, up, IPv4 addresses). */
/* glibc's net/if.h must come before linux/if.h (which then leaves out what glibc defined). */
#include <net/if.h>

#include <linux/if.h>
#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/socket.h>
#include <time.h>

#include "net/rtnl-internal.h"

/* Large enough for any one link message; the kernel fills dumps up to the size we read with. */
#define RTNL_BUFFER_SIZE (32U * 1024U)
#define RTNL_DUMP_ATTEMPTS 5

/* Atomic, so that a dump on any thread is counted. */
static atomic_uint_fast64_t dump_count;

struct Rtnl {
        struct mnl_socket *nl;
        uint32_t portid;
        uint32_t seq;
        uint8_t *buf;
};

int rtnl_open(Rtnl **ret) {
        _cleanup_(rtnl_closep) Rtnl *r = NULL;
        int one = 1;

        r = calloc(1, sizeof(Rtnl));
        if (!r)
                return -ENOMEM;
        /* Zeroed: libmnl leaves the padding after a short attribute (IFA_PROTO's one byte) as it finds
         * it, and a request may be the socket's first use. */
        r->buf = calloc(1, RTNL_BUFFER_SIZE);
        if (!r->buf)
                return -ENOMEM;

        r->nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC);
        if (!r->nl)
                return negative_errno();
        /* Without these the kernel's reason for a refusal is lost, and every ack echoes our request. */
        if (mnl_socket_setsockopt(r->nl, NETLINK_EXT_ACK, &one, sizeof(one)) < 0 ||
            mnl_socket_setsockopt(r->nl, NETLINK_CAP_ACK, &one, sizeof(one)) < 0)
                return negative_errno();
        if (mnl_socket_bind(r->nl, 0, MNL_SOCKET_AUTOPID) < 0)
                return negative_errno();

        r->portid = mnl_socket_get_portid(r->nl);
        /* Any start will do; a time-derived one keeps two sockets of one process apart in traces. */
        r->seq = (uint32_t) time(NULL);
        *ret = TAKE_PTR(r);
        return 0;
}

Rtnl *rtnl_close(Rtnl *r) {
        if (!r)
                return NULL;
        if (r->nl)
                (void) mnl_socket_close(r->nl);
        free(r->buf);
        return mfree(r);
}

typedef struct Transaction {
        RtnlReplyFunc reply;
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

int rtnl_transact(
        Rtnl *r, struct nlmsghdr *nlh, RtnlReplyFunc reply, void *userdata, bool *ret_interrupted, char **ret_error) {
        mnl_cb_t ctl_cbs[NLMSG_MIN_TYPE] = {
                [NLMSG_ERROR] = error_cb,
                [NLMSG_DONE] = done_cb,
        };
        Transaction t = { .reply = reply, .userdata = userdata };
        uint32_t seq;

        if (ret_error)
                *ret_error = NULL;

        nlh->nlmsg_seq = seq = ++r->seq;
        if (mnl_socket_sendto(r->nl, nlh, nlh->nlmsg_len) < 0)
                return negative_errno();

        for (;;) {
                ssize_t n;
                int k;

                n = mnl_socket_recvfrom(r->nl, r->buf, RTNL_BUFFER_SIZE);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        t.error = negative_errno();
                        break;
                }
                k = mnl_cb_run2(r->buf, n, seq, r->portid, data_cb, &t, ctl_cbs, ELEMENTSOF(ctl_cbs));
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

struct nlmsghdr *rtnl_request_new(Rtnl *r, uint16_t type, uint16_t flags) {
        struct nlmsghdr *nlh = mnl_nlmsg_put_header(r->buf);

        nlh->nlmsg_type = type;
        nlh->nlmsg_flags = NLM_F_REQUEST | flags;
        return nlh;
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
        bool interrupted_links = false, interrupted_addresses = false;
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

        *ret_interrupted = interrupted_links || interrupted_addresses;
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
