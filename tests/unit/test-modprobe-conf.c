/* SPDX-License-Identifier: MIT */
/* Tests finding what keeps a module from loading: modprobe.d lines as distributions and guides write
 * them, the kernel command line's lists, and kmod's file order below a host root. */
#include <stdlib.h>
#include <sys/stat.h>

#include "basic/fileio.h"
#include "basic/strv.h"
#include "boot/modprobe-conf.h"
#include "tests.h"

typedef struct ConfCase {
        const char *text;
        const char *module;
        int found;
        unsigned line;
        const char *block;
} ConfCase;

static const ConfCase conf_cases[] = {
        { "blacklist irdma\n", "irdma", 1, 1, "blacklist irdma" },
        { "# blacklist irdma\n", "irdma", 0, 0, NULL },
        { "blacklist irdma_x\nblacklist irdm\n", "irdma", 0, 0, NULL },
        { "options irdma roce_ena=1\n", "irdma", 0, 0, NULL },
        { "  blacklist\tmlx5-ib  \n", "mlx5_ib", 1, 1, "blacklist\tmlx5-ib  " },
        { "install irdma /bin/false\n", "irdma", 1, 1, "install irdma /bin/false" },
        { "install irdma /bin/true\n", "irdma", 1, 1, "install irdma /bin/true" },
        { "install irdma\n", "irdma", 1, 1, "install irdma" },
        /* An install line that still loads the module is not a block. */
        { "install irdma /sbin/modprobe --ignore-install irdma && echo loaded\n", "irdma", 0, 0, NULL },
        /* A continued line is one line, reported where it starts. */
        { "alias foo bar\n\nblacklist \\\n  irdma\n", "irdma", 1, 3, "blacklist   irdma" },
        { "blacklist irdma", "irdma", 1, 1, "blacklist irdma" },
        { "", "irdma", 0, 0, NULL },
        { "blacklist\n", "irdma", 0, 0, NULL },
};

typedef struct CmdlineCase {
        const char *cmdline;
        int found;
        const char *block;
} CmdlineCase;

static const CmdlineCase cmdline_cases[] = {
        { "BOOT_IMAGE=/vmlinuz quiet", 0, NULL },
        { "quiet module_blacklist=nouveau,irdma", 1, "module_blacklist=nouveau,irdma" },
        { "modprobe.blacklist=irdma", 1, "modprobe.blacklist=irdma" },
        { "module-blacklist=irdmax,xirdma", 0, NULL },
        { "module_blacklist", 0, NULL },
        { "modprobe.blacklist=,,irdma,", 1, "modprobe.blacklist=,,irdma," },
};

static void write_tree_file(const char *root, const char *path, const char *text) {
        _cleanup_(freep) char *full = NULL, *mkdir = NULL;

        ASSERT_TRUE(asprintf(&full, "%s%s", root, path) >= 0);
        ASSERT_TRUE(asprintf(&mkdir, "mkdir -p \"$(dirname '%s')\"", full) >= 0);
        ASSERT_INT_EQ(system(mkdir), 0);
        ASSERT_OK(write_file_atomic(full, text, strlen(text), 0644));
}

