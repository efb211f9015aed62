/* SPDX-License-Identifier: MIT */
/* Fuzzes the netplan reader: no crash, no leak, and an answer is either no id or ids that are strings. */
#include <stdint.h>
#include <stdlib.h>

#include "basic/macro.h"
#include "basic/strv.h"
#include "net/netplan-match.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        static const NetdevIdentity id = {
                .ifname = "rdma0", .mac = "b8:3f:d2:00:00:01", .driver = "mlx5_core", .type = "ether"
        };
        _cleanup_(strv_freep) char **ids = NULL;

        if (size > NETPLAN_FILE_MAX)
                return 0;
        if (netplan_file_matches((const char *) data, size, &id, &ids) < 0)
                return 0;
        STRV_FOREACH(i, ids)
                if (!*i)
                        abort();
        return 0;
}
