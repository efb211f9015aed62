/* SPDX-License-Identifier: MIT */
/* Refuses a profile that someone other than root could have written: owner and mode of the file, of
 * every directory on its path and of every symlink followed on the way. */
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/errorf.h"
#include "basic/macro.h"
#include "profile/profile-trust.h"

/* As the kernel's MAXSYMLINKS. */
#define SYMLINKS_MAX 40U

static bool owner_trusted(uid_t uid) {
        return uid == 0 || uid == geteuid();
}

static const char *user_name(uid_t uid, char *buf, size_t size) {
        struct passwd pw, *result = NULL;
        char pwbuf[1024];

        if (getpwuid_r(uid, &pw, pwbuf, sizeof(pwbuf), &result) == 0 && result)
                (void) snprintf(buf, size, "%s (uid %u)", result->pw_name, (unsigned) uid);
        else
                (void) snprintf(buf, size, "uid %u", (unsigned) uid);
        return buf;
}

static int check_directory(const char *dir, const struct stat *st, char **ret_error) {
        char owner[128];

        if (!owner_trusted(st->st_uid))
                return errorf(
                        ret_error,
                        -EPERM,
                        "%s: not trusted as a profile's directory: it is owned by %s, who could replace the "
                        "profile; halod only reads a profile that root controls. Run: chown root:root %s",
                        dir,
                        user_name(st->st_uid, owner, sizeof(owner)),
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

        if (S_ISDIR(st->st_mode))
                return 0; /* "is a directory": the reader's error */
        if (!S_ISREG(st->st_mode))
                return errorf(
                        ret_error,
                        -EPERM,
                        "%s: not a regular file (mode %06o); the profile must be a plain file.",
                        file,
                        (unsigned) st->st_mode);
        if (!owner_trusted(st->st_uid) || (st->st_mode & (S_IWGRP | S_IWOTH)))
                return errorf(
                        ret_error,
                        -EPERM,
                        "%s: profile not trusted: it is owned by %s with mode %04o, so %s could change how "
                        "this machine is configured. halod only reads a profile that root owns and only root "
                        "may write. Run: chown root:root %s; chmod 644 %s",
                        file,
                        user_name(st->st_uid, owner, sizeof(owner)),
                        (unsigned) (st->st_mode & 07777),
                        !owner_trusted(st->st_uid)      ? "its owner"
                                : st->st_mode & S_IWOTH ? "anyone"
                                                        : "its group",
                        file,
                        file);
        return 0;
}

/* done becomes its parent ("/a/b" → "/a", "/a" → "/"). */
static void path_pop(char *done) {
        char *slash = strrchr(done, '/');

        if (slash == done)
                done[1] = '\0';
        else if (slash)
                *slash = '\0';
}

int profile_check_trusted(const char *path, char **ret_error) {
        _cleanup_(freep) char *todo = NULL;
        char done[PATH_MAX] = "/";
        unsigned n_links = 0;
        struct stat st;
        char *rest;
        int r;

        if (path[0] == '/')
                todo = strdup(path);
        else {
                _cleanup_(freep) char *cwd = getcwd(NULL, 0);

                if (!cwd)
                        return errno == ENOMEM ? -ENOMEM : 0;
                if (asprintf(&todo, "%s/%s", cwd, path) < 0)
                        todo = NULL;
        }
        if (!todo)
                return -ENOMEM;

        if (stat("/", &st) < 0)
                return 0;
        r = check_directory("/", &st, ret_error);
        if (r < 0)
                return r;

        rest = todo;
        for (;;) {
                char component[NAME_MAX + 1], next[PATH_MAX];
                size_t n;

                rest += strspn(rest, "/");
                n = strcspn(rest, "/");
                if (n == 0)
                        return 0; /* "/" itself, or a path ending in "/": the reader says what is wrong */
                if (n > NAME_MAX)
                        return 0;
                memcpy(component, rest, n);
                component[n] = '\0';
                rest += n;

                if (streq(component, "."))
                        continue;
                if (streq(component, "..")) {
                        path_pop(done); /* already checked on the way in */
                        continue;
                }
                if (snprintf(next, sizeof(next), "%s%s%s", done, streq(done, "/") ? "" : "/", component) >=
                    (int) sizeof(next))
                        return 0;
                if (lstat(next, &st) < 0)
                        return 0;

                if (S_ISLNK(st.st_mode)) {
                        char target[PATH_MAX], owner[128];
                        _cleanup_(freep) char *expanded = NULL;
                        ssize_t k;

                        if (!owner_trusted(st.st_uid))
                                return errorf(
                                        ret_error,
                                        -EPERM,
                                        "%s: symlink on the profile's path is owned by %s, who could point it "
                                        "elsewhere; halod only follows symlinks that root owns. Run: chown -h "
                                        "root:root %s",
                                        next,
                                        user_name(st.st_uid, owner, sizeof(owner)),
                                        next);
                        if (++n_links > SYMLINKS_MAX) {
                                if (ret_error &&
                                    asprintf(ret_error, "%s: too many levels of symlinks.", path) < 0)
                                        *ret_error = NULL;
                                return -ELOOP;
                        }
                        k = readlink(next, target, sizeof(target) - 1);
                        if (k < 0)
                                return 0;
                        target[k] = '\0';
                        /* The target replaces the link: what is left of the path follows it. */
                        if (asprintf(&expanded, "%s%s", target, rest) < 0)
                                return -ENOMEM;
                        free(todo);
                        todo = TAKE_PTR(expanded);
                        rest = todo;
                        if (target[0] == '/')
                                strcpy(done, "/");
                        continue;
                }

                rest += strspn(rest, "/");
                if (*rest == '\0') {
                        /* The last component: the profile itself. */
                        return check_file(next, &st, ret_error);
                }
                if (!S_ISDIR(st.st_mode))
                        return 0; /* "not a directory": the reader's error */
                r = check_directory(next, &st, ret_error);
                if (r < 0)
                        return r;
                strcpy(done, next);
        }
}
