/* SPDX-License-Identifier: MIT */
/* The RDMA baseline file on disk: read only when nobody but root (or the reader itself) could have
 * written it, written atomically. halod reads it as the user halod; root's haloctl writes it and reads
 * it: a file the user halod could write is not trusted by root (halod(8), SECURITY). */
#pragma once

#include "basic/host.h"
#include "rdma/rdma-baseline.h"

/* Reads RDMA_BASELINE_PATH below the host root. The directory and the file must be owned by root or
 * the effective user and writable by nobody else, the file a regular file (no symlink is followed);
 * each is judged on the descriptor that is then used. Returns 0 with *ret; -ENOENT when there is none
 * (nothing recorded yet); -EPERM when not trusted, -EBADMSG or -EPROTONOSUPPORT when it does not
 * parse, -EFBIG, or the errno of reading it: each with ret_error naming the file and saying what to do
 * (may be NULL). */
int rdma_baseline_read(const Host *h, RdmaBaselineFile *ret, char **ret_error);

/* Writes f to RDMA_BASELINE_PATH below the host root: a temporary file beside it, mode 0644, synced,
 * renamed into place. Creates the directory (mode 0755) when missing; refuses (-EPERM) one that is
 * not trusted as rdma_baseline_read() judges it. Returns 0, or negative errno with ret_error. */
int rdma_baseline_write(const Host *h, const RdmaBaselineFile *f, char **ret_error);