static void test_tree(void) {
        char root[] = "/tmp/test-modprobe-conf.XXXXXX";
        _cleanup_(strv_freep) char **unreadable = NULL;
        _cleanup_(freep) char *rm = NULL;
        ModuleBlock b = {};
        Host h;

        ASSERT_TRUE(mkdtemp(root));
        h = (Host){ .root = root };
        write_tree_file(root, "/proc/cmdline", "BOOT_IMAGE=/vmlinuz root=/dev/sda1 quiet\n");

        ASSERT_INT_EQ(module_find_block(&h, "irdma", &b, &unreadable), 0);
        ASSERT_TRUE(!unreadable);

        /* A vendor file blacklists it; /etc's file of the same name hides it (kmod's override). */
        write_tree_file(root, "/usr/lib/modprobe.d/50-rdma.conf", "options ice x=1\nblacklist irdma\n");
        ASSERT_INT_EQ(module_find_block(&h, "irdma", &b, NULL), 1);
        ASSERT_STR_EQ(b.source, "/usr/lib/modprobe.d/50-rdma.conf");
        ASSERT_INT_EQ(b.line, 2);
        ASSERT_STR_EQ(b.text, "blacklist irdma");
        module_block_done(&b);

        write_tree_file(root, "/etc/modprobe.d/50-rdma.conf", "# irdma is wanted here\n");
        ASSERT_INT_EQ(module_find_block(&h, "irdma", &b, NULL), 0);

        /* Files are read in name order across the directories; only .conf files count. */
        write_tree_file(root, "/lib/modprobe.d/10-early.conf", "install irdma /bin/false\n");
        write_tree_file(root, "/etc/modprobe.d/90-late.conf", "blacklist irdma\n");
        write_tree_file(root, "/etc/modprobe.d/00-not-conf.txt", "blacklist irdma\n");
        ASSERT_INT_EQ(module_find_block(&h, "irdma", &b, NULL), 1);
        ASSERT_STR_EQ(b.source, "/lib/modprobe.d/10-early.conf");
        ASSERT_INT_EQ(b.line, 1);
        module_block_done(&b);

        /* The command line comes first: the kernel itself refuses the module. */
        write_tree_file(root, "/proc/cmdline", "quiet module_blacklist=irdma\n");
        ASSERT_INT_EQ(module_find_block(&h, "irdma", &b, NULL), 1);
        ASSERT_STR_EQ(b.source, "/proc/cmdline");
        ASSERT_INT_EQ(b.line, 0);
        ASSERT_STR_EQ(b.text, "module_blacklist=irdma");
        module_block_done(&b);

        /* Another module is not blocked by any of it. */
        ASSERT_INT_EQ(module_find_block(&h, "mlx5_ib", &b, NULL), 0);

        /* The command line handed in (the snapshot's) is the one judged: /proc/cmdline is not read. */
        {
                _cleanup_(kernel_cmdline_freep) KernelCmdline *k = NULL;
                _cleanup_(strv_freep) char **unread = NULL;

                ASSERT_OK(kernel_cmdline_parse("quiet modprobe.blacklist=mlx5_ib", &k));
                ASSERT_INT_EQ(module_find_block_with_cmdline(&h, k, 0, "mlx5_ib", &b, NULL), 1);
                ASSERT_STR_EQ(b.source, "/proc/cmdline");
                ASSERT_STR_EQ(b.text, "modprobe.blacklist=mlx5_ib");
                module_block_done(&b);
                /* Unread, it is named; absent (-ENOENT), it says nothing; the files still count. */
                ASSERT_INT_EQ(module_find_block_with_cmdline(&h, NULL, -EACCES, "mlx5_ib", &b, &unread), 0);
                ASSERT_TRUE(strv_contains(unread, "/proc/cmdline"));
                unread = strv_free(unread);
                ASSERT_INT_EQ(module_find_block_with_cmdline(&h, NULL, -ENOENT, "irdma", &b, &unread), 1);
                ASSERT_STR_EQ(b.source, "/lib/modprobe.d/10-early.conf");
                ASSERT_TRUE(!strv_contains(unread, "/proc/cmdline"));
                module_block_done(&b);
        }

        /* A file that cannot be read is named, not taken as saying nothing. */
        if (geteuid() != 0) {
                _cleanup_(freep) char *path = NULL;

                ASSERT_TRUE(asprintf(&path, "%s/etc/modprobe.d/90-late.conf", root) >= 0);
                ASSERT_INT_EQ(chmod(path, 0), 0);
                ASSERT_INT_EQ(module_find_block(&h, "mlx5_ib", &b, &unreadable), 0);
                ASSERT_TRUE(strv_contains(unreadable, "/etc/modprobe.d/90-late.conf"));
        }

        ASSERT_TRUE(asprintf(&rm, "rm -rf '%s'", root) >= 0);
        ASSERT_INT_EQ(system(rm), 0);
}

int main(void) {
        for (size_t i = 0; i < ELEMENTSOF(conf_cases); i++) {
                const ConfCase *t = &conf_cases[i];
                ModuleBlock b = {};

                fprintf(stderr, "conf: \"%s\"\n", t->text);
                ASSERT_INT_EQ(modprobe_conf_find_block(t->text, t->module, &b), t->found);
                if (t->found) {
                        ASSERT_INT_EQ(b.line, t->line);
                        ASSERT_STR_EQ(b.text, t->block);
                }
                module_block_done(&b);
        }
        for (size_t i = 0; i < ELEMENTSOF(cmdline_cases); i++) {
                const CmdlineCase *t = &cmdline_cases[i];
                _cleanup_(kernel_cmdline_freep) KernelCmdline *c = NULL;
                ModuleBlock b = {};

                fprintf(stderr, "cmdline: \"%s\"\n", t->cmdline);
                ASSERT_OK(kernel_cmdline_parse(t->cmdline, &c));
                ASSERT_INT_EQ(kernel_cmdline_find_module_block(c, "irdma", &b), t->found);
                if (t->found)
                        ASSERT_STR_EQ(b.text, t->block);
                module_block_done(&b);
        }
        test_tree();
        printf("test-modprobe-conf: ok\n");
        return 0;
}
