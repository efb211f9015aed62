/* SPDX-License-Identifier: MIT */
/* /etc/group as text (group(5): "name:password:GID:members", one a line): the two questions the checks
 * ask of it, who may open a device node. */
#pragma once

#include <sys/types.h>

#define ETC_GROUP_PATH "/etc/group"

/* The GID of the first line for group name: 0, -ENOENT when no line names it, -EBADMSG when that line
 * has no decimal GID field. */
int etc_group_gid(const char *text, const char *name, gid_t *ret);
/* The name of the first well-formed line with GID gid: 0 with *ret NULL when none has it; -ENOMEM. */
int etc_group_name(const char *text, gid_t gid, char **ret);
