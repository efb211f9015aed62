/* SPDX-License-Identifier: MIT */
/* Kernel parameter names compared as the kernel's parameq() does. */
#include "basic/kernel-param-name.h"

static char dash_to_underscore(char c) {
        return c == '-' ? '_' : c;
}

bool kernel_param_name_equal(const char *a, const char *b) {
        for (; *a && *b; a++, b++)
                if (dash_to_underscore(*a) != dash_to_underscore(*b))
                        return false;
        return *a == *b;
}
