/* SPDX-License-Identifier: MIT */
/* The files halod owns outside its own directories: the marker, the guarded writer, the list, the
 * removal and the rollback of a failed apply. */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "basic/fileio.h"
#include "basic/owned-file.h"
#include "basic/strv.h"

/* Every file halod owns is a short configuration file: anything larger is not one of them. */
#define OWNED_FILE_MAX (1024 * 1024)
#define OWNED_FILE_PART_MAX 32

bool owned_file_part_is_valid(const char *part) {
        size_t n;

        if (isempty(part))
                return false;
        n = strspn(part, "abcdefghijklmnopqrstuvwxyz0123456789-");
        return part[n] == '\0' && n <= OWNED_FILE_PART_MAX;
}

int owned_file_text_part(const char *text, char **ret_part) {
        const char *rest = startswith(text, OWNED_FILE_MARKER);
        size_t n;

        if (!rest)
                return 0;
        n = strcspn(rest, "\n");
        if (n == 0 || n > OWNED_FILE_PART_MAX || rest[n] != '\n')
                return 0;
        if (ret_part) {
                char *part = strndup(rest, n);

                if (!part)
                        return -ENOMEM;
                if (!owned_file_part_is_valid(part)) {
                        free(part);
                        return 0;
                }
                *ret_part = part;
        }
        return 1;
}

/* Reads path with its mode; the same returns as owned_file_read(). */
static int read_owned(const char *path, char **ret_text, mode_t *ret_mode, char **ret_part) {
        _cleanup_(freep) char *text = NULL, *part = NULL;
        _cleanup_(closep) int fd = -EBADF;
        struct stat st;
        int r;

        r = open_regular_file(path, &fd);
        if (r == -ELOOP || r == -EISDIR)
                return -EBADFD;
        if (r < 0)
                return r;
        if (fstat(fd, &st) < 0)
                return negative_errno();
        r = read_full_fd(fd, OWNED_FILE_MAX, &text, NULL);
        if (r == -EFBIG)
                return 0;
        if (r < 0)
                return r;
        r = owned_file_text_part(text, &part);
        if (r <= 0)
                return r;
        if (ret_text)
                *ret_text = TAKE_PTR(text);
        if (ret_mode)
                *ret_mode = st.st_mode & 07777;
        if (ret_part)
                *ret_part = TAKE_PTR(part);
        return 1;
}

int owned_file_read(const char *path, char **ret_part, char **ret_body) {
        _cleanup_(freep) char *text = NULL, *part = NULL, *body = NULL;
        int r;

        r = read_owned(path, &text, NULL, &part);
        if (r <= 0)
                return r;
        if (ret_body) {
                body = strdup(strchr(text, '\n') + 1);
                if (!body)
                        return -ENOMEM;
                *ret_body = TAKE_PTR(body);
        }
        if (ret_part)
                *ret_part = TAKE_PTR(part);
        return 1;
}

/* Makes a rename in the directory of path durable. */
static int fsync_parent(const char *path) {
        _cleanup_(freep) char *dir = strdup(path);
        _cleanup_(closep) int fd = -EBADF;
        char *slash;

        if (!dir)
                return -ENOMEM;
        slash = strrchr(dir, '/');
        if (!slash)
                return 0;
        /* "/etc" keeps its root, "etc/x" its folder. */
        if (slash == dir)
                slash[1] = '\0';
        else
                *slash = '\0';
        fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0 || fsync(fd) < 0)
                return negative_errno();
        return 0;
}

static int ensure_parent(const char *path) {
        _cleanup_(freep) char *dir = strdup(path);
        char *slash;

        if (!dir)
                return -ENOMEM;
        slash = strrchr(dir, '/');
        if (!slash || slash == dir)
                return 0;
        *slash = '\0';
        if (mkdir(dir, 0755) < 0 && errno != EEXIST)
                return negative_errno();
        return 0;
}

static int write_durably(const char *path, const char *data, size_t size, mode_t mode) {
        int r;

        r = ensure_parent(path);
        if (r < 0)
                return r;
        r = write_file_atomic(path, data, size, mode);
        if (r < 0)
                return r;
        return fsync_parent(path);
}

