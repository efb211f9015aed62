/* SPDX-License-Identifier: MIT */
/* Looking a group up in /etc/group's text by name or by GID. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "basic/etc-group.h"
#include "basic/macro.h"

int etc_group_gid(const char *text, const char *name, gid_t *ret) {
        _cleanup_(freep) char *data = strdup(text);
        char *save = NULL;
        size_t n = strlen(name);

        if (!data)
                return -ENOMEM;
        for (char *line = strtok_r(data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                unsigned long gid;
                char *colon, *end;

                if (strncmp(line, name, n) != 0 || line[n] != ':')
                        continue;
                colon = strchr(line + n + 1, ':');
                if (!colon)
                        return -EBADMSG;
                gid = strtoul(colon + 1, &end, 10);
                if (end == colon + 1 || *end != ':')
                        return -EBADMSG;
                *ret = (gid_t) gid;
                return 0;
        }
        return -ENOENT;
}

int etc_group_name(const char *text, gid_t gid, char **ret) {
        _cleanup_(freep) char *data = strdup(text);
        char *save = NULL;

        *ret = NULL;
        if (!data)
                return -ENOMEM;
        for (char *line = strtok_r(data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                char *name_end = strchr(line, ':'), *gid_field, *end;
                unsigned long g;

                if (!name_end)
                        continue;
                gid_field = strchr(name_end + 1, ':');
                if (!gid_field)
                        continue;
                errno = 0;
                g = strtoul(gid_field + 1, &end, 10);
                if (errno > 0 || end == gid_field + 1 || *end != ':' || g != (unsigned long) gid)
                        continue;
                *ret = strndup(line, name_end - line);
                return *ret ? 0 : -ENOMEM;
        }
        return 0;
}
