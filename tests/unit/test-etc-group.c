/* SPDX-License-Identifier: MIT */
/* /etc/group's two lookups, by name (group rdma, for the uverbs devices) and by GID (the group of
 * /dev/kfd and the render nodes), on texts in group(5)'s format as shadow-utils writes it. */
#include "basic/etc-group.h"
#include "basic/macro.h"
#include "tests.h"

static const char group[] =
        "root:x:0:\n"
        "\n"
        "video:x:44:alice\n"
        "render:x:105:\n"
        "rdmax:x:7:\n"
        "rdma:x:106:bob,carol\n"
        "render2:x:105:\n";

static void test_gid(void) {
        gid_t gid = 0;

        ASSERT_OK(etc_group_gid(group, "rdma", &gid));
        ASSERT_INT_EQ(gid, 106);
        ASSERT_OK(etc_group_gid(group, "root", &gid));
        ASSERT_INT_EQ(gid, 0);
        /* A name is the whole first field: "rdmax" and "rdm" are not "rdma". */
        ASSERT_INT_EQ(etc_group_gid(group, "rdm", &gid), -ENOENT);
        ASSERT_INT_EQ(etc_group_gid("", "rdma", &gid), -ENOENT);
        /* The first line for the name decides, even when it is malformed. */
        ASSERT_INT_EQ(etc_group_gid("rdma:x\nrdma:x:106:\n", "rdma", &gid), -EBADMSG);
        ASSERT_INT_EQ(etc_group_gid("rdma:x::\n", "rdma", &gid), -EBADMSG);
        ASSERT_INT_EQ(etc_group_gid("rdma:x:106\n", "rdma", &gid), -EBADMSG);
}

static void test_name(void) {
        char *name;

        ASSERT_OK(etc_group_name(group, 105, &name));
        ASSERT_STR_EQ(name, "render"); /* the first line with the GID */
        free(name);
        ASSERT_OK(etc_group_name(group, 0, &name));
        ASSERT_STR_EQ(name, "root");
        free(name);
        ASSERT_OK(etc_group_name(group, 4242, &name));
        ASSERT_TRUE(!name);
        /* Malformed lines are skipped, not fatal. */
        ASSERT_OK(etc_group_name("render:x\nbad:x:lots:\nrender:x:105:\n", 105, &name));
        ASSERT_STR_EQ(name, "render");
        free(name);
}

int main(void) {
        test_gid();
        test_name();
        return 0;
}
