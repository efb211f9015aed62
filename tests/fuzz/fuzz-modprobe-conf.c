/* SPDX-License-Identifier: MIT */
/* Fuzzes the modprobe.d reader with arbitrary bytes: as a file's text, and as a kernel command line. */
#include <stdint.h>

#include "boot/modprobe-conf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        _cleanup_(kernel_cmdline_freep) KernelCmdline *c = NULL;
        _cleanup_(freep) char *s = NULL;
        ModuleBlock b = {};

        if (size > 256U * 1024U)
                return 0;
        s = strndup((const char *) data, size);
        if (!s)
                return 0;

        if (modprobe_conf_find_block(s, "irdma", &b) > 0)
                module_block_done(&b);
        if (modprobe_conf_find_block(s, "mlx5-ib", &b) > 0)
                module_block_done(&b);
        if (kernel_cmdline_parse(s, &c) >= 0 && kernel_cmdline_find_module_block(c, "irdma", &b) > 0)
                module_block_done(&b);
        return 0;
}
