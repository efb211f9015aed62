/* SPDX-License-Identifier: MIT */
/* IPv4 addresses with a prefix length ("192.168.100.1/30"): parsing, formatting, subnet arithmetic. */
#pragma once

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>

#include "basic/macro.h"

typedef struct Ipv4Prefix {
        struct in_addr address; /* network byte order */
        uint8_t prefixlen;      /* 1..32 */
} Ipv4Prefix;

/* "192.168.100.1/30" <-> Ipv4Prefix. */
int ipv4_prefix_from_string(const char *s, Ipv4Prefix *ret);
/* buf must hold at least IPV4_PREFIX_STRING_MAX bytes. */
#define IPV4_PREFIX_STRING_MAX (INET_ADDRSTRLEN + 4)
const char *ipv4_prefix_to_string(const Ipv4Prefix *p, char *buf);
/* True when both prefixes have the same length and lie in the same subnet. */
bool ipv4_prefix_same_subnet(const Ipv4Prefix *a, const Ipv4Prefix *b) _pure_;
/* True when the address a lies in p's subnet (any a for /0). */
bool ipv4_prefix_contains(const Ipv4Prefix *p, struct in_addr a) _pure_;
/* The netmask of a prefix length, in host byte order (0 for 0). */
uint32_t ipv4_prefix_netmask(unsigned prefixlen) _pure_;
/* True when p is the network or broadcast address of its subnet (not for /31 and /32). */
bool ipv4_prefix_is_network_or_broadcast(const Ipv4Prefix *p) _pure_;
/* Not 0.0.0.0/8, loopback, multicast, or the limited broadcast. */
bool ipv4_address_is_unicast(struct in_addr a) _pure_;
