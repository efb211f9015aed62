/* SPDX-License-Identifier: MIT */
/* Loading halod-backend-nm.so on first use, and what the program lends it (lib/apply/nm-module.h). */

#include "config.h"

#include <dlfcn.h>
#include <stdio.h>
#include <systemd/sd-bus.h>

#include "apply/nm-module.h"
#include "basic/errorf.h"
#include "basic/macro.h"
#include "net/firewalld.h"
#include "nm-module-config.h"

static int host_firewall_check_zone(const char *zone, char **ret_error) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_(freep) char *message = NULL;

        /* Only a missing zone stops the apply; firewalld failing to answer leaves the zone to
         * NetworkManager, as when firewalld does not run. */
        if (firewalld_connect(&bus) > 0 && firewalld_check_zone(bus, zone, &message) == -ENOENT) {
                if (ret_error)
                        *ret_error = TAKE_PTR(message);
                return -ENOENT;
        }
        return 0;
}

static const NmModuleHost host = {
        .abi_version = NM_MODULE_ABI_VERSION,
        .size = sizeof(NmModuleHost),
        .link_plan_size = sizeof(LinkPlan),
        .firewall_check_zone = host_firewall_check_zone,
};

/* Loaded once and never unloaded: GLib does not support being unloaded. */
static const NmModule *loaded;

int nm_module_path(char **ret) {
        const char *dir = secure_getenv(NM_MODULE_DIR_ENV);
        char *path;

        if (isempty(dir))
                dir = NM_MODULE_DIR_DEFAULT;
        if (asprintf(&path, "%s/%s", dir, NM_MODULE_FILE) < 0)
                return -ENOMEM;
        *ret = path;
        return 0;
}

/* dlerror() usually starts with the file name, which the message already gives. */
static const char *dlerror_without_path(const char *path) {
        const char *e = dlerror() ?: "unknown error", *rest = startswith(e, path);

        return rest && startswith(rest, ": ") ? rest + 2 : e;
}

static int fail(char **ret_error, int r, const char *path, const char *what) {
        return errorf(
                ret_error,
                r,
                "halod's NetworkManager module could not be loaded from %s: %s; reinstall halod or use the "
                "netlink backend (halod --backend netlink)",
                path,
                what);
}

/* Returns 1 with the reason when m is not this build's module. Only the leading two fields are read
 * from a module of another ABI. */
static int module_mismatch(const NmModule *m, char **ret_why) {
        int r;

        if (!m)
                r = asprintf(
                        ret_why,
                        "it is from another build of halod and refused this halod's ABI %u",
                        NM_MODULE_ABI_VERSION);
        else if (m->abi_version != NM_MODULE_ABI_VERSION || m->size != sizeof(NmModule))
                r = asprintf(
                        ret_why,
                        "it is from another build of halod (module ABI %u, this halod's ABI %u)",
                        m->abi_version,
                        NM_MODULE_ABI_VERSION);
        else if (!streq_ptr(m->version, PACKAGE_VERSION))
                r = asprintf(
                        ret_why, "it is from halod %s, this is halod %s", strna(m->version), PACKAGE_VERSION);
        else
                return 0;
        if (r < 0) {
                *ret_why = NULL;
                return -ENOMEM;
        }
        return 1;
}

int nm_module_load(const NmModule **ret, char **ret_error) {
        _cleanup_(freep) char *path = NULL, *why = NULL;
        const NmModule *m;
        NmModuleEntry entry;
        void *handle;
        int r;

        if (loaded) {
                *ret = loaded;
                return 0;
        }

        r = nm_module_path(&path);
        if (r < 0)
                return r;

        /* RTLD_LOCAL: libnm and GLib stay out of the program's symbol scope; RTLD_NOW: a missing
         * symbol shows here, not in the middle of an apply. */
        handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (!handle)
                return fail(ret_error, -ELIBACC, path, dlerror_without_path(path));

        entry = (NmModuleEntry) dlsym(handle, NM_MODULE_ENTRY);
        if (!entry) {
                if (asprintf(&why, "it is not a halod module (%s)", dlerror_without_path(path)) < 0)
                        why = NULL;
                (void) dlclose(handle);
                return fail(ret_error, -ELIBBAD, path, strna(why));
        }
        m = entry(&host);
        r = module_mismatch(m, &why);
        if (r != 0) {
                (void) dlclose(handle);
                return fail(ret_error, r < 0 ? r : -ELIBBAD, path, strna(why));
        }

        loaded = m;
        *ret = m;
        return 0;
}
