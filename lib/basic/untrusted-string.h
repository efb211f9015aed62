/* SPDX-License-Identifier: MIT */
/* Strings from outside halod (process names, sysfs and firmware strings) made safe to show: on a
 * terminal, in the journal, over D-Bus (valid UTF-8 only), in metrics and in files. */
#pragma once

#include <stddef.h>

/* Writes s (n bytes, or up to its NUL) to buf as text that carries no control sequence: every C0
 * control byte, DEL, a C1 control (U+0080..U+009F, which some terminals read as CSI), a byte that is
 * not part of valid UTF-8, and the backslash itself become "\xNN", as systemd's cescape() and
 * utf8_escape_invalid() spell them; everything else is copied. An escape is never cut: buf ends
 * before one that does not fit. buf is always NUL-terminated (size > 0). Returns the length written. */
size_t untrusted_escape(const char *s, size_t n, char *buf, size_t size);

/* The same in place, for a fixed buffer the reader filled (a comm name, an ethtool field): what does
 * not fit after escaping is cut, at an escape's edge. */
void untrusted_escape_in_place(char *buf, size_t size);

/* A new string: s escaped whole. NULL when out of memory. */
char *untrusted_escape_dup(const char *s);

/* Replaces *s (which may be NULL) by its escaped copy when it needs one. Returns 0 or -ENOMEM (*s is
 * then left alone). */
int untrusted_escape_replace(char **s);
