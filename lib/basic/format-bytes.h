/* SPDX-License-Identifier: MIT */
/* A byte count as halod prints it: the checks' limits and sizes, and the memlock readers' lines. */
#pragma once

#include <stdint.h>

/* "unlimited", "64 MiB", "8 KiB", "100 B". buf needs BYTES_STRING_MAX bytes. */
#define BYTES_STRING_MAX 32U
const char *format_bytes(uint64_t bytes, char *buf);
