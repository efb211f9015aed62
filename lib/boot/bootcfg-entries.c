/* SPDX-License-Identifier: MIT */
/* Reads the Type #1 entries of a directory such as /boot/loader/entries below a host root. */
#include <dirent.h>
#include <stdio.h>

#include "basic/strv.h"
#include "boot/bootcfg-internal.h"

void bls_entries_done(BlsEntries *l) {
        for (size_t i = 0; i < l->n; i++)
                bls_entry_done(&l->entries[i]);
        free(l->entries);
        *l = (BlsEntries){};
}

static int append_entry(
        const Host *h, const char *dir, const char *name, BlsEntries *out, char **ret_failed_path) {
        _cleanup_(freep) char *path = NULL, *text = NULL;
        _cleanup_(bls_entry_done) BlsEntry e = {};
        size_t l = strlen(name);
        BlsEntry *a;
        int r;

        if (name[0] == '.' || l <= 5 || !streq(name + l - 5, ".conf"))
                return 0;
        if (asprintf(&path, "%s/%s", dir, name) < 0)
                return -ENOMEM;
        r = host_read_file(h, path, HOST_FILE_MAX, &text, NULL);
        if (r == -EISDIR || r == -ENOENT) /* a directory, a dangling symlink */
                return 0;
        if (r < 0)
                return bootcfg_set_failed_path(ret_failed_path, path, r);
        r = bls_entry_parse(text, &e);
        if (r < 0)
                return r;
        e.id = strndup(name, l - 5);
        e.path = TAKE_PTR(path);
        a = reallocarray(out->entries, out->n + 1, sizeof(BlsEntry));
        if (!e.id || !a)
                return -ENOMEM;
        out->entries = a;
        out->entries[out->n++] = e;
        e = (BlsEntry){};
        return 0;
}

int bls_entries_load(const Host *h, const char *dir, BlsEntries *out, char **ret_failed_path) {
        _cleanup_(closedirp) DIR *d = NULL;
        _cleanup_(freep) char *full = NULL;
        int r;

        r = host_path(h, dir, &full);
        if (r < 0)
                return r;
        d = opendir(full);
        if (!d) {
                if (errno == ENOENT || errno == ENOTDIR)
                        return 0;
                return bootcfg_set_failed_path(ret_failed_path, dir, negative_errno());
        }
        for (struct dirent *de; (errno = 0, de = readdir(d));) {
                r = append_entry(h, dir, de->d_name, out, ret_failed_path);
                if (r < 0)
                        return r;
        }
        if (errno > 0)
                return bootcfg_set_failed_path(ret_failed_path, dir, -errno);
        return 0;
}
