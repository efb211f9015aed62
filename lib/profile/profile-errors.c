/* SPDX-License-Identifier: MIT */
/* The profile's error list: one line per problem, "FILE:LINE:COL: key.path: what (expected …)", in
 * file order, capped. */
#include <stdio.h>

#include "basic/strv.h"
#include "profile/profile-internal.h"

int profile_errors_init(ProfileErrors *e, const char *display_path) {
        char buf[MESSAGE_TEXT_BUF];

        *e = (ProfileErrors){};
        e->display_path = strdup(text_for_message(display_path ?: "(string)", buf));
        return e->display_path ? 0 : -ENOMEM;
}

void profile_errors_done(ProfileErrors *e) {
        for (size_t i = 0; i < e->n_items; i++)
                free(e->items[i].text);
        e->items = mfree(e->items);
        e->n_items = 0;
        e->display_path = mfree(e->display_path);
}

static int error_compare(const void *a, const void *b) {
        const ProfileError *x = a, *y = b;

        if (x->line != y->line)
                return x->line < y->line ? -1 : 1;
        if (x->column != y->column)
                return x->column < y->column ? -1 : 1;
        return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The items form a max-heap by position while errors come in, so that however many are found, the
 * PROFILE_ERRORS_MAX earliest in the file are kept, in bounded memory. */
static void heap_sift_up(ProfileError *h, size_t i) {
        while (i > 0 && error_compare(&h[(i - 1) / 2], &h[i]) < 0) {
                ProfileError t = h[i];

                h[i] = h[(i - 1) / 2];
                h[(i - 1) / 2] = t;
                i = (i - 1) / 2;
        }
}

static void heap_sift_down(ProfileError *h, size_t n, size_t i) {
        for (;;) {
                size_t largest = i, l = 2 * i + 1, r = 2 * i + 2;
                ProfileError t;

                if (l < n && error_compare(&h[l], &h[largest]) > 0)
                        largest = l;
                if (r < n && error_compare(&h[r], &h[largest]) > 0)
                        largest = r;
                if (largest == i)
                        return;
                t = h[i];
                h[i] = h[largest];
                h[largest] = t;
                i = largest;
        }
}

bool profile_errors_would_keep(ProfileErrors *e, unsigned line, unsigned column) {
        ProfileError probe = { .line = line ?: 1, .column = column ?: 1, .seq = e->n_seen };

        if (e->n_items < PROFILE_ERRORS_MAX)
                return true;
        if (error_compare(&probe, &e->items[0]) < 0)
                return true;
        e->overflow = true;
        return false;
}

void profile_errors_addv(
        ProfileErrors *e, unsigned line, unsigned column, const char *key_path, const char *format, va_list ap) {
        _cleanup_(freep) char *message = NULL;
        ProfileError new = {
                .line = line ?: 1,
                .column = column ?: 1,
                .seq = e->n_seen++,
        };

        if (e->oom)
                return;
        if (!e->items) {
                e->items = calloc(PROFILE_ERRORS_MAX, sizeof(ProfileError));
                if (!e->items) {
                        e->oom = true;
                        return;
                }
        }
        if (e->n_items >= PROFILE_ERRORS_MAX) {
                e->overflow = true;
                /* Later in the file than every kept error: drop it without formatting. */
                if (error_compare(&new, &e->items[0]) > 0)
                        return;
        }

        if (vasprintf(&message, format, ap) < 0) {
                message = NULL;
                e->oom = true;
                return;
        }
        if (isempty(key_path))
                new.text = TAKE_PTR(message);
        else if (asprintf(&new.text, "%s: %s", key_path, message) < 0) {
                e->oom = true;
                return;
        }

        if (e->n_items < PROFILE_ERRORS_MAX) {
                e->items[e->n_items] = new;
                heap_sift_up(e->items, e->n_items++);
        } else {
                free(e->items[0].text);
                e->items[0] = new;
                heap_sift_down(e->items, e->n_items, 0);
        }
}

void profile_errors_add(
        ProfileErrors *e, unsigned line, unsigned column, const char *key_path, const char *format, ...) {
        va_list ap;

        va_start(ap, format);
        profile_errors_addv(e, line, column, key_path, format, ap);
        va_end(ap);
}

int profile_errors_to_strv(ProfileErrors *e, char ***ret) {
        _cleanup_(strv_freep) char **l = NULL;
        int r;

        if (e->oom)
                return -ENOMEM;

        if (e->n_items > 1)
                qsort(e->items, e->n_items, sizeof(ProfileError), error_compare);

        for (size_t i = 0; i < e->n_items; i++) {
                r = strv_extendf(
                        &l,
                        "%s:%u:%u: %s",
                        e->display_path,
                        e->items[i].line,
                        e->items[i].column,
                        e->items[i].text);
                if (r < 0)
                        return r;
        }
        if (e->overflow) {
                r = strv_extendf(
                        &l,
                        "%s: too many errors, stopped after the first %u (expected at most %u errors; fix these and run again)",
                        e->display_path,
                        PROFILE_ERRORS_MAX,
                        PROFILE_ERRORS_MAX);
                if (r < 0)
                        return r;
        }

        *ret = TAKE_PTR(l);
        return 0;
}

const char *text_for_message(const char *s, char *buf) {
        size_t n = 0;

        for (const unsigned char *c = (const unsigned char *) s; *c; c++) {
                if (n >= MESSAGE_TEXT_MAX) {
                        /* Do not end inside a UTF-8 sequence. */
                        while (n > 0 && ((unsigned char) buf[n - 1] & 0xc0) == 0x80)
                                n--;
                        if (n > 0 && ((unsigned char) buf[n - 1] & 0xc0) == 0xc0)
                                n--;
                        memcpy(buf + n, "…", strlen("…"));
                        n += strlen("…");
                        break;
                }
                if (*c == '\n') {
                        buf[n++] = '\\';
                        buf[n++] = 'n';
                } else if (*c == '\t') {
                        buf[n++] = '\\';
                        buf[n++] = 't';
                } else if (*c < 0x20 || *c == 0x7f) {
                        (void) snprintf(buf + n, 5, "\\x%02x", *c);
                        n += 4;
                } else
                        buf[n++] = (char) *c;
        }
        buf[n] = '\0';
        return buf;
}

void key_path_append(char *path, const char *segment) {
        char buf[MESSAGE_TEXT_BUF];
        size_t n = strlen(path);

        (void) snprintf(path + n, KEY_PATH_MAX - n, "%s%s", n > 0 ? "." : "", text_for_message(segment, buf));
}

void key_path_append_index(char *path, size_t index) {
        size_t n = strlen(path);

        (void) snprintf(path + n, KEY_PATH_MAX - n, "[%zu]", index);
}

char *key_path_join(char *dst, const char *parent, const char *child) {
        /* Copy first: dst may be parent. */
        if (dst != parent)
                (void) snprintf(dst, KEY_PATH_MAX, "%s", parent);
        key_path_append(dst, child);
        return dst;
}
