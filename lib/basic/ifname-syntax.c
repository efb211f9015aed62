/* SPDX-License-Identifier: MIT */
/* Interface names against the syntax of systemd-networkd's Name= and of NCCL's interface lists. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "basic/ifname-syntax.h"
#include "basic/macro.h"
#include "basic/untrusted-string.h"

static const char *networkd_byte_problem(char c, size_t index) {
        if (index == 0 && c == '!')
                return "a leading '!' inverts systemd-networkd's Name=, which then matches every other interface";
        if (strchr("*?[", c))
                return "a glob character in systemd-networkd's Name=, which then matches other interfaces too";
        if (c == '\\')
                return "an escape in systemd-networkd's Name= (fnmatch(3)), and at the end of a line a continuation";
        if (strchr(":/%", c))
                return "a character systemd-networkd refuses in Name= (ifname_valid_full()), which drops the "
                       "assignment";
        return NULL;
}

static const char *nccl_byte_problem(char c, size_t index) {
        if (c == ',')
                return "the separator of NCCL's and Gloo's interface lists, which then name two interfaces";
        if (c == ':')
                return "the start of a port in NCCL's interface lists";
        if (index == 0 && c == '^')
                return "a leading '^' makes NCCL's list exclude the interface and take every other one";
        if (index == 0 && c == '=')
                return "a leading '=' changes how NCCL matches its list";
        return NULL;
}

const char *ifname_syntax_problem(const char *name, IfnameSyntax s, size_t *ret_index) {
        if (!name || name[0] == '\0') {
                *ret_index = 0;
                return "an empty name";
        }
        for (size_t i = 0; name[i]; i++) {
                unsigned char c = (unsigned char) name[i];
                const char *why;

                if (c <= 0x20 || c >= 0x7f)
                        why = "not printable ASCII, which a configuration file or an environment variable "
                              "does not carry as itself";
                else
                        why = s == IFNAME_SYNTAX_NETWORKD_NAME ? networkd_byte_problem(name[i], i)
                                                               : nccl_byte_problem(name[i], i);
                if (why) {
                        *ret_index = i;
                        return why;
                }
        }
        return NULL;
}

const char *ifname_syntax_byte(const char *name, size_t index, char buf[static 7]) {
        unsigned char c = (unsigned char) name[index];

        if (c > 0x20 && c < 0x7f)
                (void) snprintf(buf, 7, "'%c'", c);
        else
                (void) snprintf(buf, 7, "'\\x%02x'", c);
        return buf;
}

int ifname_syntax_check(const char *name, IfnameSyntax s, char **ret_problem) {
        _cleanup_(freep) char *shown = NULL;
        const char *why;
        char byte[7];
        size_t at;

        why = ifname_syntax_problem(name, s, &at);
        if (!why)
                return 0;
        shown = untrusted_escape_dup(strempty(name));
        if (!shown ||
            asprintf(ret_problem, "'%s' holds %s, %s", shown, ifname_syntax_byte(name ?: "", at, byte), why) <
                    0)
                return -ENOMEM;
        return -EINVAL;
}
