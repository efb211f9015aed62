/* SPDX-License-Identifier: MIT */
/* rdma-core's libibverbs dlopen()s every provider listed in /etc/libibverbs.d (sixteen on Debian 12,
 * with libmlx4, libmlx5, libefa and libmana beside them) as soon as one device in sysfs has no
 * provider registered yet. Measured in the vm suite's guests, they made 0.75 MiB of halod's RSS on a
 * soft-RoCE node (bench/RESULTS.md). A provider registers itself when it is loaded, so loading the
 * one each device needs first leaves libibverbs nothing to look for. */
#include <dirent.h>
#include <dlfcn.h>
#include <glob.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "basic/macro.h"
#include "config.h"
#include "rdma/verbs-provider.h"

#if HAVE_LIBIBVERBS
#        include "rdma/dlopen-verbs.h"
#endif

/* The kernel drivers of RDMA devices' parents (up to the first '.', for an auxiliary driver such as
 * "irdma.gen2") and rdma-core's provider for each (its providers/ directory). */
static const struct {
        const char *driver;
        const char *provider;
} provider_table[] = {
        { "mlx5_core", "mlx5" },  { "mlx5_ib", "mlx5" },    { "mlx4_core", "mlx4" },
        { "ice", "irdma" },       { "i40e", "irdma" },      { "irdma", "irdma" },
        { "bnxt_en", "bnxt_re" }, { "bnxt_re", "bnxt_re" }, { "efa", "efa" },
        { "erdma", "erdma" },     { "mana", "mana" },       { "vmw_pvrdma", "vmw_pvrdma" },
        { "cxgb4", "cxgb4" },
};

const char *verbs_provider_for_driver(const char *driver) {
        size_t n;

        if (!driver)
                return NULL;
        n = strcspn(driver, ".");
        for (size_t i = 0; i < ELEMENTSOF(provider_table); i++)
                if (strlen(provider_table[i].driver) == n && strncmp(provider_table[i].driver, driver, n) == 0)
                        return provider_table[i].provider;
        return NULL;
}

const char *verbs_provider_for_software(const char *node_type) {
        if (!node_type)
                return NULL;
        if (strncmp(node_type, "1:", 2) == 0)
                return "rxe"; /* a channel adapter over a netdev: soft-RoCE */
        if (strncmp(node_type, "4:", 2) == 0)
                return "siw"; /* an RNIC over a netdev: soft-iWARP */
        return NULL;
}

/* The provider of the device dev below class (…/class/infiniband), or NULL. */
static const char *device_provider(const char *class, const char *dev) {
        _cleanup_(freep) char *path = NULL;
        _cleanup_(fclosep) FILE *f = NULL;
        char target[PATH_MAX], node_type[32];
        ssize_t n;

        if (asprintf(&path, "%s/%s/device/driver", class, dev) < 0)
                return NULL;
        n = readlink(path, target, sizeof(target) - 1);
        if (n > 0) {
                const char *slash;

                target[n] = 0;
                slash = strrchr(target, '/');
                return verbs_provider_for_driver(slash ? slash + 1 : target);
        }
        /* No parent device: a software device, which names its netdev in "parent". */
        path = mfree(path);
        if (asprintf(&path, "%s/%s/parent", class, dev) < 0 || access(path, F_OK) < 0)
                return NULL;
        path = mfree(path);
        if (asprintf(&path, "%s/%s/node_type", class, dev) < 0)
                return NULL;
        f = fopen(path, "re");
        if (!f || !fgets(node_type, sizeof(node_type), f))
                return NULL;
        return verbs_provider_for_software(node_type);
}

int verbs_providers_wanted(const char *sysfs_root, const char **ret, size_t max) {
        _cleanup_(freep) char *class = NULL;
        _cleanup_(closedirp) DIR *d = NULL;
        struct dirent *de;
        size_t n = 0;

        if (asprintf(&class, "%s/class/infiniband", sysfs_root) < 0)
                return -ENOMEM;
        d = opendir(class);
        if (!d)
                return -errno;
        while ((de = readdir(d))) {
                const char *p;
                bool seen = false;

                if (de->d_name[0] == '.')
                        continue;
                p = device_provider(class, de->d_name);
                if (!p)
                        return -ENOENT;
                for (size_t i = 0; i < n; i++)
                        seen = seen || streq(ret[i], p);
                if (seen)
                        continue;
                if (n == max)
                        return -E2BIG;
                ret[n++] = p;
        }
        return (int) n;
}

#if HAVE_LIBIBVERBS && !DLOPEN_VERBS_LINKED

/* dlopen()s lib<name>-rdmav*.so from dir; false when there is none or it does not load. */
static bool load_provider(const char *dir, const char *name) {
        _cleanup_(freep) char *pattern = NULL;
        glob_t g = {};
        bool loaded = false;

        if (asprintf(&pattern, "%s/lib%s-rdmav*.so", dir, name) < 0)
                return false;
        if (glob(pattern, 0, NULL, &g) == 0)
                /* Never closed, as libibverbs never closes the providers it loads: its devices
                 * point into them. */
                for (size_t i = 0; i < g.gl_pathc && !loaded; i++)
                        loaded = dlopen(g.gl_pathv[i], RTLD_NOW) != NULL;
        globfree(&g);
        return loaded;
}

/* libibverbs' provider directory: "libibverbs" beside the libibverbs.so.1 that is loaded. */
static char *provider_dir(void) {
        Dl_info info = {};
        const char *slash;
        char *dir;

        if (dladdr((void *) sym_ibv_get_device_list, &info) == 0 || !info.dli_fname)
                return NULL;
        slash = strrchr(info.dli_fname, '/');
        if (!slash)
                return NULL;
        if (asprintf(&dir, "%.*s/libibverbs", (int) (slash - info.dli_fname), info.dli_fname) < 0)
                return NULL;
        return dir;
}

static int preload_result;

static void preload(void) {
        _cleanup_(freep) char *dir = NULL;
        const char *wanted[8];
        int n;

        n = verbs_providers_wanted("/sys", wanted, ELEMENTSOF(wanted));
        if (n <= 0)
                return; /* a device whose provider libibverbs finds itself, loading them all */
        dir = provider_dir();
        if (!dir)
                return;
        for (int i = 0; i < n; i++)
                if (load_provider(dir, wanted[i]))
                        preload_result++;
}

int verbs_provider_preload(void) {
        static pthread_once_t once = PTHREAD_ONCE_INIT;

        (void) pthread_once(&once, preload);
        return preload_result;
}

#else

int verbs_provider_preload(void) {
        /* The test double plays libibverbs: there is nothing to load. */
        return 0;
}

#endif
