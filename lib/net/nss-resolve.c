/* SPDX-License-Identifier: MIT */
/* Resolving a name through NSS. */
#include <errno.h>
#include <netdb.h>
#include <stdbool.h>
#include <stdlib.h>

#include "basic/macro.h"
#include "net/nss-resolve.h"

int nss_resolve_ipv4(const char *name, struct in_addr **ret, size_t *ret_n, int *ret_gai_error) {
        _cleanup_(freep) struct in_addr *found = NULL;
        struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM }, *res = NULL;
        size_t n = 0;
        int r;

        r = getaddrinfo(name, NULL, &hints, &res);
        if (r == EAI_NONAME || r == EAI_NODATA || r == EAI_ADDRFAMILY) {
                *ret = NULL;
                *ret_n = 0;
                return 0;
        }
        if (r == EAI_MEMORY)
                return -ENOMEM;
        if (r == EAI_SYSTEM)
                return negative_errno();
        if (r != 0) {
                *ret_gai_error = r;
                return -EAGAIN;
        }

        for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
                struct in_addr a = ((const struct sockaddr_in *) ai->ai_addr)->sin_addr;
                struct in_addr *b;
                bool seen = false;

                for (size_t i = 0; i < n; i++)
                        seen = seen || found[i].s_addr == a.s_addr;
                if (seen)
                        continue;
                b = reallocarray(found, n + 1, sizeof(struct in_addr));
                if (!b) {
                        freeaddrinfo(res);
                        return -ENOMEM;
                }
                found = b;
                found[n++] = a;
        }
        freeaddrinfo(res);
        *ret = TAKE_PTR(found);
        *ret_n = n;
        return 0;
}
