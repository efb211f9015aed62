/* SPDX-License-Identifier: MIT */
/* Paths below the host root, and reading files, links and directories there, so that checks can run
 * against fixture trees. */
#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>

#include "basic/fileio.h"
#include "basic/host.h"
#include "basic/macro.h"
#include "basic/strv.h"

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

bool host_path_exists(const Host *h, const char *path) {
        _cleanup_(freep) char *full = NULL;

        return host_path(h, path, &full) >= 0 && access(full, F_OK) >= 0;
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

int host_readlink_basename(const Host *h, const char *path, char **ret) {
        _cleanup_(freep) char *p = NULL;
        char target[PATH_MAX];
        const char *base;
        ssize_t n;
        int r;

        r = host_path(h, path, &p);
        if (r < 0)
                return r;
        n = readlink(p, target, sizeof(target) - 1);
        if (n < 0)
                return negative_errno();
        target[n] = '\0';
        while (n > 1 && target[n - 1] == '/')
                target[--n] = '\0';
        base = strrchr(target, '/');
        base = base ? base + 1 : target;
        if (isempty(base))
                return -EBADMSG;
        *ret = strdup(base);
        return *ret ? 0 : -ENOMEM;
}

static int compare_strings(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

int host_list_directory(const Host *h, const char *path, char ***ret) {
        _cleanup_(strv_freep) char **l = NULL;
        _cleanup_(closedirp) DIR *d = NULL;
        _cleanup_(freep) char *p = NULL;
        int r;

        r = host_path(h, path, &p);
        if (r < 0)
                return r;
        d = opendir(p);
        if (!d)
                return negative_errno();
        for (struct dirent *de; (de = readdir(d));) {
                if (streq(de->d_name, ".") || streq(de->d_name, ".."))
                        continue;
                r = strv_extend(&l, de->d_name);
                if (r < 0)
                        return r;
        }
        if (l)
                qsort(l, strv_length(l), sizeof(char *), compare_strings);
        *ret = TAKE_PTR(l);
        return 0;
}

static bool has_suffix(const char *s, const char *suffix) {
        size_t n = strlen(s), k = strlen(suffix);

        return n > k && streq(s + n - k, suffix);
}

static int compare_basenames(const void *a, const void *b) {
        return strcmp(strrchr(*(char *const *) a, '/'), strrchr(*(char *const *) b, '/'));
}

int host_conf_files(const Host *h, const char *const *dirs, size_t n_dirs, const char *suffix, char ***ret) {
        _cleanup_(strv_freep) char **names = NULL, **paths = NULL;

        for (size_t d = 0; d < n_dirs; d++) {
                _cleanup_(strv_freep) char **entries = NULL;

                if (host_list_directory(h, dirs[d], &entries) == -ENOMEM)
                        return -ENOMEM;
                STRV_FOREACH(e, entries)
                        if (has_suffix(*e, suffix) && !strv_contains(names, *e) &&
                            (strv_extend(&names, *e) < 0 || strv_extendf(&paths, "%s/%s", dirs[d], *e) < 0))
                                return -ENOMEM;
        }
        if (paths)
                qsort(paths, strv_length(paths), sizeof(char *), compare_basenames);
        *ret = TAKE_PTR(paths);
        return 0;
}

bool host_is_running_system(const Host *h) {
        return !h || isempty(h->root) || streq(h->root, "/");
}
