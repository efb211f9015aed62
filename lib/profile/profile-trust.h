/* SPDX-License-Identifier: MIT */
/* Opening a profile file only when it may be trusted to configure this machine, as sshd judges its key
 * files. */
#pragma once

/* The profile at path decides addresses, MTUs and firewall zones as root, so nobody but root (or the
 * user running the program) may be able to change what it says. Walks the path as the kernel would,
 * following symlinks, one descriptor at a time, and requires:
 *   - the file: a regular file owned by root or the effective user, not writable by group or others;
 *   - every directory on the way (of the path and of each symlink's target, "/" included): owned by
 *     root or the effective user, not writable by group or others unless its sticky bit is set (as
 *     /tmp: then only an entry's owner may replace it, and that owner is judged in turn);
 *   - every symlink on the way: owned by root or the effective user.
 * Each directory is judged on the descriptor the walk then continues from, and the file on the
 * descriptor returned in *ret_fd (blocking, close-on-exec, at offset 0): the caller reads that
 * descriptor and nothing else, so a file swapped in after the judgement is never read. A FIFO or a
 * device is refused without being opened for reading.
 * Returns 0 with *ret_fd; -EPERM when not trusted, with ret_error saying which file, directory or
 * symlink, its owner and mode, and the commands that fix it; -ELOOP for too many symlinks; the errno
 * of the failing step (-ENOENT for a missing profile, -EACCES, -EISDIR, -ENOTDIR) when it cannot be
 * read, with ret_error naming it: a missing profile is an error, never trusted; -EINVAL for an empty
 * path; -ENOMEM. ret_error may be NULL. */
int profile_open_trusted(const char *path, int *ret_fd, char **ret_error);
