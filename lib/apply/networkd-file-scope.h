/* SPDX-License-Identifier: MIT */
/* What a .network file of halod's may take: the profile's link alone. The root helper writes these
 * files from names the user halod can change (CAP_NET_ADMIN renames a link), so a name that networkd
 * would read as a pattern is refused, and the file's [Match] is tried against every link of the kernel
 * before it is written. */
#pragma once

#include <stddef.h>

#include "net/rtnl.h"

/* 0 when ifname reads as itself in networkd's Name=; else -EINVAL and a message for the user that
 * names the link, the interface and the character. */
int networkd_file_check_name(const char *link, const char *ifname, char **ret_error);

/* 0 when the [Match] of text takes the link with index ifindex and no other of links (n of them;
 * permanent[i]: the permanent address of links[i], NULL when it has none); else -EMLINK (others too) or
 * -ENODEV (not the link itself) and a message for the user that names them. -ENOMEM. */
int networkd_file_check_scope(
        const char *text,
        const char *link,
        int ifindex,
        const RtnlLink *links,
        size_t n,
        char *const *permanent,
        char **ret_error);
