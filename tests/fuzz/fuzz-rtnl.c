/* SPDX-License-Identifier: MIT */
/* Fuzzes the rtnetlink message parser (link, address and route messages, as a monitor socket reads them). */
#include <stdint.h>

#include "net/rtnl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int on_event(const RtnlEvent *e, void *userdata) {
        size_t *n = userdata;

        /* Touch what a caller reads, so that a parser bug shows under the sanitizers. */
        if (e->link)
                *n += strlen(e->link->name) + e->link->mac_len + e->link->mtu;
        if (e->address)
                *n += e->address->prefixlen + e->address->address.s_addr;
        if (e->route)
                *n += e->route->dst_len + e->route->gateway.s_addr + (size_t) e->route->ifindex;
        return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        size_t n = 0;

        (void) rtnl_parse_events(data, size, on_event, &n);
        return 0;
}
