/* SPDX-License-Identifier: MIT */
/* os-release's ID= and ID_LIKE= words (os-release.h). */
#include <string.h>

#include "basic/os-release.h"
#include "basic/strv.h"

/* One of the value's words, quotes and blanks around them dropped, up to the end of the line (end). */
static bool value_names(const char *v, const char *end, const char *const *ids) {
        while (v < end) {
                size_t n;

                v += strspn(v, "\"' \t");
                n = strcspn(v, "\"' \t\n");
                if (n == 0)
                        return false;
                for (const char *const *id = ids; *id; id++)
                        if (n == strlen(*id) && strneq(v, *id, n))
                                return true;
                v += n;
        }
        return false;
}

bool os_release_names(const char *text, const char *const *ids) {
        for (const char *p = text; p && *p;) {
                size_t len = strcspn(p, "\n");
                const char *key = p + strspn(p, " \t"),
                           *v = startswith(key, "ID=") ?: startswith(key, "ID_LIKE=");

                if (v && value_names(v, p + len, ids))
                        return true;
                p = p[len] ? p + len + 1 : NULL;
        }
        return false;
}

int os_release_read(const Host *h, char **ret_text) {
        int r;

        if (host_read_file(h, "/etc/os-release", HOST_FILE_MAX, ret_text, NULL) >= 0)
                return 0;
        r = host_read_file(h, "/usr/lib/os-release", HOST_FILE_MAX, ret_text, NULL);
        return r < 0 ? r : 0;
}
