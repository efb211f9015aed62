/* SPDX-License-Identifier: MIT */
/* The RDMA baseline file read and written below a host root, with the owner and mode of the file and
 * its directory judged on the descriptors that are used. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/errorf.h"
#include "basic/file-owner.h"
#include "basic/fileio.h"
#include "rdma/rdma-baseline-file.h"

#define BASELINE_NAME "rdma-baseline"

static const char *who_else(const struct stat *st) {
        return !file_owner_trusted(st->st_uid) ? "its owner"
                : st->st_mode & S_IWOTH        ? "anyone"
                                               : "its group";
}

/* -EPERM with the reason when what (a directory or the file) at path could be written by someone other
 * than root or this user; 0 when not. */
static int judge(const char *path, const struct stat *st, bool directory, char **ret_error) {
        char owner[128];

        if (directory ? !S_ISDIR(st->st_mode) : !S_ISREG(st->st_mode))
                return errorf(
                        ret_error,
                        -EPERM,
                        "%s: not a %s (mode %06o): remove it and run 'haloctl probe' as root to record the "
                        "RDMA baseline again",
                        path,
                        directory ? "directory" : "regular file",
                        (unsigned) st->st_mode);
        if (file_owner_trusted(st->st_uid) && !(st->st_mode & (S_IWGRP | S_IWOTH)))
                return 0;
        if (directory)
                return errorf(
                        ret_error,
                        -EPERM,
                        "%s: not trusted: the directory is owned by %s with mode %04o, so %s could replace "
                        "the RDMA baseline; only root's 'haloctl probe' writes it. Run: chown root:root %s; "
                        "chmod 755 %s",
                        path,
                        file_owner_name(st->st_uid, owner, sizeof(owner)),
                        (unsigned) (st->st_mode & 07777),
                        who_else(st),
                        path,
                        path);
        return errorf(
                ret_error,
                -EPERM,
                "%s: not trusted: owned by %s with mode %04o, so %s could have written it; only root's "
                "'haloctl probe' writes the RDMA baseline. Run: rm %s; then 'haloctl probe' as root",
                path,
                file_owner_name(st->st_uid, owner, sizeof(owner)),
                (unsigned) (st->st_mode & 07777),
                who_else(st),
                path);
}

/* The directory below the host root, opened and judged. */
static int open_directory(const Host *h, bool create, int *ret_fd, char **ret_path, char **ret_error) {
        _cleanup_(freep) char *dir = NULL;
        _cleanup_(closep) int fd = -EBADF;
        struct stat st;
        int r;

        r = host_path(h, RDMA_BASELINE_DIR, &dir);
        if (r < 0)
                return r;
        if (create && mkdir(dir, 0755) < 0 && errno != EEXIST)
                return errorf(ret_error, negative_errno(), "%s: cannot create the directory: %m", dir);
        fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) {
                r = negative_errno();
                return r == -ENOENT ? r : errorf(ret_error, r, "%s: cannot open: %s", dir, strerror(-r));
        }
        if (fstat(fd, &st) < 0)
                return errorf(ret_error, negative_errno(), "%s: cannot stat: %m", dir);
        r = judge(dir, &st, /* directory= */ true, ret_error);
        if (r < 0)
                return r;
        *ret_fd = TAKE_FD(fd);
        *ret_path = TAKE_PTR(dir);
        return 0;
}

int rdma_baseline_read(const Host *h, RdmaBaselineFile *ret, char **ret_error) {
        _cleanup_(freep) char *dir = NULL, *path = NULL, *text = NULL, *why = NULL;
        _cleanup_(closep) int dir_fd = -EBADF, fd = -EBADF;
        struct stat st;
        size_t size;
        int r;

        if (ret_error)
                *ret_error = NULL;
        r = open_directory(h, /* create= */ false, &dir_fd, &dir, ret_error);
        if (r < 0)
                return r;
        if (asprintf(&path, "%s/%s", dir, BASELINE_NAME) < 0)
                return -ENOMEM;
        /* O_NOFOLLOW: no symlink to another file; O_NONBLOCK: a FIFO does not block the open, and is
         * refused below. */
        fd = openat(dir_fd, BASELINE_NAME, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        if (fd < 0) {
                r = negative_errno();
                return r == -ENOENT ? r : errorf(ret_error, r, "%s: cannot open: %s", path, strerror(-r));
        }
        if (fstat(fd, &st) < 0)
                return errorf(ret_error, negative_errno(), "%s: cannot stat: %m", path);
        r = judge(path, &st, /* directory= */ false, ret_error);
        if (r < 0)
                return r;
        r = read_full_fd(fd, RDMA_BASELINE_FILE_MAX, &text, &size);
        if (r < 0)
                return errorf(ret_error, r, "%s: cannot read: %s", path, strerror(-r));
        if (memchr(text, '\0', size))
                return errorf(
                        ret_error,
                        -EBADMSG,
                        "%s: holds a NUL byte, so haloctl did not write it; remove it and run 'haloctl probe' "
                        "as root to record the RDMA baseline again",
                        path);
        r = rdma_baseline_parse(text, ret, &why);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return errorf(
                        ret_error,
                        r,
                        "%s: %s; remove it and run 'haloctl probe' as root to record the RDMA baseline again",
                        path,
                        why ?: strerror(-r));
        return 0;
}

int rdma_baseline_write(const Host *h, const RdmaBaselineFile *f, char **ret_error) {
        _cleanup_(freep) char *dir = NULL, *path = NULL, *text = NULL;
        _cleanup_(closep) int dir_fd = -EBADF;
        int r;

        if (ret_error)
                *ret_error = NULL;
        r = open_directory(h, /* create= */ true, &dir_fd, &dir, ret_error);
        if (r < 0)
                return r;
        r = rdma_baseline_format(f, &text);
        if (r < 0)
                return r;
        if (asprintf(&path, "%s/%s", dir, BASELINE_NAME) < 0)
                return -ENOMEM;
        /* The directory was judged on dir_fd: only root (or this user) can change what is in it now. */
        r = write_file_atomic(path, text, strlen(text), 0644);
        if (r < 0)
                return errorf(ret_error, r, "%s: cannot write: %s", path, strerror(-r));
        return 0;
}
