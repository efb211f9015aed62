/* SPDX-License-Identifier: MIT */
/* Who a reader trusts as the owner of a file it acts on (root, or the reader itself), and a user as
 * a message names it: for the profile and the RDMA baseline, which nobody else may have written. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Root, or the effective user. */
bool file_owner_trusted(uid_t uid);
/* "halod (uid 990)", or "uid 990" when the user database has no name for it; in buf, returned. */
const char *file_owner_name(uid_t uid, char *buf, size_t size);
