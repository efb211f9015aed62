/* SPDX-License-Identifier: MIT */
/* A netlink socket (libmnl) for requests: one buffer, requests matched by sequence number, replies
 * handed to a callback until the ack or NLMSG_DONE, and the kernel's extended-ack text kept for the
 * caller. rtnetlink (net/rtnl.c, net/dcb.c) and generic netlink (nic/genl.c) both speak through it. */
#pragma once

#include <libmnl/libmnl.h>
#include <stdbool.h>
#include <stdint.h>

#include "basic/macro.h"

/* Large enough for any one reply; a dump is read in as many buffers as it takes. */
#define NETLINK_BUFFER_SIZE (32U * 1024U)

typedef struct NetlinkSocket NetlinkSocket;

/* Opens a socket of the netlink bus (NETLINK_ROUTE, NETLINK_GENERIC) with extended and capped acks
 * (the kernel's reason for a refusal, without our request echoed back), in the caller's network
 * namespace. Returns 0 or the errno of socket()/bind(). */
int netlink_socket_open(int bus, NetlinkSocket **ret);
NetlinkSocket *netlink_socket_close(NetlinkSocket *s);
DEFINE_TRIVIAL_CLEANUP_FUNC(NetlinkSocket *, netlink_socket_close);

/* Starts a request of the message type in the socket's (zeroed) buffer, NLM_F_REQUEST | flags; the
 * caller adds headers and attributes. Valid until the next request. */
struct nlmsghdr *netlink_request_new(NetlinkSocket *s, uint16_t type, uint16_t flags);

/* A reply message; returns 0 or negative errno, which ends the request with that error (the replies
 * still in flight are read and dropped, so that the socket stays in step). */
typedef int (*NetlinkReplyFunc)(const struct nlmsghdr *nlh, void *userdata);

/* Sends nlh and calls reply (may be NULL) for each data message until the ack, NLMSG_DONE or an
 * error. Returns the kernel's errno as it answered it. ret_interrupted (may be NULL): a dump saw
 * NLM_F_DUMP_INTR (the kernel's state changed during it). ret_error (may be NULL): the kernel's
 * extended-ack text on failure, else NULL. */
int netlink_transact(
        NetlinkSocket *s,
        struct nlmsghdr *nlh,
        NetlinkReplyFunc reply,
        void *userdata,
        bool *ret_interrupted,
        char **ret_error);
