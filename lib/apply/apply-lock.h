/* SPDX-License-Identifier: MIT */
/* The lock that every writer of the boot, limits and modules parts takes (root's haloctl apply,
 * halod-helper's, haloctl apply --undo), around each part's plan, writes and rollback. */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#include "basic/host.h"

/* In halod-helper.service's RuntimeDirectory= (0755 root, preserved): /run, because a lock lives as
 * long as the boot and no longer; a directory only root may write, because the user halod must be
 * able neither to take the lock nor to plant the file; and one the helper may write under its
 * ProtectSystem=strict (systemd makes RuntimeDirectory= writable), so that it can create the file
 * and record itself as the holder. Not /run/lock (1777: halod could create the file first) and not
 * /etc/halod (configuration, kept across boots). Root's haloctl makes the directory when the helper
 * never ran. Under --root TREE, the tree's own. */
#define APPLY_LOCK_DIR "/run/halod-helper"
#define APPLY_LOCK_FILE APPLY_LOCK_DIR "/apply.lock"

/* The file's text while a process holds the lock: "PID WHAT\n", WHAT what it is changing. */
#define APPLY_LOCK_WHAT_MAX 200U

/* Opens the lock file under h's root, making it (0600) and its directory (0755) when missing. Refuses
 * with -EPERM a directory or file that is not root's alone (another user could take the lock and
 * block root's writes), and -ENOTDIR/-ELOOP/-EBADF a symlink or a file that is not regular; says why
 * in *ret_error. */
int apply_lock_open(const Host *h, int *ret_fd, char **ret_error);
/* Takes the lock on fd: waiting until it is free, or at once (-EWOULDBLOCK when another holds it);
 * then records the caller's pid and what into the file (when fd is writable). */
int apply_lock_take(int fd, bool wait, const char *what);
/* Who holds it, from the file's text: 0 with the pid and what it changes, or -ESRCH when the text
 * names no process that is still running (the holder has not written it yet). */
int apply_lock_holder(int fd, pid_t *ret_pid, char **ret_what);
/* Parses the file's text ("PID WHAT\n"): -EBADMSG when it is not that. */
int apply_lock_parse(const char *text, pid_t *ret_pid, char **ret_what);
