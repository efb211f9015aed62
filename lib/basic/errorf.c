/* SPDX-License-Identifier: MIT */
/* The idiom of library calls that return negative errno and hand the caller a message for the user. */
#include <stdarg.h>
#include <stdio.h>

#include "basic/errorf.h"

int errorf(char **ret_message, int r, const char *format, ...) {
        va_list ap;
        int k;

        if (!ret_message)
                return r;
        va_start(ap, format);
        k = vasprintf(ret_message, format, ap);
        va_end(ap);
        if (k < 0) {
                *ret_message = NULL;
                return -ENOMEM;
        }
        return r;
}
