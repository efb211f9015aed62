/* SPDX-License-Identifier: MIT */
/* NULL-terminated string vectors: the one list type the library passes around. */
#pragma once

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "basic/macro.h"

#define STRV_FOREACH(s, l) for (char **s = (l); s && *s; s++)

char **strv_free(char **l);
DEFINE_TRIVIAL_CLEANUP_FUNC(char **, strv_free);

size_t strv_length(char *const *l);
bool strv_contains(char *const *l, const char *s);
/* The same strings in the same order; NULL is the empty list. */
bool strv_equal(char *const *a, char *const *b) _pure_;
/* Removes (and frees) every entry equal to s, in place. */
void strv_remove(char **l, const char *s);
/* Appends a copy of s. Returns 0 or -ENOMEM. */
int strv_extend(char ***l, const char *s);
/* Appends s, taking ownership of it (freed on failure too). */
int strv_consume(char ***l, char *s);
int strv_extendf(char ***l, const char *fmt, ...) _printf_(2, 3);
/* Sets a "name=value" assignment in an environment-style strv: replaces the last entry of that name
 * (the one lookups read), else appends. Takes ownership of assignment (freed on failure too).
 * -EINVAL when it has no name before its '='. */
int strv_env_replace_consume(char ***l, char *assignment);
/* Joins with separator; returns NULL on allocation failure. */
char *strv_join(char *const *l, const char *separator);
