/* SPDX-License-Identifier: MIT */
/* Tests the optional libraries loaded on first use (lib/basic/dlopen-util.h): a missing library or symbol
 * is named with what to install and sets no pointer, a failure is retried, concurrent first uses
 * load once; and with the real libibverbs and libpci: neither is mapped before its first use, both
 * have every function halod resolves, and the nic. checks say when libpci cannot be loaded. */
#include <dlfcn.h>
#include <pthread.h>

#include "basic/dlopen-util.h"
#include "check-read.h"
#include "check-test.h"
#include "check/check-nic.h"
#include "config.h"
#include "nic/pci.h"
#include "rdma/rdma.h"
#include "tests.h"
#if HAVE_LIBIBVERBS
#        include "rdma/dlopen-verbs.h"
#endif
#if HAVE_LIBPCI
#        include "nic/dlopen-pci.h"
#endif

#define MISSING_SONAME "libhalod-test-missing.so.0"

static void *sym_strlen_test, *sym_strcmp_test, *sym_missing_test;

static const DlopenSymbol libc_symbols[] = {
        { .name = "strlen", .pointer = &sym_strlen_test },
        { .name = "strcmp", .pointer = &sym_strcmp_test },
};

static const DlopenSymbol libc_symbols_one_missing[] = {
        { .name = "strlen", .pointer = &sym_strlen_test },
        { .name = "halod_no_such_function", .pointer = &sym_missing_test },
};

/* Whether the process has soname mapped now (RTLD_NOLOAD loads nothing). */
static bool mapped(const char *soname) {
        void *h = dlopen(soname, RTLD_NOW | RTLD_NOLOAD);

        if (!h)
                return false;
        (void) dlclose(h); /* the reference RTLD_NOLOAD took */
        return true;
}

static void test_missing_library(void) {
        DlopenLibrary l = {
                .soname = MISSING_SONAME,
                .install = "the halod-test package",
                .symbols = libc_symbols,
                .n_symbols = ELEMENTSOF(libc_symbols),
                DLOPEN_LIBRARY_INIT,
        };
        _cleanup_(freep) char *why = NULL;

        ASSERT_INT_EQ(dlopen_library(&l, &why), -ELIBACC);
        ASSERT_STR_EQ(
                why,
                MISSING_SONAME
                " could not be loaded (cannot open shared object file: No such file or "
                "directory): install the halod-test package");
        ASSERT_TRUE(!sym_strlen_test && !sym_strcmp_test);
        ASSERT_INT_EQ(dlopen_library(&l, /* ret_error= */ NULL), -ELIBACC);

        /* Not remembered: once the library is there (here: another name), the next use loads it. */
        l.soname = "libc.so.6";
        ASSERT_OK(dlopen_library(&l, /* ret_error= */ NULL));
        ASSERT_INT_EQ(((size_t(*)(const char *)) sym_strlen_test)("halod"), 5);
        ASSERT_INT_EQ(((int (*)(const char *, const char *)) sym_strcmp_test)("a", "a"), 0);
        sym_strlen_test = sym_strcmp_test = NULL;
}

static void test_missing_symbol(void) {
        DlopenLibrary l = {
                .soname = "libc.so.6",
                .install = "glibc",
                .symbols = libc_symbols_one_missing,
                .n_symbols = ELEMENTSOF(libc_symbols_one_missing),
                DLOPEN_LIBRARY_INIT,
        };
        _cleanup_(freep) char *why = NULL;

        ASSERT_INT_EQ(dlopen_library(&l, &why), -ELIBBAD);
        ASSERT_STR_EQ(
                why,
                "libc.so.6 has no halod_no_such_function: it is older than this halod needs; install a newer "
                "glibc");
        ASSERT_TRUE(!sym_strlen_test && !sym_missing_test); /* all or none */
}

static DlopenLibrary concurrent = {
        .soname = "libc.so.6",
        .install = "glibc",
        .symbols = libc_symbols,
        .n_symbols = ELEMENTSOF(libc_symbols),
        DLOPEN_LIBRARY_INIT,
};

static void *load_concurrently(void *userdata) {
        int *r = userdata;

        *r = dlopen_library(&concurrent, /* ret_error= */ NULL);
        /* Once it says loaded, the pointers are there for this thread too. */
        if (*r >= 0 && ((size_t(*)(const char *)) sym_strlen_test)("abc") != 3)
                *r = -EBADMSG;
        return NULL;
}

static void test_concurrent_first_use(void) {
        pthread_t threads[8];
        int results[ELEMENTSOF(threads)];

        for (size_t i = 0; i < ELEMENTSOF(threads); i++)
                ASSERT_INT_EQ(pthread_create(&threads[i], NULL, load_concurrently, &results[i]), 0);
        for (size_t i = 0; i < ELEMENTSOF(threads); i++) {
                ASSERT_INT_EQ(pthread_join(threads[i], NULL), 0);
                ASSERT_OK(results[i]);
        }
        ASSERT_TRUE(atomic_load(&concurrent.loaded));
        sym_strlen_test = sym_strcmp_test = NULL;
}

_unused_ static void assert_all_resolved(const DlopenLibrary *l) {
        for (size_t i = 0; i < l->n_symbols; i++)
                if (!*l->symbols[i].pointer) {
                        fprintf(stderr, "%s: %s not resolved\n", l->soname, l->symbols[i].name);
                        abort();
                }
}

