/* SPDX-License-Identifier: MIT */
/* IPv4 addresses with a prefix length ("192.168.100.1/30"): parsing, formatting, subnet arithmetic. */
#include <arpa/inet.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/ipv4-prefix.h"
#include "basic/macro.h"

int ipv4_prefix_from_string(const char *s, Ipv4Prefix *ret) {
        char address[INET_ADDRSTRLEN];
        const char *slash;
        struct in_addr a;
        unsigned prefixlen = 0;
        size_t n;

        if (!s || !ret)
                return -EINVAL;

        slash = strchr(s, '/');
        if (!slash)
                return -EINVAL;
        n = (size_t) (slash - s);
        if (n == 0 || n >= sizeof(address))
                return -EINVAL;
        memcpy(address, s, n);
        address[n] = '\0';
        /* glibc's inet_pton() takes only four decimal octets, without leading zeros: no octal surprises. */
        if (inet_pton(AF_INET, address, &a) != 1)
                return -EINVAL;

        slash++;
        n = strlen(slash);
        if (n < 1 || n > 2 || (n == 2 && slash[0] == '0'))
                return -EINVAL;
        for (size_t i = 0; i < n; i++) {
                if (slash[i] < '0' || slash[i] > '9')
                        return -EINVAL;
                prefixlen = prefixlen * 10 + (unsigned) (slash[i] - '0');
        }
        if (prefixlen < 1 || prefixlen > 32)
                return -ERANGE;

        *ret = (Ipv4Prefix){ .address = a, .prefixlen = (uint8_t) prefixlen };
        return 0;
}

const char *ipv4_prefix_to_string(const Ipv4Prefix *p, char *buf) {
        char a[INET_ADDRSTRLEN];

        if (!inet_ntop(AF_INET, &p->address, a, sizeof(a)))
                a[0] = '\0';
        (void) snprintf(buf, IPV4_PREFIX_STRING_MAX, "%s/%u", a, p->prefixlen);
        return buf;
}

uint32_t ipv4_prefix_netmask(unsigned prefixlen) {
        if (prefixlen == 0)
                return 0;
        if (prefixlen >= 32)
                return UINT32_MAX;
        return UINT32_MAX << (32 - prefixlen);
}

bool ipv4_prefix_contains(const Ipv4Prefix *p, struct in_addr a) {
        return ((ntohl(p->address.s_addr) ^ ntohl(a.s_addr)) & ipv4_prefix_netmask(p->prefixlen)) == 0;
}

bool ipv4_prefix_same_subnet(const Ipv4Prefix *a, const Ipv4Prefix *b) {
        return a->prefixlen == b->prefixlen && ipv4_prefix_contains(a, b->address);
}

bool ipv4_prefix_is_network_or_broadcast(const Ipv4Prefix *p) {
        uint32_t host, mask;

        /* /31 (RFC 3021) and /32 have no network or broadcast address to avoid. */
        if (p->prefixlen > 30)
                return false;
        mask = ipv4_prefix_netmask(p->prefixlen);
        host = ntohl(p->address.s_addr) & ~mask;
        return host == 0 || host == ~mask;
}

bool ipv4_address_is_unicast(struct in_addr a) {
        uint32_t h = ntohl(a.s_addr);

        return (h >> 24) != 0 &&    /* 0.0.0.0/8: "this network" */
                (h >> 24) != 127 && /* loopback */
                (h >> 28) < 0xe;    /* multicast 224/4 and reserved 240/4, broadcast */
}
