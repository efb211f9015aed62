/* SPDX-License-Identifier: MIT */
/* amdgpu.gttsize (MiB) and ttm.pages_limit (4 KiB pages) on the kernel command line: how the kernel
 * reads their values and when the two agree. One rule for the profile's validation and gpu.gtt. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "basic/macro.h"

#define GTT_PARAM "amdgpu.gttsize"
#define PAGES_PARAM "ttm.pages_limit"

/* amdgpu.gttsize is in MiB, ttm.pages_limit in 4 KiB pages: one MiB is 256 pages. */
#define TTM_PAGES_PER_MIB 256U
#define TTM_PAGE_SIZE 4096U

/* A value as the kernel's kstrto*(s, 0, ...) reads it: decimal, 0x hex or 0 octal, no sign; at most
 * limit. Returns 0, -EINVAL for an empty or signed value, -ERANGE for anything else it refuses. */
int gtt_size_parse(const char *s, uint64_t limit, uint64_t *ret);
/* Whether a parameter name is amdgpu.gttsize or ttm.pages_limit ('-' and '_' are the same to the
 * kernel's parameter parser). */
bool gtt_param_is_mib(const char *name) _pure_;
bool gtt_param_is_pages(const char *name) _pure_;
/* Whether the two set the same size (pages = MiB × 256). */
static inline bool gtt_pages_agree(uint64_t mib, uint64_t pages) {
        return pages == mib * TTM_PAGES_PER_MIB;
}
