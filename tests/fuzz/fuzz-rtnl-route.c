/* SPDX-License-Identifier: MIT */
/* Fuzzes the rtnetlink route parser (a route dump's reply, as rtnl_dump() reads it). */
#include <stdint.h>
#include <stdlib.h>

#include "net/rtnl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        RtnlRoute *routes = NULL;
        size_t n = 0, sum = 0;
        char buf[RTNL_ROUTE_STRING_MAX];

        (void) rtnl_parse_routes(data, size, &routes, &n);
        /* Touch what a caller reads, so that a parser bug shows under the sanitizers. */
        for (size_t i = 0; i < n; i++)
                sum += strlen(rtnl_route_to_string(&routes[i], buf)) + (size_t) routes[i].ifindex;
        free(routes);
        return sum == SIZE_MAX;
}