int owned_file_write(const char *path, const char *part, const char *body, mode_t mode) {
        _cleanup_(freep) char *text = NULL, *old = NULL, *old_part = NULL;
        mode_t old_mode = 0;
        int r;

        if (!owned_file_part_is_valid(part))
                return -EINVAL;
        if (asprintf(&text, OWNED_FILE_MARKER "%s\n%s", part, body) < 0)
                return -ENOMEM;

        r = read_owned(path, &old, &old_mode, &old_part);
        if (r == 0 || r == -EBADFD || (r > 0 && !streq(old_part, part)))
                return -EEXIST;
        if (r < 0 && r != -ENOENT)
                return r;
        if (r > 0 && streq(old, text) && old_mode == (mode & 07777))
                return 0;

        r = write_durably(path, text, strlen(text), mode);
        return r < 0 ? r : 1;
}

int owned_file_remove(const char *path, const char *part) {
        _cleanup_(freep) char *old_part = NULL;
        int r;

        r = read_owned(path, NULL, NULL, &old_part);
        if (r == -ENOENT)
                return 0;
        if (r == 0 || r == -EBADFD || (r > 0 && part && !streq(old_part, part)))
                return -EEXIST;
        if (r < 0)
                return r;
        if (unlink(path) < 0)
                return errno == ENOENT ? 0 : negative_errno();
        r = fsync_parent(path);
        return r < 0 ? r : 1;
}

static int compare_strings(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

int owned_file_list(const char *dir, const char *part, char ***ret) {
        _cleanup_(closedirp) DIR *d = NULL;
        _cleanup_(strv_freep) char **l = NULL;
        struct dirent *de;
        int r;

        d = opendir(dir);
        if (!d) {
                if (errno != ENOENT)
                        return negative_errno();
                *ret = NULL;
                return 0;
        }
        while ((de = readdir(d))) {
                _cleanup_(freep) char *path = NULL, *found = NULL;

                if (de->d_name[0] == '.')
                        continue;
                if (asprintf(&path, "%s/%s", dir, de->d_name) < 0)
                        return -ENOMEM;
                r = read_owned(path, NULL, NULL, &found);
                if (r == -ENOMEM)
                        return r;
                if (r <= 0 || (part && !streq(found, part)))
                        continue;
                r = strv_consume(&l, TAKE_PTR(path));
                if (r < 0)
                        return r;
        }
        if (l)
                qsort(l, strv_length(l), sizeof(char *), compare_strings);
        *ret = TAKE_PTR(l);
        return 0;
}

typedef struct SavedFile {
        char *path;
        char *content; /* NULL: there was no file */
        size_t size;
        mode_t mode;
} SavedFile;

struct OwnedFileRollback {
        SavedFile *files;
        size_t n;
};

int owned_file_rollback_save(OwnedFileRollback **rb, const char *path) {
        _cleanup_(freep) char *copy = NULL, *content = NULL;
        _cleanup_(closep) int fd = -EBADF;
        SavedFile *files;
        size_t size = 0;
        struct stat st = {};
        int r;

        if (!*rb) {
                *rb = calloc(1, sizeof(OwnedFileRollback));
                if (!*rb)
                        return -ENOMEM;
        }
        for (size_t i = 0; i < (*rb)->n; i++)
                if (streq((*rb)->files[i].path, path))
                        return 0;

        r = open_regular_file(path, &fd);
        if (r >= 0) {
                if (fstat(fd, &st) < 0)
                        return negative_errno();
                r = read_full_fd(fd, OWNED_FILE_MAX, &content, &size);
        }
        if (r < 0 && r != -ENOENT)
                return r;

        copy = strdup(path);
        if (!copy)
                return -ENOMEM;
        files = reallocarray((*rb)->files, (*rb)->n + 1, sizeof(SavedFile));
        if (!files)
                return -ENOMEM;
        (*rb)->files = files;
        files[(*rb)->n++] = (SavedFile){
                .path = TAKE_PTR(copy),
                .content = TAKE_PTR(content),
                .size = size,
                .mode = st.st_mode & 07777,
        };
        return 0;
}

int owned_file_rollback(OwnedFileRollback *rb) {
        int ret = 0;

        for (size_t i = rb ? rb->n : 0; i > 0; i--) {
                const SavedFile *f = &rb->files[i - 1];
                int r;

                if (f->content)
                        r = write_durably(f->path, f->content, f->size, f->mode);
                else if (unlink(f->path) >= 0)
                        r = fsync_parent(f->path);
                else
                        r = errno == ENOENT ? 0 : negative_errno();
                if (r < 0 && ret == 0)
                        ret = r;
        }
        return ret;
}

OwnedFileRollback *owned_file_rollback_free(OwnedFileRollback *rb) {
        if (!rb)
                return NULL;
        for (size_t i = 0; i < rb->n; i++) {
                free(rb->files[i].path);
                free(rb->files[i].content);
        }
        free(rb->files);
        return mfree(rb);
}
