/* SPDX-License-Identifier: MIT */
/* A name's IPv4 addresses through NSS (getaddrinfo(3), AF_INET), as the workload resolves it. */
#pragma once

#include <netinet/in.h>
#include <stddef.h>

/* ret NULL and *ret_n 0: the name does not resolve. -EAGAIN: getaddrinfo() failed, with its EAI_* code in
 * *ret_gai_error; -ENOMEM; another negative errno: NSS's (EAI_SYSTEM). Each address once, in NSS's order. */
int nss_resolve_ipv4(const char *name, struct in_addr **ret, size_t *ret_n, int *ret_gai_error);
