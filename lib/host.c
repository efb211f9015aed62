/* SPDX-License-Identifier: MIT */
/* Paths below the host root, so that checks can run against fixture trees. */
#include <ctype.h>
#include <stdio.h>

#include "fileio.h"
#include "host.h"
#include "macro.h"

int host_path(const Host *h, const char *path, char **ret) {
        const char *root = h && h->root ? h->root : "";
        size_t l = strlen(root);
        char *p;

        /* "/" and "" both mean the running system. */
        while (l > 0 && root[l - 1] == '/')
                l--;
        if (asprintf(&p, "%.*s%s", (int) l, root, path) < 0)
                return -ENOMEM;
        *ret = p;
        return 0;
}

int host_read_file(const Host *h, const char *path, size_t max, char **ret, size_t *ret_size) {
        _cleanup_(freep) char *p = NULL;
        int r;

        r = host_path(h, path, &p);
        if (r < 0)
                return r;
        return read_full_file(p, max, ret, ret_size);
}

int host_read_line(const Host *h, const char *path, char **ret) {
        char *s = NULL;
        size_t n;
        int r;

        r = host_read_file(h, path, HOST_FILE_MAX, &s, &n);
        if (r < 0)
                return r;
        while (n > 0 && isspace((unsigned char) s[n - 1]))
                s[--n] = '\0';
        *ret = s;
        return 0;
}
