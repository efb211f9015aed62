/* SPDX-License-Identifier: MIT */
/* Whether a kernel's interface name reads as itself where another program parses it as a pattern or a
 * list. The kernel accepts any byte but '/', ':' and white space in a name (dev_valid_name()), so a
 * name halod (CAP_NET_ADMIN) gives a link may be '*', '!eth0' or '^lo'. */
#pragma once

#include <stddef.h>

typedef enum IfnameSyntax {
        /* systemd-networkd's [Match] Name= (src/shared/net-condition.c, config_parse_match_ifnames()): a
         * leading '!' inverts the list, each entry is an fnmatch(3) glob ('*', '?', '[', '\'), and an
         * entry with a byte ifname_valid_full() refuses (':', '/', '%', not printable ASCII) is dropped,
         * leaving a [Match] that networkd reads differently. */
        IFNAME_SYNTAX_NETWORKD_NAME,
        /* NCCL_SOCKET_IFNAME and NCCL_IB_HCA (NCCL's parseStringList()): ',' separates entries, ':' starts
         * a port, a leading '^' excludes the list and a leading '=' makes it exact; GLOO_SOCKET_IFNAME
         * (PyTorch) splits at ','. Only printable ASCII goes into an environment value. */
        IFNAME_SYNTAX_NCCL_LIST,
        _IFNAME_SYNTAX_MAX,
} IfnameSyntax;

/* NULL when name reads as itself alone in syntax s; else why not, for the user ("a glob that matches
 * any characters in systemd-networkd's Name="), and *ret_index is the byte at fault. */
const char *ifname_syntax_problem(const char *name, IfnameSyntax s, size_t *ret_index);

/* "'*'" or "'\x1b'": the byte at fault as the error shows it. buf holds at least 7 bytes. */
const char *ifname_syntax_byte(const char *name, size_t index, char buf[static 7]);

/* 0 when name reads as itself alone in syntax s; else -EINVAL and, for the user, "'^lo' holds '^', a
 * leading '^' makes NCCL's list ..." (the name escaped for a terminal) in *ret_problem. -ENOMEM. */
int ifname_syntax_check(const char *name, IfnameSyntax s, char **ret_problem);
