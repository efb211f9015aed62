/* SPDX-License-Identifier: MIT */
/* Tests strv_equal() (lib/basic/strv.c), by which halod tells a changed PendingReboot list and a changed
 * set of RDMA devices from the same one: order counts, and NULL is the empty list. */
#include <stdio.h>

#include "basic/strv.h"
#include "tests.h"

static void test_strv_equal(void) {
        char *a[] = { (char *) "kernel.cmdline", (char *) "kernel command line: iommu=pt", NULL };
        char *b[] = { (char *) "kernel.cmdline", (char *) "kernel command line: pcie_aspm=off", NULL };
        char *swapped[] = { (char *) "kernel command line: iommu=pt", (char *) "kernel.cmdline", NULL };
        char *empty[] = { NULL };

        ASSERT_TRUE(strv_equal(NULL, NULL));
        ASSERT_TRUE(strv_equal(a, a));
        ASSERT_TRUE(!strv_equal(a, b));
        ASSERT_TRUE(!strv_equal(a, NULL));
        ASSERT_TRUE(!strv_equal(NULL, b));
        ASSERT_TRUE(!strv_equal(a, swapped));
        ASSERT_TRUE(strv_equal(NULL, empty));
}

int main(void) {
        test_strv_equal();
        printf("test-strv: ok\n");
        return 0;
}
