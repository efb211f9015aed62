/* SPDX-License-Identifier: MIT */
/* Reading what kernel.cmdline-next's advice needs besides the boot configuration. */
#include "boot/boot-fix-facts.h"

int boot_fix_facts_read(const Host *h, const BootConfig *boot, BootFixFacts *ret) {
        int r;

        *ret = (BootFixFacts){};
        r = boot_config_load_grub_default(h, &ret->grub_default, NULL);
        if (r == -ENOMEM)
                return r;
        ret->grub_default_error = r < 0 ? r : 0;
        if (r < 0)
                ret->grub_default = boot_config_free(ret->grub_default);
        for (BootLoader l = 0; l < _BOOT_LOADER_MAX; l++)
                ret->tools[l] = boot_loader_tool(h, l);
        r = kernel_install_add_command(h, boot ? boot->version : NULL, &ret->install_add);
        if (r < 0) {
                boot_fix_facts_done(ret);
                return r;
        }
        return 0;
}

void boot_fix_facts_done(BootFixFacts *f) {
        f->grub_default = boot_config_free(f->grub_default);
        f->install_add = mfree(f->install_add);
}
