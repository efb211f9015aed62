/* SPDX-License-Identifier: MIT */
/* The NetworkManager backend on the program's side: choosing it loads nothing, libnm arrives only with
 * halod-backend-nm.so on the first apply, and a module that is missing, broken or another build's is
 * a clear error, never a silent fallback. Without libnm the backend says how halod was built. */
#include <arpa/inet.h>
#include <dlfcn.h>
#include <libgen.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "config.h"

#include "apply/backend.h"
#include "apply/nm.h"
#include "basic/macro.h"
#include "tests.h"
#if HAVE_LIBNM
#        include "apply/nm-module.h"
#endif

static bool library_loaded(const char *soname) {
        void *h = dlopen(soname, RTLD_NOW | RTLD_NOLOAD);

        if (!h)
                return false;
        dlclose(h);
        return true;
}

static void assert_nothing_heavy_loaded(void) {
        ASSERT_TRUE(!library_loaded("libnm.so.0"));
        ASSERT_TRUE(!library_loaded("libglib-2.0.so.0"));
        ASSERT_TRUE(!library_loaded("libgio-2.0.so.0"));
}

static LinkPlan rdma0(void) {
        LinkPlan lp = { .link = (char *) "rdma0",
                        .ifname = (char *) "enp194s0f0np0",
                        .address.prefixlen = 30,
                        .want.mtu = 9000 };

        ASSERT_INT_EQ(inet_pton(AF_INET, "192.168.100.1", &lp.address.address), 1);
        return lp;
}

static void test_choosing_loads_nothing(void) {
        /* No bus here: NetworkManager does not run. */
        ASSERT_TRUE(!nm_running());
        ASSERT_TRUE(backend_pick() == &backend_netlink);
        {
                _cleanup_(freep) char *why = NULL;

                /* Nor does systemd-networkd: the reason says both. */
                ASSERT_TRUE(backend_pick_why(&why) == &backend_netlink);
                ASSERT_STR_EQ(why, "neither NetworkManager nor systemd-networkd is on the system bus");
        }
        ASSERT_TRUE(backend_by_name("networkmanager") == &backend_networkmanager);
        ASSERT_STR_EQ(backend_networkmanager.name, "networkmanager");
        ASSERT_TRUE(backend_by_name("netlink") == &backend_netlink);
        ASSERT_TRUE(backend_by_name("NetworkManager") == NULL);
        ASSERT_TRUE(backend_by_name("networkd") == &backend_networkd);
        ASSERT_TRUE(backend_by_name("systemd-networkd") == NULL);
        ASSERT_TRUE(backend_by_name(NULL) == NULL);
        ASSERT_TRUE(!backend_networkmanager.available());
        assert_nothing_heavy_loaded();
}

#if HAVE_LIBNM

static char *exe_dir(void) {
        char *exe = realpath("/proc/self/exe", NULL);

        ASSERT_TRUE(exe);
        return dirname(exe); /* in place: free() the result */
}

/* A directory holding FILE as halod-backend-nm.so (a symlink), or CONTENT as that file. */
static char *module_dir_with(const char *target, const char *content) {
        char template[] = "/tmp/test-backend-nm-XXXXXX";
        _cleanup_(freep) char *path = NULL;

        ASSERT_TRUE(mkdtemp(template));
        ASSERT_TRUE(asprintf(&path, "%s/%s", template, NM_MODULE_FILE) > 0);
        if (target)
                ASSERT_INT_EQ(symlink(target, path), 0);
        else {
                FILE *f = fopen(path, "we");
                ASSERT_TRUE(f);
                fputs(content, f);
                ASSERT_INT_EQ(fclose(f), 0);
        }
        return strdup(template);
}

static void remove_module_dir(const char *dir) {
        _cleanup_(freep) char *path = NULL;

        ASSERT_TRUE(asprintf(&path, "%s/%s", dir, NM_MODULE_FILE) > 0);
        (void) unlink(path);
        ASSERT_INT_EQ(rmdir(dir), 0);
}

static const char suffix[] = "; reinstall halod or use the netlink backend (halod --backend netlink)";

static void test_module_that_cannot_be_used(void) {
        _cleanup_(freep) char *tests_dir = exe_dir();
        _cleanup_(freep) char *no_entry = NULL, *other_abi = NULL;

        /* Built beside this test (tests/unit/fake-nm-module.c). */
        ASSERT_TRUE(asprintf(&no_entry, "%s/fake-nm-module-no-entry.so", tests_dir) > 0);
        ASSERT_TRUE(asprintf(&other_abi, "%s/fake-nm-module-other-abi.so", tests_dir) > 0);
        struct {
                const char *what;
                char *dir; /* NULL: a directory without the module */
                int error;
                const char *message; /* NULL: "not a halod module", whose dlerror() wording varies */
        } cases[] = {
                { "none", NULL, -ELIBACC, "cannot open shared object file: No such file or directory" },
                { "not a shared object", module_dir_with(NULL, "halod\n"), -ELIBACC, "file too short" },
                { "another library", module_dir_with(no_entry, NULL), -ELIBBAD, NULL },
                { "another build",
                  module_dir_with(other_abi, NULL),
                  -ELIBBAD,
                  "it is from another build of halod (module ABI 5, this halod's ABI 4)" },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                const char *dir = cases[i].dir ?: "/nonexistent-test-backend-nm";
                _cleanup_(freep) char *error = NULL, *load_error = NULL, *path = NULL, *expected = NULL;
                const NmModule *m = NULL;
                LinkPlan lp = rdma0();

                fprintf(stderr, "module: %s\n", cases[i].what);
                ASSERT_INT_EQ(setenv(NM_MODULE_DIR_ENV, dir, 1), 0);
                ASSERT_OK(nm_module_path(&path));
                ASSERT_TRUE(startswith(path, dir));

                ASSERT_INT_EQ(nm_module_load(&m, &load_error), cases[i].error);
                ASSERT_TRUE(m == NULL);
                /* The backend reports it; NetworkManager does not run here, so no "NetworkManager runs but". */
                ASSERT_INT_EQ(backend_networkmanager.apply_link(&lp, &error), cases[i].error);
                ASSERT_STR_EQ(error, load_error);
                fprintf(stderr, "  %s\n", error);

                ASSERT_TRUE(
                        asprintf(&expected, "halod's NetworkManager module could not be loaded from %s: ", path) >
                        0);
                ASSERT_TRUE(startswith(error, expected));
                ASSERT_TRUE(strlen(error) > strlen(suffix));
                ASSERT_STR_EQ(error + strlen(error) - strlen(suffix), suffix);
                if (cases[i].message)
                        ASSERT_TRUE(strstr(error, cases[i].message));
                else
                        ASSERT_TRUE(
                                strstr(error, "it is not a halod module (") && strstr(error, NM_MODULE_ENTRY));
                /* Said once: the path does not appear twice (dlerror() starts with it too). */
                ASSERT_TRUE(!strstr(error + strlen(expected), path));

                if (cases[i].dir)
                        remove_module_dir(cases[i].dir);
                free(cases[i].dir);
        }
        assert_nothing_heavy_loaded();
}

