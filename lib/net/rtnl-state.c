/* SPDX-License-Identifier: MIT */
/* Looking things up in a dumped link state, and printing its values as ip(8) does. */
/* glibc's net/if.h must come before linux/if.h (which then leaves out what glibc defined). */
#include <net/if.h>

#include <linux/if.h>
#include <stdio.h>

#include "net/rtnl.h"

void rtnl_state_done(RtnlState *s) {
        if (!s)
                return;
        for (size_t i = 0; i < s->n_links; i++)
                free(s->links[i].addresses);
        s->links = mfree(s->links);
        s->n_links = 0;
        s->routes = mfree(s->routes);
        s->n_routes = 0;
}

const RtnlLink *rtnl_state_find_by_name(const RtnlState *s, const char *name) {
        for (size_t i = 0; i < s->n_links; i++)
                if (streq(s->links[i].name, name))
                        return &s->links[i];
        return NULL;
}

const RtnlLink *rtnl_state_find_by_index(const RtnlState *s, int ifindex) {
        for (size_t i = 0; i < s->n_links; i++)
                if (s->links[i].ifindex == ifindex)
                        return &s->links[i];
        return NULL;
}

const RtnlLink *
        rtnl_state_find_address_owner(const RtnlState *s, const struct in_addr *address, int except_ifindex) {
        for (size_t i = 0; i < s->n_links; i++) {
                const RtnlLink *l = &s->links[i];

                if (l->ifindex == except_ifindex)
                        continue;
                for (size_t j = 0; j < l->n_addresses; j++)
                        if (l->addresses[j].address.s_addr == address->s_addr)
                                return l;
        }
        return NULL;
}

const RtnlAddress *rtnl_link_find_address(const RtnlLink *l, const struct in_addr *address, uint8_t prefixlen) {
        for (size_t i = 0; i < l->n_addresses; i++)
                if (l->addresses[i].address.s_addr == address->s_addr && l->addresses[i].prefixlen == prefixlen)
                        return &l->addresses[i];
        return NULL;
}

static const char *const operstate_table[] = {
        [IF_OPER_UNKNOWN] = "unknown", [IF_OPER_NOTPRESENT] = "notpresent",
        [IF_OPER_DOWN] = "down",       [IF_OPER_LOWERLAYERDOWN] = "lowerlayerdown",
        [IF_OPER_TESTING] = "testing", [IF_OPER_DORMANT] = "dormant",
        [IF_OPER_UP] = "up",
};

const char *rtnl_operstate_to_string(uint8_t operstate) {
        if (operstate >= ELEMENTSOF(operstate_table) || !operstate_table[operstate])
                return "unknown";
        return operstate_table[operstate];
}

const char *rtnl_link_mac_to_string(const RtnlLink *l, char *buf) {
        char *p = buf;

        buf[0] = '\0';
        for (size_t i = 0; i < l->mac_len && i < RTNL_MAC_MAX; i++)
                p += sprintf(p, "%s%02x", i > 0 ? ":" : "", l->mac[i]);
        return buf;
}
