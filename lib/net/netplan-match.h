/* SPDX-License-Identifier: MIT */
/* Which of a netplan YAML file's ethernets take a netdev: what link.<name>.owner names besides the
 * .network files that netplan generates from it. */
#pragma once

#include <stddef.h>

#include "net/networkd-match.h"

/* The largest netplan file read; netplan files are a few hundred bytes. */
#define NETPLAN_FILE_MAX (256U * 1024U)

/* Sets *ret_ids to the ids of network.ethernets in the netplan YAML text (size bytes) that take id: by
 * their match: (name and driver globs, macaddress; every key given must match), else by the id as the
 * interface name. NULL when none. Returns 0, -EBADMSG when the text is not YAML (ret_ids untouched),
 * or -ENOMEM. */
int netplan_file_matches(const char *text, size_t size, const NetdevIdentity *id, char ***ret_ids);
