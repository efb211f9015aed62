/* SPDX-License-Identifier: MIT */
/* Bounded whole-file reads and atomic writes. */
#pragma once

#include <stddef.h>
#include <stdio.h>

/* Reads a whole file, at most max bytes (-EFBIG beyond), always NUL-terminated. */
int read_full_file(const char *path, size_t max, char **ret, size_t *ret_size);
/* Reads at most max bytes from an open stream, NUL-terminated. */
int read_full_stream(FILE *f, size_t max, char **ret, size_t *ret_size);
/* Writes data to a temporary file beside path and renames it into place. */
int write_file_atomic(const char *path, const char *data, size_t size, unsigned mode);
