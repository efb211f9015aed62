/* SPDX-License-Identifier: MIT */
/* Fuzzes the [Match] reader of .network files: no crash, and the answer does not depend on a trailing
 * newline. */
#include <stdint.h>
#include <stdlib.h>

#include "basic/macro.h"
#include "net/networkd-match.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        static const NetdevIdentity id = { .ifname = "rdma0",
                                           .mac = "6c:fe:54:00:00:01",
                                           .permanent_mac = "6c:fe:54:00:00:01",
                                           .driver = "ice",
                                           .type = "ether" };
        static const NetdevIdentity bare = { .ifname = "veth0" };
        _cleanup_(freep) char *s = NULL, *nl = NULL;
        bool a, b;

        if (size > 64 * 1024)
                return 0;
        s = strndup((const char *) data, size);
        if (!s || asprintf(&nl, "%s\n", s) < 0)
                return 0;
        if (networkd_file_matches(s, &id, &a) < 0 || networkd_file_matches(nl, &id, &b) < 0)
                return 0;
        if (a != b)
                abort();
        (void) networkd_file_matches(s, &bare, &a);
        return 0;
}
