/* SPDX-License-Identifier: MIT */
/* The one number halod takes from /proc/meminfo. */
#pragma once

#include <stdint.h>

/* MemTotal of a /proc/meminfo text, in bytes: -ENOENT when it has no MemTotal line, -EBADMSG when
 * that line is not "MemTotal: <number> kB". */
int meminfo_total(const char *text, uint64_t *ret);
