/* SPDX-License-Identifier: MIT */
/* The hosts. checks: hosts.<node>, each other node's hostname resolves here to its fabric address. */
#pragma once

#include <netinet/in.h>

#include "check/checks.h"

/* The group, from the snapshot s its caller read; names resolve through NSS, or below --root in the
 * snapshot's ROOT/etc/hosts. */
int check_hosts(
        const NodeContext *c, const Snapshot *s, const CheckHistory *before, CheckHistory *after, CheckList *out);

/* The IPv4 addresses name resolves to on the host, from the snapshot's facts: through NSS (getaddrinfo(3),
 * AF_INET) on the running system, as the workload resolves it (SNAPSHOT_NAMES; -ENOMEDIUM when it did not
 * ask for name); from ROOT/etc/hosts below a --root tree, which NSS cannot be pointed at
 * (SNAPSHOT_ETC_HOSTS). ret_source says which ("NSS" or the file's path). ret NULL and *ret_n 0: the name
 * does not resolve. -EAGAIN: getaddrinfo() failed, with its EAI_* code in *ret_gai_error (may be NULL; 0
 * otherwise); another negative errno: NSS's (EAI_SYSTEM), or the file's that could not be read. */
int hosts_resolve(
        const Host *h,
        const SnapshotHost *facts,
        const char *name,
        struct in_addr **ret,
        size_t *ret_n,
        char **ret_source,
        int *ret_gai_error);
/* "192.168.100.2,10.0.0.12": the addresses a name resolved to, as the hosts checks' actual value
 * ("" for none). Returns 0 or -ENOMEM. */
int hosts_addresses_to_string(const struct in_addr *addresses, size_t n, char **ret);
/* The name of a getaddrinfo() error code: "EAI_AGAIN", "EAI_FAIL"; "EAI_?" for another. */
const char *gai_error_name(int error) _pure_;
