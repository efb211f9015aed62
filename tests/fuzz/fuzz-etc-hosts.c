/* SPDX-License-Identifier: MIT */
/* Fuzzes the /etc/hosts reader and halod's block: no crash; a file whose block can be replaced keeps
 * every byte outside it, and replacing the block twice gives the same file; every address a name
 * resolves to has the line that gives it. */
#include <stdint.h>
#include <stdlib.h>

#include "basic/etc-hosts.h"
#include "basic/macro.h"
#include "basic/strv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        _cleanup_(freep) char *s = NULL, *once = NULL, *twice = NULL, *none = NULL;
        _cleanup_(freep) struct in_addr *a = NULL;
        _cleanup_(strv_freep) char **block = NULL;
        char *lines[] = { (char *) "192.168.100.2 halo-2", NULL };
        size_t n;
        int r;

        if (size > 64 * 1024)
                return 0;
        s = strndup((const char *) data, size);
        if (!s)
                return 0;

        if (etc_hosts_lookup(s, "halo-2", &a, &n) == 0 && (n == 0) != !a)
                abort();
        /* Every address the lookup gives has the line that gives it. */
        for (size_t i = 0; a && i < n; i++) {
                _cleanup_(freep) char *line = NULL;
                unsigned number;

                r = etc_hosts_find_line(s, "halo-2", a[i], &number, &line);
                if (r == 0 || (r > 0 && (number == 0 || !line)))
                        abort();
        }
        r = etc_hosts_block_lines(s, &block);
        if (r < 0 && r != -EBADMSG && r != -ENOMEM)
                abort();
        r = etc_hosts_replace_block(s, "fuzz", lines, &once);
        if (r < 0) {
                if (r != -EBADMSG && r != -ENOMEM)
                        abort();
                return 0;
        }
        if (etc_hosts_replace_block(once, "fuzz", lines, &twice) == 0 && !streq(once, twice))
                abort();
        /* Without the block, the file is what it was around it. */
        if (!block && etc_hosts_replace_block(once, "fuzz", NULL, &none) == 0 &&
            strncmp(none, s, strlen(s)) != 0)
                abort();
        return 0;
}
