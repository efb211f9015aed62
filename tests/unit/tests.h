/* SPDX-License-Identifier: MIT */
/* Minimal assertions for the unit tests: print where and what, then abort. */
#pragma once

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#define ASSERT_TRUE(expr)                                                                            \
        do {                                                                                         \
                if (!(expr)) {                                                                       \
                        fprintf(stderr, "%s:%d: assertion failed: %s\n", __FILE__, __LINE__, #expr); \
                        abort();                                                                     \
                }                                                                                    \
        } while (0)

#define ASSERT_INT_EQ(a, b)                                             \
        do {                                                            \
                intmax_t _a = (intmax_t) (a), _b = (intmax_t) (b);      \
                if (_a != _b) {                                         \
                        fprintf(stderr,                                 \
                                "%s:%d: %s == %s failed: %jd != %jd\n", \
                                __FILE__,                               \
                                __LINE__,                               \
                                #a,                                     \
                                #b,                                     \
                                _a,                                     \
                                _b);                                    \
                        abort();                                        \
                }                                                       \
        } while (0)

#define ASSERT_STR_EQ(a, b)                                                                          \
        do {                                                                                         \
                const char *_a = (a), *_b = (b);                                                     \
                if (!_a || !_b || strcmp(_a, _b) != 0) {                                             \
                        fprintf(stderr,                                                              \
                                "%s:%d: %s == %s failed:\n  got:      \"%s\"\n  expected: \"%s\"\n", \
                                __FILE__,                                                            \
                                __LINE__,                                                            \
                                #a,                                                                  \
                                #b,                                                                  \
                                _a ? _a : "(null)",                                                  \
                                _b ? _b : "(null)");                                                 \
                        abort();                                                                     \
                }                                                                                    \
        } while (0)

#define ASSERT_OK(expr)                                                                                      \
        do {                                                                                                 \
                int _r = (expr);                                                                             \
                if (_r < 0) {                                                                                \
                        fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #expr, strerror(-_r)); \
                        abort();                                                                             \
                }                                                                                            \
        } while (0)

/* Directory of the test fixtures, set by meson. */
#ifndef TEST_DATA_DIR
#        define TEST_DATA_DIR "tests/data"
#endif

/* fork() for a child that serves the test until it is killed: the child dies with the test, so that
 * a test that aborts does not leave it running, holding meson's output pipe open until the timeout. */
static inline pid_t fork_server(void) {
        pid_t parent = getpid(), pid = fork();

        ASSERT_TRUE(pid >= 0);
        if (pid == 0 && (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent))
                _exit(EXIT_FAILURE);
        return pid;
}
