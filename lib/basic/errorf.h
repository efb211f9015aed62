/* SPDX-License-Identifier: MIT */
/* The idiom of library calls that return negative errno and hand the caller a message for the user. */
#pragma once

#include <stdarg.h>

#include "basic/macro.h"

/* Sets *ret_message (when ret_message is not NULL) to the formatted text and returns r, or -ENOMEM
 * (with *ret_message NULL) when the text cannot be allocated. */
int errorf(char **ret_message, int r, const char *format, ...) _printf_(3, 4);
int verrorf(char **ret_message, int r, const char *format, va_list ap) _printf_(3, 0);
