/* SPDX-License-Identifier: MIT */
/* Opens a profile only when nobody but root could have written it: owner and mode of the file, of every
 * directory on its path and of every symlink followed on the way, each judged on the descriptor that the
 * walk goes on from, so that nothing can be swapped between the judgement and the read. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/errorf.h"
#include "basic/file-owner.h"
#include "basic/macro.h"
#include "profile/profile-trust.h"

/* As the kernel's MAXSYMLINKS. */
#define SYMLINKS_MAX 40U

static int check_directory(const char *dir, const struct stat *st, char **ret_error) {
        char owner[128];

        if (!file_owner_trusted(st->st_uid))
                return errorf(
                        ret_error,
                        -EPERM,
                        "%s: not trusted as a profile's directory: it is owned by %s, who could replace the "
                        "profile; halod only reads a profile that root controls. Run: chown root:root %s",
                        dir,
                        file_owner_name(st->st_uid, owner, sizeof(owner)),
                        dir);
        if ((st->st_mode & (S_IWGRP | S_IWOTH)) && !(st->st_mode & S_ISVTX))
                return errorf(
                        ret_error,
                        -EPERM,
                        "%s: not trusted as a profile's directory: mode %04o lets %s replace the profile; "
                        "halod only reads a profile that root controls. Run: chmod go-w %s",
                        dir,
                        (unsigned) (st->st_mode & 07777),
                        st->st_mode & S_IWOTH ? "anyone" : "its group",
                        dir);
        return 0;
}

static int check_file(const char *file, const struct stat *st, char **ret_error) {
        char owner[128];

        if (!S_ISREG(st->st_mode))
                return errorf(
                        ret_error,
                        -EPERM,
                        "%s: not a regular file (mode %06o); the profile must be a plain file.",
                        file,
                        (unsigned) st->st_mode);
        if (!file_owner_trusted(st->st_uid) || (st->st_mode & (S_IWGRP | S_IWOTH)))
                return errorf(
                        ret_error,
                        -EPERM,
                        "%s: profile not trusted: it is owned by %s with mode %04o, so %s could change how "
                        "this machine is configured. halod only reads a profile that root owns and only root "
                        "may write. Run: chown root:root %s; chmod 644 %s",
                        file,
                        file_owner_name(st->st_uid, owner, sizeof(owner)),
                        (unsigned) (st->st_mode & 07777),
                        !file_owner_trusted(st->st_uid) ? "its owner"
                                : st->st_mode & S_IWOTH ? "anyone"
                                                        : "its group",
                        file,
                        file);
        return 0;
}

/* r is negative errno; where is the file or directory that failed, when it is not path itself. */
static int cannot_read(const char *path, const char *where, int r, char **ret_error) {
        if (where && !streq(where, path))
                return errorf(
                        ret_error,
                        r,
                        "%s: cannot read the profile: %s: %s (expected a readable YAML file)",
                        path,
                        where,
                        strerror(-r));
        return errorf(
                ret_error,
                r,
                "%s: cannot read the profile: %s (expected a readable YAML file)",
                path,
                strerror(-r));
}

/* "/a/b" + "c" → "/a/b/c", "/" + "c" → "/c"; NULL when out of memory. */
static char *path_child(const char *dir, const char *name) {
        char *p;

        if (asprintf(&p, "%s%s%s", dir, streq(dir, "/") ? "" : "/", name) < 0)
                return NULL;
        return p;
}

/* dir becomes its parent ("/a/b" → "/a", "/a" → "/"). */
static void path_pop(char *dir) {
        char *slash = strrchr(dir, '/');

        if (slash == dir)
                dir[1] = '\0';
        else if (slash)
                *slash = '\0';
}

/* Where the walk stands: a directory already judged, held open, and its path for messages. */
typedef struct Walk {
        const char *path; /* what the caller asked for, for messages */
        int dir_fd;
        char *dir;
} Walk;

static void walk_done(Walk *w) {
        w->dir_fd = safe_close(w->dir_fd);
        w->dir = mfree(w->dir);
}

/* Moves the walk to the directory fd (named dir, which it takes) after judging it. */
static int walk_enter(Walk *w, int fd, char *dir, char **ret_error) {
        struct stat st;
        int r;

        if (fstat(fd, &st) < 0) {
                r = cannot_read(w->path, dir, negative_errno(), ret_error);
                (void) safe_close(fd);
                free(dir);
                return r;
        }
        r = check_directory(dir, &st, ret_error);
        walk_done(w);
        w->dir_fd = fd;
        w->dir = dir;
        return r;
}

static int walk_open_directory(Walk *w, const char *name, char *dir, char **ret_error) {
        int fd;

        fd = openat(w->dir_fd, name, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0) {
                int r = cannot_read(w->path, dir, negative_errno(), ret_error);

                free(dir);
                return r;
        }
        return walk_enter(w, fd, dir, ret_error);
}

static int walk_root(Walk *w, char **ret_error) {
        char *root = strdup("/");

        if (!root)
                return -ENOMEM;
        return walk_open_directory(w, "/", root, ret_error);
}

static int walk_parent(Walk *w, char **ret_error) {
        char *parent = strdup(w->dir);

        if (!parent)
                return -ENOMEM;
        path_pop(parent);
        /* Judged again: the parent of a directory is not always the one the walk came through (a
         * mount point, a directory moved meanwhile). */
        return walk_open_directory(w, "..", parent, ret_error);
}

