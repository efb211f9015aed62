/* SPDX-License-Identifier: MIT */
/* The files halod owns outside its own directories (a GRUB drop-in, a limits.d or modules-load.d file):
 * marked, written atomically, never over a file that is not halod's, listed and removed by part. */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#include "basic/macro.h"

/* The first line of every file halod owns, followed by the part that wrote it and the way to remove it:
 *   # Written by halod (haloctl apply); remove with haloctl apply --undo boot
 * halod recognises its files by this line alone (nothing else is kept about them), so a user who wants
 * to keep such a file and edit it by hand deletes the line, and halod leaves the file alone from then on.
 * Every format halod writes this way (shell, systemd's .conf, limits.conf, modules-load.d, TOML) takes
 * '#' for a comment. */
#define OWNED_FILE_MARKER "# Written by halod (haloctl apply); remove with haloctl apply --undo "

/* A part names what it writes ("boot", "limits"): lowercase letters, digits and '-', 1..32 of them. */
bool owned_file_part_is_valid(const char *part);

/* Whether text (a file's content) begins with halod's marker: 1 and the part in *ret_part (may be NULL),
 * 0 when it does not, -ENOMEM. */
int owned_file_text_part(const char *text, char **ret_part);

/* Reads the file at path (never through a symlink): 1 when it is halod's, with its part and the text
 * after the marker line (each may be NULL); 0 when it is someone else's; -ENOENT when there is none;
 * -EBADFD when it is not a regular file; other negative errno. */
int owned_file_read(const char *path, char **ret_part, char **ret_body);

/* Writes the marker for part and then body at path, with mode (root's ownership: the caller is root),
 * atomically: a temporary file beside it, fsync, rename, fsync of the directory; the directory is
 * created (0755) when missing, one level. A file there that is not halod's (or is halod's for another
 * part, or is not a regular file) is left alone: -EEXIST. 1 when written, 0 when the file already had
 * this content and mode (nothing is touched: an apply repeated changes nothing). */
int owned_file_write(const char *path, const char *part, const char *body, mode_t mode);

/* Removes the file at path when it is halod's for part (any part when part is NULL): 1 when removed,
 * 0 when there was none, -EEXIST when it is not halod's (left alone). */
int owned_file_remove(const char *path, const char *part);

/* The files directly in dir that are halod's for part (any part when NULL), sorted full paths in
 * *ret (NULL when none; a missing dir is none). Files that cannot be read are skipped. */
int owned_file_list(const char *dir, const char *part, char ***ret);

/* Rollback of several file writes, owned or not: each path is saved (its content and mode, or its
 * absence) before the first change to it; owned_file_rollback() puts every saved path back as it was,
 * last first, atomically each, and returns the first error met (it goes on after one). Saving a path a
 * second time keeps the first save. A rollback that is not run is freed without touching anything. */
typedef struct OwnedFileRollback OwnedFileRollback;
int owned_file_rollback_save(OwnedFileRollback **rb, const char *path);
int owned_file_rollback(OwnedFileRollback *rb);
OwnedFileRollback *owned_file_rollback_free(OwnedFileRollback *rb);
DEFINE_TRIVIAL_CLEANUP_FUNC(OwnedFileRollback *, owned_file_rollback_free);
