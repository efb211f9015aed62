/* SPDX-License-Identifier: MIT */
/* Whether a profile file may be trusted to configure this machine, as sshd judges its key files. */
#pragma once

/* The profile at path decides addresses, MTUs and firewall zones as root, so nobody but root (or the
 * user running the program) may be able to change what it says. Walks the path as the kernel would,
 * following symlinks, and requires:
 *   - the file: a regular file owned by root or the effective user, not writable by group or others;
 *   - every directory on the way (of the path and of each symlink's target, "/" included): owned by
 *     root or the effective user, not writable by group or others unless its sticky bit is set (as
 *     /tmp: then only an entry's owner may replace it, and that owner is checked in turn);
 *   - every symlink on the way: owned by root or the effective user.
 * Returns 0 when trusted, and also when the path cannot be walked (missing, not readable): reading it
 * then fails with its own error. Returns -EPERM when not trusted, with ret_error saying which file or
 * directory, its owner and mode, and the commands that fix it; -ELOOP for too many symlinks (also with
 * ret_error); -ENOMEM. ret_error may be NULL. */
int profile_check_trusted(const char *path, char **ret_error);
