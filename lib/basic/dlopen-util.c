/* SPDX-License-Identifier: MIT */
/* Loading an optional library on first use and resolving its functions once (lib/basic/dlopen-util.h). */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>

#include "basic/dlopen-util.h"
#include "basic/errorf.h"
#include "basic/macro.h"

/* dlerror() usually starts with the file name, which the message already gives. */
static const char *dlerror_without_name(const char *name) {
        const char *e = dlerror() ?: "unknown error", *rest = startswith(e, name);

        return rest && startswith(rest, ": ") ? rest + 2 : e;
}

/* Called with l->lock held. */
static int load(DlopenLibrary *l, char **ret_error) {
        _cleanup_(freep) void **found = NULL;
        void *handle;

        if (l->linked) {
                for (size_t i = 0; i < l->n_symbols; i++)
                        *l->symbols[i].pointer = l->symbols[i].linked;
                return 0;
        }

        found = calloc(l->n_symbols > 0 ? l->n_symbols : 1, sizeof(void *));
        if (!found)
                return -ENOMEM;

        /* RTLD_LOCAL: its symbols (and libnl's) stay out of the program's scope; RTLD_NOW: a missing
         * symbol of a library it needs shows here, not in the middle of a check. */
        handle = dlopen(l->soname, RTLD_NOW | RTLD_LOCAL);
        if (!handle)
                return errorf(
                        ret_error,
                        -ELIBACC,
                        "%s could not be loaded (%s): install %s",
                        l->soname,
                        dlerror_without_name(l->soname),
                        l->install);

        for (size_t i = 0; i < l->n_symbols; i++) {
                (void) dlerror();
                found[i] = dlsym(handle, l->symbols[i].name);
                if (!found[i]) {
                        int r = errorf(
                                ret_error,
                                -ELIBBAD,
                                "%s has no %s: it is older than this halod needs; install a newer %s",
                                l->soname,
                                l->symbols[i].name,
                                l->install);
                        (void) dlclose(handle);
                        return r;
                }
        }

        /* All or none: a caller never sees half a table. The handle stays open for good. */
        for (size_t i = 0; i < l->n_symbols; i++)
                *l->symbols[i].pointer = found[i];
        return 0;
}

int dlopen_library(DlopenLibrary *l, char **ret_error) {
        int r = 0;

        if (atomic_load_explicit(&l->loaded, memory_order_acquire))
                return 0;

        (void) pthread_mutex_lock(&l->lock);
        if (!atomic_load_explicit(&l->loaded, memory_order_relaxed)) {
                r = load(l, ret_error);
                if (r >= 0)
                        atomic_store_explicit(&l->loaded, true, memory_order_release);
        }
        (void) pthread_mutex_unlock(&l->lock);
        return r;
}
