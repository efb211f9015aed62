/* SPDX-License-Identifier: MIT */
/* amdgpu.gttsize and ttm.pages_limit: their values and names as the kernel reads them. */
#include <errno.h>
#include <stdlib.h>

#include "basic/gtt-size.h"
#include "basic/kernel-param-name.h"

int gtt_size_parse(const char *s, uint64_t limit, uint64_t *ret) {
        unsigned long long v;
        char *end;

        if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
                return -EINVAL;
        errno = 0;
        v = strtoull(s, &end, 0);
        if (errno > 0 || *end || v > limit)
                return -ERANGE;
        *ret = v;
        return 0;
}

bool gtt_param_is_mib(const char *name) {
        return kernel_param_name_equal(name, GTT_PARAM);
}

bool gtt_param_is_pages(const char *name) {
        return kernel_param_name_equal(name, PAGES_PARAM);
}
