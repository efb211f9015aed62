/* SPDX-License-Identifier: MIT */
/* Fuzzes the kernel command line splitter and the requirement comparison with arbitrary bytes. */
#include <stdint.h>

#include "basic/strv.h"
#include "boot/cmdline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        static char *required[] = {
                (char *) "iommu=pt",
                (char *) "pcie-aspm=off",
                (char *) "quiet",
                (char *) "dyndbg=\"file a.c +p\"",
                NULL,
        };
        _cleanup_(kernel_cmdline_freep) KernelCmdline *c = NULL;
        _cleanup_(strv_freep) char **missing = NULL, **missing_self = NULL, **self = NULL;
        _cleanup_(freep) char *s = NULL, *name = NULL, *value = NULL;

        if (size > KERNEL_CMDLINE_MAX + 1)
                return 0;
        s = strndup((const char *) data, size); /* the kernel's string stops at the first NUL too */
        if (!s)
                return 0;

        if (kernel_cmdline_parse(s, &c) < 0)
                return 0;
        (void) kernel_cmdline_missing(c, required, &missing);

        /* Every parameter written back out as a requirement: formatting and re-splitting must cope with
         * whatever the splitter produced (names with spaces, values with quotes). */
        for (size_t i = 0; i < c->n_params; i++) {
                char *p = kernel_param_to_string(c->params[i].name, c->params[i].value);

                if (!p || strv_consume(&self, p) < 0)
                        return 0;
                (void) kernel_cmdline_find(c, c->params[i].name);
        }
        (void) kernel_cmdline_missing(c, self, &missing_self);
        (void) kernel_param_parse_one(s, &name, &value);
        return 0;
}
