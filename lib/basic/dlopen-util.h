/* SPDX-License-Identifier: MIT */
/* Optional libraries loaded with dlopen() on first use, their functions resolved once into sym_
 * pointers (systemd's dlopen_many_sym_or_warn() pattern), so that halod and haloctl start without
 * them: libibverbs (lib/rdma/dlopen-verbs.h) and libpci (lib/nic/dlopen-pci.h). */
#pragma once

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

/* sym_foo: a pointer of foo's type, set when the library is loaded. */
#define DLSYM_PROTOTYPE(func) extern __typeof__(func) *sym_##func
#define DLSYM_DEFINE(func) __typeof__(func) *sym_##func = NULL

typedef struct DlopenSymbol {
        const char *name;
        void **pointer; /* &sym_foo */
        void *linked;   /* foo itself, when the program is linked with it (DlopenLibrary.linked) */
} DlopenSymbol;

#define DLSYM_ARG(func) \
        { .name = #func, .pointer = (void **) &sym_##func }
/* For a build that links the symbols in (the unit tests' libibverbs test double). */
#define DLSYM_ARG_LINKED(func) \
        { .name = #func, .pointer = (void **) &sym_##func, .linked = (void *) func }

typedef struct DlopenLibrary {
        const char *soname;  /* "libibverbs.so.1": the ABI the code was built against */
        const char *install; /* what the user installs to get it, for the message */
        const DlopenSymbol *symbols;
        size_t n_symbols;
        /* The symbols are the program's own (.linked): nothing is loaded. Set by the unit tests that
         * link a test double in place of the library. */
        bool linked;
        pthread_mutex_t lock;
        atomic_bool loaded;
} DlopenLibrary;

#define DLOPEN_LIBRARY_INIT .lock = PTHREAD_MUTEX_INITIALIZER

/* Loads l->soname with dlopen(RTLD_NOW|RTLD_LOCAL), once, and sets every symbol's pointer, all or
 * none. The library is never unloaded. Thread-safe; cheap once loaded. Returns 0 when the pointers
 * are set; else, with a message for the user in *ret_error (may be NULL; untouched on success):
 *   -ELIBACC  the library (or one it needs) could not be loaded: dlerror() and what to install
 *   -ELIBBAD  it was loaded but lacks a symbol (too old)
 * A failure is not remembered: the next call tries again (after the package was installed). */
int dlopen_library(DlopenLibrary *l, char **ret_error);
