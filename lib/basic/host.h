/* SPDX-License-Identifier: MIT */
/* The host a check looks at: where /proc, /sys, /boot and /etc are. Tests point it at fixture trees. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "basic/macro.h"

typedef struct Host {
        /* Prefix for every absolute path the checks read; "" for the running system. */
        const char *root;
} Host;

#define HOST_SYSTEM ((Host){ .root = "" })

/* Upper bound for any single file a check reads (a sysfs attribute, /proc/cmdline, a BLS entry). */
#define HOST_FILE_MAX (1024U * 1024U)

/* Joins the host root and an absolute path. */
int host_path(const Host *h, const char *path, char **ret);
/* Whether path exists below the host root (a dangling symlink does not). */
bool host_path_exists(const Host *h, const char *path);
/* Reads a whole file below the host root, at most max bytes (-EFBIG beyond), NUL-terminated. */
int host_read_file(const Host *h, const char *path, size_t max, char **ret, size_t *ret_size);
/* Reads a one-line attribute (sysfs style) and strips the trailing newline and whitespace. */
int host_read_line(const Host *h, const char *path, char **ret);
/* The last path component of the target of the symlink root+path ("ice" for .../driver); -EINVAL
 * when it is not a symlink, -EBADMSG when the target has no last component. */
int host_readlink_basename(const Host *h, const char *path, char **ret);
/* The entries of a directory below the host root, sorted, without "." and ".." (NULL when empty). */
int host_list_directory(const Host *h, const char *path, char ***ret);
/* The configuration files NAME+suffix in dirs, in the order systemd-style readers (networkd, kmod)
 * take them: one per file name, the earliest directory's copy winning, sorted by file name whatever
 * the directory. A directory that is missing or unreadable adds nothing. Paths as in dirs (without the
 * host root); NULL when there are none. */
int host_conf_files(const Host *h, const char *const *dirs, size_t n_dirs, const char *suffix, char ***ret);
/* True when the host root is the running system ("" or "/"): only then do ioctls and verbs answer
 * for the host the checks look at. */
bool host_is_running_system(const Host *h) _pure_;
