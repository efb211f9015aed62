/* SPDX-License-Identifier: MIT */
/* os-release(5): which family a host's distribution belongs to, by the words of ID= and ID_LIKE=. */
#pragma once

#include <stdbool.h>

#include "basic/host.h"

/* Whether one of the words of ID= or ID_LIKE= in an os-release text is among ids (NULL-terminated):
 * quotes and blanks around the words are dropped, other keys (VERSION_ID=, PRETTY_NAME=) are not read. */
bool os_release_names(const char *text, const char *const *ids) _pure_;

/* The host's os-release, read as os-release(5) says: /etc/os-release, else /usr/lib/os-release.
 * Returns 0, or -errno of the second read when neither can be read. */
int os_release_read(const Host *h, char **ret_text);