static void test_verbs(void) {
#if HAVE_LIBIBVERBS
        _cleanup_(freep) char *why = NULL;
        RdmaDevice *d = NULL;
        Host h = {};
        int r;

        /* This program links libhalod as halod does: nothing has mapped libibverbs (and libnl). */
        ASSERT_TRUE(!mapped(DLOPEN_VERBS_SONAME));
        ASSERT_TRUE(!mapped("libnl-route-3.so.200"));

        dlopen_verbs_library.soname = MISSING_SONAME;
        ASSERT_INT_EQ(rdma_library_load(&why), -ELIBACC);
        ASSERT_TRUE(strstr(why, MISSING_SONAME " could not be loaded ("));
        ASSERT_TRUE(strstr(why, "): install libibverbs (rdma-core; Debian: libibverbs1, Fedora: libibverbs)"));
        dlopen_verbs_library.soname = DLOPEN_VERBS_SONAME;

        /* Without ib_core the kernel has no RDMA device to list, and libibverbs need not be loaded to
         * say so; with it, looking loads libibverbs. */
        r = rdma_device_find(&h, /* pci= */ NULL, /* ifindex= */ 1, &d);
        d = rdma_device_free(d);
        if (access("/sys/class/infiniband", F_OK) < 0) {
                ASSERT_INT_EQ(r, -ENOSYS);
                ASSERT_TRUE(!mapped(DLOPEN_VERBS_SONAME));
        } else
                ASSERT_TRUE(mapped(DLOPEN_VERBS_SONAME));

        /* The real library has every function lib/rdma/dlopen-verbs.c resolves (the unit tests of the
         * RDMA code link the test double instead, so only this shows that the names are right). */
        ASSERT_OK(rdma_library_load(/* ret_error= */ NULL));
        ASSERT_TRUE(mapped(DLOPEN_VERBS_SONAME));
        assert_all_resolved(&dlopen_verbs_library);
        ASSERT_INT_EQ(dlopen_verbs_library.n_symbols, 18);
#else
        ASSERT_INT_EQ(rdma_library_load(/* ret_error= */ NULL), -EOPNOTSUPP);
        ASSERT_TRUE(!mapped("libibverbs.so.1"));
#endif
}

static void run_nic(const CheckExpect *expect, size_t n) {
        static const char yaml[] =
                "cluster: test\n"
                "links: { rdma0: { match: { pci: \"0000:c2:00.0\" } } }\n"
                "nic: { pci-ids: [\"8086:1592\"], driver: ice, pcie-min-width: 4 }\n"
                "nodes: { head: { hostname: halo-1, links: { rdma0: 192.168.100.1/30 } } }\n";
        _cleanup_(profile_freep) Profile *p = test_profile_load(yaml);
        Host h = { .root = TEST_DATA_DIR "/hosts/nic-e810-x4" };
        CheckList l = {};
        NodeContext c = { .host = &h, .profile = p, .node = profile_find_node(p, "head") };

        ASSERT_OK(test_check_group(&c, /* s= */ NULL, check_nic, &l));
        assert_checks(&l, expect, n, h.root);
        check_list_done(&l);
}

static void test_pci(void) {
#if HAVE_LIBPCI
        static const CheckExpect unloadable[] = {
                { "nic.pci", CHECK_FAIL, MISSING_SONAME " could not be loaded (cannot open shared object file" },
                { "nic.pci", CHECK_FAIL, "): install libpci (pciutils; Debian: libpci3, Fedora: pciutils-libs)" },
                { "nic.pcie", CHECK_SKIP, "see nic.pci" },
                /* --root: no ethtool, and the sysfs driver link is read with the device */
                { "nic.driver",
                  CHECK_SKIP,
                  "cannot tell the driver of enp194s0np0 without libpci (see nic.pci)" },
        };
        static const CheckExpect loaded[] = {
                { "nic.pci", CHECK_PASS, "E810-C for QSFP at 0000:c2:00.0" },
                { "nic.pcie", CHECK_PASS, NULL },
        };

        ASSERT_TRUE(!mapped(DLOPEN_PCI_SONAME));

        /* A machine without libpci: nic.pci fails and says what to install; nothing is mapped. */
        dlopen_pci_library.soname = MISSING_SONAME;
        run_nic(unloadable, ELEMENTSOF(unloadable));
        ASSERT_TRUE(!mapped(DLOPEN_PCI_SONAME));

        /* Installed later: the next check loads it. */
        dlopen_pci_library.soname = DLOPEN_PCI_SONAME;
        run_nic(loaded, ELEMENTSOF(loaded));
        ASSERT_TRUE(mapped(DLOPEN_PCI_SONAME));
        assert_all_resolved(&dlopen_pci_library);
        ASSERT_OK(pci_library_load(/* ret_error= */ NULL));
#else
        static const CheckExpect without[] = {
                { "nic.pci", CHECK_SKIP, "halod was built without libpci: rebuild it with libpci (pciutils)" },
        };

        ASSERT_INT_EQ(pci_library_load(/* ret_error= */ NULL), -EOPNOTSUPP);
        run_nic(without, ELEMENTSOF(without));
        ASSERT_TRUE(!mapped("libpci.so.3"));
#endif
}

int main(void) {
        test_missing_library();
        test_missing_symbol();
        test_concurrent_first_use();
        test_verbs();
        test_pci();
        return 0;
}
