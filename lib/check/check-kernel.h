/* SPDX-License-Identifier: MIT */
/* The kernel. checks: kernel.cmdline, kernel.cmdline-next, kernel.gtt. */
#pragma once

#include "check/checks.h"

/* amdgpu.gttsize is in MiB, ttm.pages_limit in 4 KiB pages: one MiB is 256 pages. */
#define TTM_PAGES_PER_MIB 256U
#define TTM_PAGE_SIZE 4096U

int check_kernel(const NodeContext *c, CheckList *out);

/* The parts, for tests. */
int check_kernel_cmdline(const NodeContext *c, CheckList *out);
int check_kernel_cmdline_next(const NodeContext *c, CheckList *out);
int check_kernel_gtt(const NodeContext *c, CheckList *out);
