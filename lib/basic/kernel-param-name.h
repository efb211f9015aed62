/* SPDX-License-Identifier: MIT */
/* Kernel parameter names compared as the kernel compares them (parameq() in kernel/params.c). */
#pragma once

#include <stdbool.h>

#include "basic/macro.h"

/* Compares parameter names the way the kernel does: '-' and '_' are the same character. */
bool kernel_param_name_equal(const char *a, const char *b) _pure_;
