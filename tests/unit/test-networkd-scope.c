/* SPDX-License-Identifier: MIT */
/* Tests what a .network file of halod's may take before the root helper writes it
 * (lib/apply/networkd-file-scope.c): the name of the profile's link must read as itself in Name=, and
 * the file's [Match] must take that link alone among the kernel's, as networkd's matching
 * (net/networkd-match.c) decides: the attacks of issue 31 ('*', '!eno1', a moved permanent address). */
#include "apply/networkd-file-scope.h"
#include "tests.h"

#define LINK(i, n, m0) \
        { .ifindex = (i), .name = (n), .mac = { 0x02, 0, 0, 0, 0, (m0) }, .mac_len = 6 }

static const RtnlLink links[] = {
        LINK(1, "lo", 0),
        LINK(2, "eno1", 1),
        LINK(3, "rdma0", 2),
        LINK(4, "enp2s0", 3),
};
static char *const permanent[] = { NULL, (char *) "6c:fe:54:00:00:01", NULL, (char *) "6c:fe:54:00:00:03" };

static int scope(const char *match, int ifindex, char **ret_error) {
        _cleanup_(freep) char *text = NULL;

        ASSERT_TRUE(
                asprintf(&text, "# halod\n\n[Match]\n%s\n\n[Network]\nAddress=192.168.100.1/30\n", match) >= 0);
        return networkd_file_check_scope(
                text, "rdma0", ifindex, links, ELEMENTSOF(links), permanent, ret_error);
}

static void test_scope(void) {
        _cleanup_(freep) char *e1 = NULL, *e2 = NULL, *e3 = NULL, *e4 = NULL;

        ASSERT_OK(scope("Name=rdma0", 3, NULL));
        ASSERT_OK(scope("PermanentMACAddress=6c:fe:54:00:00:03", 4, NULL));

        ASSERT_INT_EQ(scope("Name=*", 3, &e1), -EMLINK);
        ASSERT_STR_EQ(
                e1,
                "link rdma0: the file's [Match] would also take lo, eno1, enp2s0, which the profile does "
                "not name; not written. Match the link by pci: in the profile");
        ASSERT_INT_EQ(scope("Name=!eno1", 3, &e2), -EMLINK);
        ASSERT_TRUE(strstr(e2, "would also take lo, enp2s0,"));
        /* The plan resolved the link to rdma0, but the file names another device's address. */
        ASSERT_INT_EQ(scope("PermanentMACAddress=6c:fe:54:00:00:01", 3, &e3), -EMLINK);
        ASSERT_TRUE(strstr(e3, "would also take eno1,"));
        ASSERT_INT_EQ(scope("Name=rdma1", 3, &e4), -ENODEV);
        ASSERT_TRUE(strstr(e4, "would not take its own interface (index 3)"));
}

static void test_name(void) {
        _cleanup_(freep) char *e1 = NULL, *e2 = NULL;

        ASSERT_OK(networkd_file_check_name("rdma0", "enp194s0f0np0", NULL));
        ASSERT_INT_EQ(networkd_file_check_name("rdma0", "*", &e1), -EINVAL);
        ASSERT_STR_EQ(
                e1,
                "link rdma0: its interface '*' holds '*', a glob character in "
                "systemd-networkd's Name=, which then matches other interfaces too. halod writes no "
                ".network file that could take more than link rdma0's interface: give it a plain name "
                "(ip link set dev '*' name NAME) or match the link by pci: in the profile");
        /* The name is shown escaped: the error reaches a terminal. */
        ASSERT_INT_EQ(networkd_file_check_name("rdma0", "x\x1b[2J", &e2), -EINVAL);
        ASSERT_TRUE(strstr(e2, "interface 'x\\x1b[2J' holds '\\x1b', not printable ASCII"));
}

int main(void) {
        test_scope();
        test_name();
        return 0;
}
