/* SPDX-License-Identifier: MIT */
/* rdma.driver: the RDMA module of the fabric NIC (irdma for the E810, mlx5_ib for ConnectX) is loaded
 * now, and nothing (a modprobe.d blacklist or install line, the kernel command line) keeps it from
 * loading at the next boot. */
#include <stdio.h>

#include "basic/strv.h"
#include "boot/modprobe-conf.h"
#include "check/check-rdma.h"

/* What to do about a block, by where it is. */
static const char *block_fix(const ModuleBlock *b) {
        if (b->line == 0)
                return "remove it from the boot entry (grubby --remove-args, or /etc/default/grub and "
                       "update-grub) and reboot";
        return "remove that line, and rebuild the initramfs (`dracut -f` or `update-initramfs -u`), "
               "which carries a copy of modprobe.d";
}

/* Something in modprobe.d or on the kernel command line keeps module from loading. */
static int check_rdma_driver_blocked(const char *module, int loaded, const ModuleBlock *block, PortCheck *ret) {
        _cleanup_(freep) char *where = NULL;

        if (block->line > 0 && asprintf(&where, "%s:%u (\"%s\")", block->source, block->line, block->text) < 0)
                return -ENOMEM;
        if (block->line == 0 && asprintf(&where, "the kernel command line's %s", block->text) < 0)
                return -ENOMEM;
        if (loaded > 0)
                return port_check_set(
                        ret,
                        CHECK_FAIL,
                        "loaded, and loads at boot",
                        "blocked at boot",
                        "%s is loaded now, but %s keeps it from loading at the next boot: %s",
                        module,
                        where,
                        block_fix(block));
        return port_check_set(
                ret,
                CHECK_FAIL,
                "loaded, and loads at boot",
                "blocked",
                "%s is not loaded: %s keeps it from loading; %s, then `modprobe %s`",
                module,
                where,
                block_fix(block),
                module);
}

int check_rdma_driver_evaluate(
        const ModuleState *state, const char *nic_driver, const char *module, PortCheck *ret) {
        _cleanup_(freep) char *blind = NULL;
        int loaded;

        if (!module)
                return port_check_set(
                        ret,
                        CHECK_SKIP,
                        NULL,
                        NULL,
                        "halod does not know the RDMA module of NIC driver %s",
                        strna(nic_driver));
        if (!state)
                return -ENOMEDIUM;
        loaded = state->loaded;
        if (state->blocked > 0)
                return check_rdma_driver_blocked(module, loaded, &state->block, ret);
        if (state->unreadable) {
                _cleanup_(freep) char *joined = strv_join(state->unreadable, ", ");

                if (!joined ||
                    asprintf(&blind, "; could not read %s, which may keep it from loading", joined) < 0)
                        return -ENOMEM;
        }
        if (loaded < 0)
                return port_check_set(
                        ret,
                        CHECK_SKIP,
                        "loaded, and loads at boot",
                        NULL,
                        "could not look at /sys/module/%s: %s%s",
                        module,
                        strerror(-loaded),
                        strempty(blind));
        if (loaded == 0)
                return port_check_set(
                        ret,
                        CHECK_FAIL,
                        "loaded, and loads at boot",
                        "not loaded",
                        "%s is not loaded, and nothing in modprobe.d or on the kernel command line blacklists "
                        "it%s: `modprobe %s`, then `journalctl -k` says why it did not load with %s",
                        module,
                        strempty(blind),
                        module,
                        strna(nic_driver));
        if (blind)
                return port_check_set(
                        ret, CHECK_WARN, "loaded, and loads at boot", "loaded", "%s is loaded%s", module, blind);
        return port_check_set(
                ret,
                CHECK_PASS,
                "loaded, and loads at boot",
                "loaded",
                "%s is loaded, and nothing in modprobe.d or on the kernel command line keeps it from "
                "loading with %s at boot",
                module,
                strna(nic_driver));
}
