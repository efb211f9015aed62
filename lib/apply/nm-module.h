/* SPDX-License-Identifier: MIT */
/* The contract between libhalod and halod-backend-nm.so, the module that carries everything linked
 * against libnm (and so GLib), loaded with dlopen() only when an apply goes through NetworkManager.
 * No GLib types here: this header is included on both sides. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "apply/backend.h"

/* Raise on any change to NmModuleHost, NmModule, the entry function or the types they pass
 * (LinkPlan and what it holds, Ipv4Prefix). Both sides refuse a partner of another version. */
#define NM_MODULE_ABI_VERSION 4U

/* The module's file name in its directory, and the directory: $HALOD_MODULE_DIR (a testing aid for
 * the build tree, halod(8)), else the one it is installed in (libdir/halod). */
#define NM_MODULE_FILE "halod-backend-nm.so"
#define NM_MODULE_DIR_ENV "HALOD_MODULE_DIR"

/* What the program lends the module. The module keeps no state of its own beyond this pointer:
 * whatever needs the program's libraries (sd-bus, firewalld's API) is done here, on the program's
 * side of the boundary. */
typedef struct NmModuleHost {
        uint32_t abi_version; /* NM_MODULE_ABI_VERSION */
        uint32_t size;        /* sizeof(NmModuleHost) */
        uint32_t link_plan_size;
        /* Asks firewalld whether it has zone: 0 when it does, or does not run (or cannot be asked);
         * -ENOENT and a message for the user in *ret_error when it runs and has no such zone. Whether
         * the interface is in another zone now is the plan's to say (link_plan_shows_settings()). */
        int (*firewall_check_zone)(const char *zone, char **ret_error);
} NmModuleHost;

/* What the module gives back. Strings it returns are malloc()ed; the caller free()s them. */
typedef struct NmModule {
        uint32_t abi_version; /* NM_MODULE_ABI_VERSION */
        uint32_t size;        /* sizeof(NmModule) */
        const char *version;  /* PACKAGE_VERSION of the build it comes from */
        /* nm_apply_link() of lib/apply/nm.h. */
        int (*apply_link)(const LinkPlan *lp, unsigned timeout_ms, char **ret_error);
        /* nm_unadopt_link() of lib/apply/nm.h. */
        int (*unadopt_link)(const char *link, const char *ifname, unsigned timeout_ms, char **ret_error);
} NmModule;

/* The module's one exported symbol, found with one dlsym(). Returns NULL when it does not speak
 * host's ABI. The host must outlive every call into the module (it is the program's, static). */
#define NM_MODULE_ENTRY "halod_nm_module_init"
typedef const NmModule *(*NmModuleEntry)(const NmModuleHost *host);
const NmModule *halod_nm_module_init(const NmModuleHost *host);

/* libhalod's side (lib/apply/nm-load.c): loads the module on first use, with RTLD_NOW|RTLD_LOCAL, and keeps
 * it loaded (GLib cannot be unloaded). Returns 0 and the module's table; on failure a negative errno
 * and a message naming the file and what went wrong in *ret_error:
 *   -ELIBACC  the module or a library it needs could not be loaded (dlerror())
 *   -ELIBBAD  it is not a halod module of this version
 * A failure is not remembered: the next call tries again (after a reinstall, say). */
int nm_module_load(const NmModule **ret, char **ret_error);
/* The file nm_module_load() loads ($HALOD_MODULE_DIR or the built-in directory). */
int nm_module_path(char **ret);
