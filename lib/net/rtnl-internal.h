/* SPDX-License-Identifier: MIT */
/* Shared by lib/net/rtnl*.c and lib/net/dcb*.c: parsing of single link and address messages, and the
 * socket's request/reply transaction. Not for other users. */
#pragma once

#include <libmnl/libmnl.h>

#include "basic/netlink.h"

#include "net/rtnl.h"

/* Parse one RTM_NEWLINK/RTM_DELLINK message. Returns 0, or -EBADMSG when it is malformed. The
 * link's address list is left empty. */
int rtnl_parse_link(const struct nlmsghdr *nlh, RtnlLink *ret);
/* Parse one RTM_NEWADDR/RTM_DELADDR message. Returns 1 for an IPv4 address, 0 for another family
 * (ret untouched), -EBADMSG when it is malformed. */
int rtnl_parse_address(const struct nlmsghdr *nlh, RtnlAddress *ret);

/* Parse one RTM_NEWROUTE/RTM_DELROUTE message. Returns 1 for an IPv4 unicast route of the main table
 * without multipath, 0 for any other route (ret untouched), -EBADMSG when it is malformed. */
int rtnl_parse_route(const struct nlmsghdr *nlh, RtnlRoute *ret);
/* The reply function of a route dump: appends to the RtnlState's routes. */
int rtnl_route_reply(const struct nlmsghdr *nlh, void *userdata);

/* Called for every data message of a reply; a negative return fails the transaction (the rest of the
 * reply is still read, so that the socket stays in step). */
typedef NetlinkReplyFunc RtnlReplyFunc;

/* A new request of type with NLM_F_REQUEST | flags in the socket's buffer. */
struct nlmsghdr *rtnl_request_new(Rtnl *r, uint16_t type, uint16_t flags);
/* Sends nlh (its sequence number is set here) and reads the reply up to the ack, NLMSG_DONE or an
 * error. Returns 0 or negative errno (the kernel's, or the reply function's); ret_error as in
 * net/rtnl.h. */
int rtnl_transact(
        Rtnl *r, struct nlmsghdr *nlh, RtnlReplyFunc reply, void *userdata, bool *ret_interrupted, char **ret_error);
