/* SPDX-License-Identifier: MIT */
/* "Did you mean …?": the known word nearest to a misspelt one, by edit distance. */
#pragma once

#include <stddef.h>

#include "basic/macro.h"

/* Optimal-string-alignment distance (insertions, deletions, substitutions, adjacent transpositions),
 * case-insensitive. Words longer than 63 bytes are "far" (SIZE_MAX). */
size_t edit_distance(const char *a, const char *b) _pure_;

/* The candidate closest to word, or NULL when none is close enough to be a likely typo. Ties go to
 * the earlier candidate. candidates is NULL-terminated. */
const char *suggest_closest(const char *word, const char *const *candidates) _pure_;
