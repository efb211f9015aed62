/* SPDX-License-Identifier: MIT */
/* /etc/hosts as text: the addresses it gives a name, and halod's marked block of the other nodes' names. */
#pragma once

#include <netinet/in.h>
#include <stddef.h>

#define ETC_HOSTS_PATH "/etc/hosts"
#define ETC_HOSTNAME_PATH "/etc/hostname"
#define ETC_HOSTS_BLOCK_BEGIN "# BEGIN halod"
#define ETC_HOSTS_BLOCK_END "# END halod"

/* The IPv4 addresses text (an /etc/hosts) gives name, in the file's order and without repeats, read as
 * glibc's "files" module reads it: '#' starts a comment, the first field is the address, the others
 * are names compared without regard to case. Lines of IPv6 or malformed addresses are skipped. ret is
 * NULL and *ret_n 0 when the name is not there. */
int etc_hosts_lookup(const char *text, const char *name, struct in_addr **ret, size_t *ret_n);

/* The first line of text (an /etc/hosts) that gives name the IPv4 address, read as etc_hosts_lookup()
 * reads it: its number (from 1) and its text without the newline. Returns 1 when found, 0 when no line
 * does (*ret_number 0, *ret_line NULL), -ENOMEM. */
int etc_hosts_find_line(
        const char *text, const char *name, struct in_addr address, unsigned *ret_number, char **ret_line);

/* The lines between halod's markers in text, without their newlines; NULL when text has no block.
 * -EBADMSG: a BEGIN marker without its END marker. */
int etc_hosts_block_lines(const char *text, char ***ret);

/* text with halod's block replaced by one holding lines (each "ADDRESS NAME"), in place, or appended
 * when text has none; with no lines, the block is removed. Every byte outside the block is kept.
 * -EBADMSG: a BEGIN marker without its END marker (nothing is guessed). */
int etc_hosts_replace_block(const char *text, const char *cluster, char *const *lines, char **ret);