static void test_module_loads_on_first_apply(const char *build_module_dir) {
        _cleanup_(freep) char *error = NULL;
        const NmModule *m = NULL, *again = NULL;
        LinkPlan lp = rdma0();

        ASSERT_TRUE(build_module_dir);
        ASSERT_INT_EQ(setenv(NM_MODULE_DIR_ENV, build_module_dir, 1), 0);
        assert_nothing_heavy_loaded();

        /* An incomplete link is the module's to refuse: it answers, so it is loaded. */
        lp.address.prefixlen = 0;
        ASSERT_INT_EQ(backend_networkmanager.apply_link(&lp, &error), -EINVAL);
        ASSERT_TRUE(error && strstr(error, "incomplete link configuration"));
        ASSERT_TRUE(library_loaded("libnm.so.0"));
        /* haloctl unadopt goes through the same module (NmModule.unadopt_link). */
        error = mfree(error);
        ASSERT_INT_EQ(backend_networkmanager.unadopt_link("rdma0", /* ifname= */ NULL, &error), -EINVAL);
        ASSERT_TRUE(error && strstr(error, "a link and an interface are needed"));
        ASSERT_TRUE(library_loaded("libglib-2.0.so.0"));
        /* RTLD_LOCAL: libnm's symbols stay out of the program's scope. */
        ASSERT_TRUE(dlsym(RTLD_DEFAULT, "nm_client_new") == NULL);
        ASSERT_TRUE(dlsym(RTLD_DEFAULT, "g_main_context_new") == NULL);

        ASSERT_OK(nm_module_load(&m, NULL));
        ASSERT_INT_EQ(m->abi_version, NM_MODULE_ABI_VERSION);
        ASSERT_STR_EQ(m->version, PACKAGE_VERSION);
        /* Loaded once, kept: the directory is not looked at again. */
        ASSERT_INT_EQ(setenv(NM_MODULE_DIR_ENV, "/nonexistent-test-backend-nm", 1), 0);
        ASSERT_OK(nm_module_load(&again, NULL));
        ASSERT_TRUE(again == m);
}

static void test_default_module_dir(void) {
        _cleanup_(freep) char *path = NULL;

        ASSERT_INT_EQ(unsetenv(NM_MODULE_DIR_ENV), 0);
        ASSERT_OK(nm_module_path(&path));
        ASSERT_TRUE(path[0] == '/');
        ASSERT_TRUE(strstr(path, "/halod/" NM_MODULE_FILE));
        ASSERT_INT_EQ(setenv(NM_MODULE_DIR_ENV, "", 1), 0);
        free(path);
        ASSERT_OK(nm_module_path(&path));
        ASSERT_TRUE(strstr(path, "/halod/" NM_MODULE_FILE));
}

#else

static void test_built_without_libnm(void) {
        _cleanup_(freep) char *error = NULL;
        LinkPlan lp = rdma0();

        ASSERT_INT_EQ(backend_networkmanager.apply_link(&lp, &error), -EOPNOTSUPP);
        ASSERT_TRUE(error && startswith(error, "halod was built without NetworkManager support"));
        ASSERT_TRUE(strstr(error, "enp194s0f0np0"));
        ASSERT_TRUE(strstr(error, "halod --backend netlink"));
        error = mfree(error);
        ASSERT_INT_EQ(backend_networkmanager.unadopt_link(lp.link, lp.ifname, &error), -EOPNOTSUPP);
        ASSERT_TRUE(error && startswith(error, "halod was built without NetworkManager support"));
        assert_nothing_heavy_loaded();
}

#endif

int main(void) {
        /* Whatever the machine runs: no system bus for this test. */
        ASSERT_INT_EQ(setenv("DBUS_SYSTEM_BUS_ADDRESS", "unix:path=/nonexistent-test-backend-nm/bus", 1), 0);
        assert_nothing_heavy_loaded();
        test_choosing_loads_nothing();
#if HAVE_LIBNM
        /* meson test points $HALOD_MODULE_DIR at the build tree's lib/. */
        _cleanup_(freep) char *build_module_dir = getenv(NM_MODULE_DIR_ENV)
                ? strdup(getenv(NM_MODULE_DIR_ENV))
                : NULL;

        test_default_module_dir();
        test_module_that_cannot_be_used();
        test_module_loads_on_first_apply(build_module_dir);
#else
        test_built_without_libnm();
#endif
        return 0;
}