/* The last step: opens what the name now refers to and judges that descriptor, the one to read. */
static int walk_open_file(Walk *w, const char *name, const char *file, int *ret_fd, char **ret_error) {
        _cleanup_(closep) int fd = -EBADF;
        struct stat st;
        int flags, r;

        /* O_NOFOLLOW: a symlink put there since it was judged is not followed; O_NONBLOCK: a FIFO put
         * there does not block the open, and is refused below. */
        fd = openat(w->dir_fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        if (fd < 0 && errno == ELOOP)
                return errorf(
                        ret_error,
                        -EPERM,
                        "%s: the profile was replaced by a symlink while it was being opened; refused.",
                        file);
        if (fd < 0)
                return cannot_read(w->path, file, negative_errno(), ret_error);
        if (fstat(fd, &st) < 0)
                return cannot_read(w->path, file, negative_errno(), ret_error);
        r = check_file(file, &st, ret_error);
        if (r < 0)
                return r;
        flags = fcntl(fd, F_GETFL);
        if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0)
                return cannot_read(w->path, file, negative_errno(), ret_error);
        *ret_fd = TAKE_FD(fd);
        return 0;
}

/* Follows the symlink opened as fd (named link): judges its owner and puts its target in front of
 * what is left of the path. */
static int walk_follow(
        Walk *w,
        int fd,
        const char *link,
        const struct stat *st,
        unsigned *n_links,
        char **todo,
        const char **rest,
        char **ret_error) {
        char target[PATH_MAX], owner[128];
        char *expanded;
        ssize_t k;
        int r;

        if (!file_owner_trusted(st->st_uid))
                return errorf(
                        ret_error,
                        -EPERM,
                        "%s: symlink on the profile's path is owned by %s, who could point it elsewhere; halod "
                        "only follows symlinks that root owns. Run: chown -h root:root %s",
                        link,
                        file_owner_name(st->st_uid, owner, sizeof(owner)),
                        link);
        if (++*n_links > SYMLINKS_MAX)
                return errorf(ret_error, -ELOOP, "%s: too many levels of symlinks.", w->path);

        /* Read through the descriptor: the link judged is the link followed. */
        k = readlinkat(fd, "", target, sizeof(target));
        if (k < 0)
                return cannot_read(w->path, link, negative_errno(), ret_error);
        if ((size_t) k >= sizeof(target))
                return cannot_read(w->path, link, -ENAMETOOLONG, ret_error);
        target[k] = '\0';

        if (asprintf(&expanded, "%s%s", target, *rest) < 0)
                return -ENOMEM;
        free(*todo);
        *todo = expanded;
        *rest = expanded;
        if (target[0] == '/') {
                r = walk_root(w, ret_error);
                if (r < 0)
                        return r;
        }
        return 0;
}

int profile_open_trusted(const char *path, int *ret_fd, char **ret_error) {
        _cleanup_(walk_done) Walk w = { .path = path, .dir_fd = -EBADF };
        _cleanup_(freep) char *todo = NULL;
        unsigned n_links = 0;
        const char *rest;
        int r;

        if (isempty(path))
                return errorf(
                        ret_error,
                        -EINVAL,
                        "No profile path given (expected a file like /etc/halod/halod.yaml).");

        if (path[0] == '/')
                todo = strdup(path);
        else {
                _cleanup_(freep) char *cwd = getcwd(NULL, 0);

                /* The current directory and those above it are on the way too. */
                if (!cwd)
                        return errno == ENOMEM ? -ENOMEM : cannot_read(path, ".", negative_errno(), ret_error);
                if (asprintf(&todo, "%s/%s", cwd, path) < 0)
                        todo = NULL;
        }
        if (!todo)
                return -ENOMEM;

        r = walk_root(&w, ret_error);
        if (r < 0)
                return r;

        rest = todo;
        for (;;) {
                _cleanup_(freep) char *component = NULL, *next = NULL;
                _cleanup_(closep) int fd = -EBADF;
                struct stat st;
                size_t n;

                rest += strspn(rest, "/");
                n = strcspn(rest, "/");
                if (n == 0) /* "/" itself, or a path ending in "/" */
                        return cannot_read(path, w.dir, -EISDIR, ret_error);
                component = strndup(rest, n);
                if (!component)
                        return -ENOMEM;
                rest += n;

                if (streq(component, "."))
                        continue;
                if (streq(component, "..")) {
                        r = walk_parent(&w, ret_error);
                        if (r < 0)
                                return r;
                        continue;
                }
                next = path_child(w.dir, component);
                if (!next)
                        return -ENOMEM;

                /* O_PATH: a look at what is there, without opening a FIFO or a device. */
                fd = openat(w.dir_fd, component, O_PATH | O_NOFOLLOW | O_CLOEXEC);
                if (fd < 0 || fstat(fd, &st) < 0)
                        return cannot_read(path, next, negative_errno(), ret_error);

                if (S_ISLNK(st.st_mode)) {
                        r = walk_follow(&w, fd, next, &st, &n_links, &todo, &rest, ret_error);
                        if (r < 0)
                                return r;
                        continue;
                }

                if (*rest == '\0') {
                        /* The last component: the profile itself. */
                        if (S_ISDIR(st.st_mode))
                                return cannot_read(path, next, -EISDIR, ret_error);
                        r = check_file(next, &st, ret_error);
                        if (r < 0)
                                return r;
                        return walk_open_file(&w, component, next, ret_fd, ret_error);
                }
                if (!S_ISDIR(st.st_mode))
                        return cannot_read(path, next, -ENOTDIR, ret_error);
                r = walk_enter(&w, TAKE_FD(fd), TAKE_PTR(next), ret_error);
                if (r < 0)
                        return r;
        }
}
