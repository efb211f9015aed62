/* SPDX-License-Identifier: MIT */
/* Fuzzes the parsers of ib_core's sysfs attributes that a host tree's RDMA facts are read with: the
 * first byte picks the attribute, the rest is its text. */
#include <stdint.h>
#include <stdlib.h>

#include "rdma/rdma-sysfs-read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        _cleanup_(freep) char *s = NULL;
        struct in6_addr gid;
        RdmaGidType type;
        unsigned u;
        int r;

        if (size < 1 || size > 4096)
                return 0;
        s = strndup((const char *) data + 1, size - 1);
        if (!s)
                return 0;
        switch (data[0] % 4) {
        case 0:
                r = rdma_sysfs_parse_numbered(s, &u);
                if (r == 0 && u > INT32_MAX)
                        abort();
                break;
        case 1:
                r = rdma_sysfs_parse_gid(s, &gid);
                break;
        case 2:
                r = rdma_sysfs_parse_gid_type(
                        s, data[0] & 0x10 ? RDMA_LINK_LAYER_INFINIBAND : RDMA_LINK_LAYER_ETHERNET, &type);
                if (r == 0 && (type < 0 || type >= _RDMA_GID_TYPE_MAX))
                        abort();
                break;
        default:
                r = rdma_sysfs_parse_link_layer(s, &u);
                break;
        }
        if (r != 0 && r != -EBADMSG)
                abort(); /* the parsers know no other errors */
        return 0;
}
