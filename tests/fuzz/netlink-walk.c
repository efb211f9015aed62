/* SPDX-License-Identifier: MIT */
/* Walking a fuzz input as a run of netlink messages (fuzz-dcb, fuzz-devlink). */
#include <stdlib.h>
#include <string.h>

#include "basic/macro.h"
#include "netlink-walk.h"

void fuzz_netlink_walk(const uint8_t *data, size_t size, void (*parse_one)(const struct nlmsghdr *nlh)) {
        _cleanup_(freep) uint8_t *copy = NULL;
        size_t left = size;
        uint8_t *at;

        copy = malloc(size ?: 1);
        if (!copy)
                return;
        memcpy(copy, data, size);
        at = copy;
        while (left >= sizeof(struct nlmsghdr)) {
                const struct nlmsghdr *nlh = (const struct nlmsghdr *) at;
                size_t len = nlh->nlmsg_len;

                if (len < sizeof(struct nlmsghdr) || len > left)
                        break;
                parse_one(nlh);
                if (MNL_ALIGN(len) >= left)
                        break;
                at += MNL_ALIGN(len);
                left -= MNL_ALIGN(len);
        }
}
