/* SPDX-License-Identifier: MIT */
/* Bounded whole-file reads and atomic writes. */
#pragma once

#include <stddef.h>
#include <stdio.h>

/* Reads a whole file, at most max bytes (-EFBIG beyond), always NUL-terminated. */
int read_full_file(const char *path, size_t max, char **ret, size_t *ret_size);
/* Reads at most max bytes from an open file descriptor, from its offset on, NUL-terminated. */
int read_full_fd(int fd, size_t max, char **ret, size_t *ret_size);
/* Opens path for reading only when it is a regular file: never follows a symlink in its last
 * component (-ELOOP) and never blocks on a FIFO or opens a device (-EBADFD), -EISDIR for a directory;
 * the descriptor returned is blocking and close-on-exec. For files that others may have put in our
 * place (a runtime directory), where anything but a regular file is to be replaced, not read. */
int open_regular_file(const char *path, int *ret_fd);
/* open_regular_file() and read_full_fd(). */
int read_regular_file(const char *path, size_t max, char **ret, size_t *ret_size);
/* Creates the directory path is in (one level, mode 0755) when it is missing. */
int mkdir_parent(const char *path);
/* Writes data to a temporary file beside path and renames it into place. */
int write_file_atomic(const char *path, const char *data, size_t size, unsigned mode);
/* Replaces the regular file at path with data the same way, keeping its owner, mode and SELinux label
 * (the security.selinux xattr, when it has one): for a file of the system that halod edits, like
 * /etc/hosts. A symlink at path is not followed (-ELOOP), anything but a regular file is refused
 * (-EBADFD), a missing file is -ENOENT. */
int write_file_atomic_keeping(const char *path, const char *data, size_t size);
/* For files halod keeps in a shared runtime directory (fabric.env, the CDI spec): writes text to path
 * atomically, creating its directory (one level, mode 0755), and only when the content changed.
 * Whatever is at path and is not a regular file (a FIFO, a symlink, a device) is replaced without
 * being opened. Returns 1 when written, 0 when unchanged, negative errno on failure. */
int write_file_atomic_if_changed(const char *path, const char *text, unsigned mode);
