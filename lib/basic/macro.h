/* SPDX-License-Identifier: MIT */
/* Ownership helpers: _cleanup_ attributes, TAKE_PTR/TAKE_FD, and a few small idioms. */
#pragma once

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _printf_(a, b) __attribute__((format(printf, a, b)))
#define _unused_ __attribute__((unused))
#define _pure_ __attribute__((pure))
#define _noreturn_ __attribute__((noreturn))

#define ELEMENTSOF(x) (sizeof(x) / sizeof((x)[0]))

/* A macro's value as a string literal: STRINGIFY(PROFILE_LINK_MTU_MAX) is "9216". */
#define STRINGIFY(x) STRINGIFY_LITERAL(x)
#define STRINGIFY_LITERAL(x) #x

/* The largest errno (the kernel's MAX_ERRNO): a negative number below -ERRNO_MAX is not an error code. */
#define ERRNO_MAX 4095

#define TAKE_PTR(p)                          \
        ({                                   \
                __typeof__(p) _taken_ = (p); \
                (p) = NULL;                  \
                _taken_;                     \
        })

#define TAKE_FD(fd)                    \
        ({                             \
                int _taken_fd_ = (fd); \
                (fd) = -EBADF;         \
                _taken_fd_;            \
        })

#define DEFINE_TRIVIAL_CLEANUP_FUNC(type, func) \
        static inline void func##p(type *p) {   \
                if (*p)                         \
                        *p = func(*p);          \
        }

static inline void freep(void *p) {
        free(*(void **) p);
}

static inline void closep(int *fd) {
        if (*fd >= 0)
                (void) close(*fd);
        *fd = -EBADF;
}

static inline void fclosep(FILE **f) {
        if (*f)
                (void) fclose(*f);
        *f = NULL;
}

static inline void closedirp(DIR **d) {
        if (*d)
                (void) closedir(*d);
        *d = NULL;
}

static inline int safe_close(int fd) {
        if (fd >= 0)
                (void) close(fd);
        return -EBADF;
}

static inline void *mfree(void *p) {
        free(p);
        return NULL;
}

static inline int streq_ptr(const char *a, const char *b) {
        if (!a || !b)
                return a == b;
        return strcmp(a, b) == 0;
}

#define streq(a, b) (strcmp((a), (b)) == 0)
#define strneq(a, b, n) (strncmp((a), (b), (n)) == 0)
#define isempty(s) (!(s) || (s)[0] == '\0')
#define strna(s) ((s) ?: "n/a")
#define strempty(s) ((s) ?: "")

/* Returns a pointer to the rest of s after prefix, or NULL. */
static inline const char *startswith(const char *s, const char *prefix) {
        size_t l = strlen(prefix);
        return strncmp(s, prefix, l) == 0 ? s + l : NULL;
}

/* Converts errno to a negative value, never zero, for library returns. */
static inline int negative_errno(void) {
        return errno > 0 ? -errno : -EIO;
}

/* The string table of an enum (the house's enums end in _FOO_MAX, _FOO_INVALID = -EINVAL): defines
 * name##_to_string() (NULL out of range) and name##_from_string() (-EINVAL for NULL or an unknown
 * string) over `static const char *const name##_table[_FOO_MAX]`; a hole in the table matches nothing. */
#define DEFINE_STRING_TABLE_LOOKUP_TO_STRING(name, type)             \
        const char *name##_to_string(type i) {                       \
                if (i < 0 || (size_t) i >= ELEMENTSOF(name##_table)) \
                        return NULL;                                 \
                return name##_table[i];                              \
        }

#define DEFINE_STRING_TABLE_LOOKUP(name, type)                             \
        DEFINE_STRING_TABLE_LOOKUP_TO_STRING(name, type)                   \
        type name##_from_string(const char *s) {                           \
                for (size_t i = 0; s && i < ELEMENTSOF(name##_table); i++) \
                        if (name##_table[i] && streq(name##_table[i], s))  \
                                return (type) i;                           \
                return (type) -EINVAL;                                     \
        }
