/* SPDX-License-Identifier: MIT */
/* Fuzzes what halod reads back of its own files: the marker line (basic/owned-file.h) and the boot
 * part's undo record (/etc/halod/boot-undo.conf): no crash, and a record that parses gives lists of
 * single parameters. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "basic/macro.h"
#include "basic/owned-file.h"
#include "basic/strv.h"
#include "plan/boot-plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        _cleanup_(boot_undo_done) BootUndo u = {};
        _cleanup_(freep) char *s = NULL, *part = NULL;
        int r;

        if (size > 64 * 1024)
                return 0;
        s = strndup((const char *) data, size);
        if (!s)
                return 0;

        r = owned_file_text_part(s, &part);
        if (r < 0 && r != -ENOMEM)
                abort();
        if (r > 0 && !owned_file_part_is_valid(part))
                abort();

        r = boot_undo_parse(r > 0 ? strchr(s, '\n') + 1 : s, &u);
        if (r < 0 && r != -ENOMEM && r != -E2BIG)
                abort();
        STRV_FOREACH(p, u.added)
                if (isempty(*p))
                        abort();
        if (u.cmdline_before && strchr(u.cmdline_before, '\n'))
                abort();
        return 0;
}
