/* SPDX-License-Identifier: MIT */
/* Shared by lib/rtnl*.c: parsing of single link and address messages. Not for other users. */
#pragma once

#include <libmnl/libmnl.h>

#include "net/rtnl.h"

/* Parse one RTM_NEWLINK/RTM_DELLINK message. Returns 0, or -EBADMSG when it is malformed. The
 * link's address list is left empty. */
int rtnl_parse_link(const struct nlmsghdr *nlh, RtnlLink *ret);
/* Parse one RTM_NEWADDR/RTM_DELADDR message. Returns 1 for an IPv4 address, 0 for another family
 * (ret untouched), -EBADMSG when it is malformed. */
int rtnl_parse_address(const struct nlmsghdr *nlh, RtnlAddress *ret);
