/* SPDX-License-Identifier: MIT */
/* The idiom of library calls that return negative errno and hand the caller a message for the user. */
#include <stdio.h>

#include "basic/errorf.h"

int verrorf(char **ret_message, int r, const char *format, va_list ap) {
        if (!ret_message)
                return r;
        if (vasprintf(ret_message, format, ap) < 0) {
                *ret_message = NULL;
                return -ENOMEM;
        }
        return r;
}

int errorf(char **ret_message, int r, const char *format, ...) {
        va_list ap;

        va_start(ap, format);
        r = verrorf(ret_message, r, format, ap);
        va_end(ap);
        return r;
}
