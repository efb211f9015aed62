/* SPDX-License-Identifier: MIT */
/* Fuzzes /etc/group's lookups: no crash, and a name found for a GID is a non-empty first field. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "basic/etc-group.h"
#include "basic/macro.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        _cleanup_(freep) char *s = NULL, *name = NULL;
        gid_t gid;
        int r;

        if (size > 64 * 1024)
                return 0;
        s = strndup((const char *) data, size);
        if (!s)
                return 0;

        r = etc_group_gid(s, "rdma", &gid);
        if (r < 0 && r != -ENOENT && r != -EBADMSG && r != -ENOMEM)
                abort();
        r = etc_group_name(s, 105, &name);
        if (r < 0 && r != -ENOMEM)
                abort();
        if (name && (strchr(name, ':') || strchr(name, '\n')))
                abort();
        return 0;
}
