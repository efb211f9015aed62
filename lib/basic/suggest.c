/* SPDX-License-Identifier: MIT */
/* "Did you mean …?": picks the known word within a small edit distance of a misspelt one. */
#include <ctype.h>
#include <stdint.h>

#include "basic/suggest.h"

#define WORD_MAX 63U

size_t edit_distance(const char *a, const char *b) {
        /* Three rows of the dynamic-programming table are enough for transpositions. */
        size_t prev2[WORD_MAX + 2], prev[WORD_MAX + 2], cur[WORD_MAX + 2];
        size_t la = strlen(a), lb = strlen(b);

        if (la > WORD_MAX || lb > WORD_MAX)
                return SIZE_MAX;

        for (size_t j = 0; j <= lb; j++)
                prev[j] = j;

        for (size_t i = 1; i <= la; i++) {
                cur[0] = i;
                for (size_t j = 1; j <= lb; j++) {
                        char ca = (char) tolower((unsigned char) a[i - 1]);
                        char cb = (char) tolower((unsigned char) b[j - 1]);
                        size_t cost = ca == cb ? 0 : 1;
                        size_t best = prev[j] + 1; /* deletion */

                        if (cur[j - 1] + 1 < best) /* insertion */
                                best = cur[j - 1] + 1;
                        if (prev[j - 1] + cost < best) /* substitution */
                                best = prev[j - 1] + cost;
                        if (i > 1 && j > 1 && ca == tolower((unsigned char) b[j - 2]) &&
                            tolower((unsigned char) a[i - 2]) == cb && prev2[j - 2] + 1 < best)
                                best = prev2[j - 2] + 1; /* transposition */
                        cur[j] = best;
                }
                memcpy(prev2, prev, sizeof(size_t) * (lb + 1));
                memcpy(prev, cur, sizeof(size_t) * (lb + 1));
        }
        return prev[lb];
}

/* How many edits still look like a typo rather than a different word. */
static size_t typo_threshold(const char *candidate) {
        size_t l = strlen(candidate);

        return l <= 3 ? 1 : l <= 6 ? 2 : 3;
}

const char *suggest_closest(const char *word, const char *const *candidates) {
        const char *best = NULL;
        size_t best_distance = SIZE_MAX;

        for (const char *const *c = candidates; c && *c; c++) {
                size_t lw = strlen(word), lc = strlen(*c), d;

                /* Each edit changes the length by at most one: far lengths need no table. */
                if ((lw > lc ? lw - lc : lc - lw) > typo_threshold(*c))
                        continue;
                d = edit_distance(word, *c);

                if (d <= typo_threshold(*c) && d < best_distance) {
                        best = *c;
                        best_distance = d;
                }
        }
        return best;
}
