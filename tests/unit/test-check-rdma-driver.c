/* SPDX-License-Identifier: MIT */
/* Tests rdma.driver on host trees built here: the module loaded or not, blacklisted in modprobe.d or
 * on the command line, and a NIC whose RDMA module halod does not know. */
#include <stdlib.h>
#include <sys/stat.h>

#include "basic/fileio.h"
#include "check/check-rdma.h"
#include "snapshot/snapshot.h"
#include "tests.h"

static char root[] = "/tmp/test-check-rdma-driver.XXXXXX";

static void sh(const char *cmd) {
        ASSERT_INT_EQ(system(cmd), 0);
}

static void write_tree_file(const char *path, const char *text) {
        _cleanup_(freep) char *full = NULL;

        _cleanup_(freep) char *mkdir = NULL;

        ASSERT_TRUE(asprintf(&full, "%s%s", root, path) >= 0);
        ASSERT_TRUE(asprintf(&mkdir, "mkdir -p \"$(dirname '%s')\"", full) >= 0);
        sh(mkdir);
        ASSERT_OK(write_file_atomic(full, text, strlen(text), 0644));
}

static void expect(const char *nic_driver, const char *module, CheckOutcome outcome, const char *summary) {
        Host h = { .root = root };
        NodeContext ctx = { .host = &h };
        _cleanup_(snapshot_done) Snapshot s = {};
        PortCheck c = {};

        _cleanup_(module_state_done) ModuleState state = {};

        /* The command line as the checks get it: read by the snapshot, below the tree; the module's state
         * as the snapshot reads it (SNAPSHOT_MODULES) with that command line. */
        snapshot_init(&s, &ctx);
        ASSERT_OK(snapshot_read(&s, SNAPSHOT_CMDLINE));
        if (module)
                ASSERT_OK(module_state_read(
                        &h, s.host.cmdline_parsed, s.host.cmdline ? 0 : s.host.cmdline_error, module, &state));
        ASSERT_OK(check_rdma_driver_evaluate(module ? &state : NULL, nic_driver, module, &c));
        ASSERT_STR_EQ(c.summary, summary);
        ASSERT_INT_EQ(c.outcome, outcome);
        port_check_done(&c);
}

int main(void) {
        ASSERT_TRUE(mkdtemp(root));
        write_tree_file("/proc/cmdline", "BOOT_IMAGE=/vmlinuz quiet\n");

        expect("ice",
               "irdma",
               CHECK_FAIL,
               "irdma is not loaded, and nothing in modprobe.d or on the kernel command line blacklists it: "
               "`modprobe irdma`, then `journalctl -k` says why it did not load with ice");

        {
                _cleanup_(freep) char *mkdir = NULL;

                ASSERT_TRUE(asprintf(&mkdir, "mkdir -p '%s/sys/module/irdma'", root) >= 0);
                sh(mkdir);
        }
        expect("ice",
               "irdma",
               CHECK_PASS,
               "irdma is loaded, and nothing in modprobe.d or on the kernel command line keeps it from "
               "loading with ice at boot");

        /* Loaded now, blacklisted for the next boot: the regression this check is for. */
        write_tree_file("/etc/modprobe.d/blacklist-rdma.conf", "# no RDMA here\nblacklist irdma\n");
        expect("ice",
               "irdma",
               CHECK_FAIL,
               "irdma is loaded now, but /etc/modprobe.d/blacklist-rdma.conf:2 (\"blacklist irdma\") keeps it "
               "from loading at the next boot: remove that line, and rebuild the initramfs (`dracut -f` or "
               "`update-initramfs -u`), which carries a copy of modprobe.d");

        /* mlx5_ib, its sysfs name with '_', and a block on the kernel command line. */
        write_tree_file("/proc/cmdline", "quiet module_blacklist=mlx5_ib\n");
        expect("mlx5_core",
               "mlx5_ib",
               CHECK_FAIL,
               "mlx5_ib is not loaded: the kernel command line's module_blacklist=mlx5_ib keeps it from "
               "loading; remove it from the boot entry (grubby --remove-args, or /etc/default/grub and "
               "update-grub) and reboot, then `modprobe mlx5_ib`");

        expect("veth", NULL, CHECK_SKIP, "halod does not know the RDMA module of NIC driver veth");

        {
                _cleanup_(freep) char *rm = NULL;

                ASSERT_TRUE(asprintf(&rm, "rm -rf '%s'", root) >= 0);
                sh(rm);
        }
        printf("test-check-rdma-driver: ok\n");
        return 0;
}
