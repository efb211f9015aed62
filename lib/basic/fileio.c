/* SPDX-License-Identifier: MIT */
/* Bounded whole-file reads and atomic writes. */
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/xattr.h>

#include "basic/fileio.h"
#include "basic/macro.h"

/* Reads at most max bytes from an open stream, NUL-terminated. */
static int read_full_stream(FILE *f, size_t max, char **ret, size_t *ret_size) {
        _cleanup_(freep) char *buf = NULL;
        size_t n = 0, allocated = 0;

        for (;;) {
                size_t k;

                if (allocated - n < 4096) {
                        size_t want = allocated ? allocated * 2 : 4096;
                        char *b;

                        if (want > max + 2)
                                want = max + 2;
                        if (want <= n + 1)
                                return -EFBIG;
                        b = realloc(buf, want);
                        if (!b)
                                return -ENOMEM;
                        buf = b;
                        allocated = want;
                }

                k = fread(buf + n, 1, allocated - n - 1, f);
                n += k;
                if (n > max)
                        return -EFBIG;
                if (k == 0) {
                        if (ferror(f))
                                return errno > 0 ? -errno : -EIO;
                        break;
                }
        }

        buf[n] = '\0';
        if (ret_size)
                *ret_size = n;
        *ret = TAKE_PTR(buf);
        return 0;
}

int read_full_fd(int fd, size_t max, char **ret, size_t *ret_size) {
        _cleanup_(freep) char *buf = NULL;
        size_t n = 0, allocated = 0;

        for (;;) {
                ssize_t k;

                if (allocated - n < 4096) {
                        size_t want = allocated ? allocated * 2 : 4096;
                        char *b;

                        if (want > max + 2)
                                want = max + 2;
                        if (want <= n + 1)
                                return -EFBIG;
                        b = realloc(buf, want);
                        if (!b)
                                return -ENOMEM;
                        buf = b;
                        allocated = want;
                }

                k = read(fd, buf + n, allocated - n - 1);
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        return negative_errno();
                }
                if (k == 0)
                        break;
                n += (size_t) k;
                if (n > max)
                        return -EFBIG;
        }

        buf[n] = '\0';
        if (ret_size)
                *ret_size = n;
        *ret = TAKE_PTR(buf);
        return 0;
}

int open_regular_file(const char *path, int *ret_fd) {
        _cleanup_(closep) int fd = -EBADF;
        struct stat st;
        int flags;

        /* O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer. */
        fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        if (fd < 0)
                return negative_errno();
        if (fstat(fd, &st) < 0)
                return negative_errno();
        if (S_ISDIR(st.st_mode))
                return -EISDIR;
        if (!S_ISREG(st.st_mode))
                return -EBADFD;
        flags = fcntl(fd, F_GETFL);
        if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0)
                return negative_errno();
        *ret_fd = TAKE_FD(fd);
        return 0;
}

int read_regular_file(const char *path, size_t max, char **ret, size_t *ret_size) {
        _cleanup_(closep) int fd = -EBADF;
        int r;

        r = open_regular_file(path, &fd);
        if (r < 0)
                return r;
        return read_full_fd(fd, max, ret, ret_size);
}

int read_full_file(const char *path, size_t max, char **ret, size_t *ret_size) {
        _cleanup_(fclosep) FILE *f = NULL;

        f = fopen(path, "re");
        if (!f)
                return negative_errno();
        return read_full_stream(f, max, ret, ret_size);
}

#define XATTR_SELINUX "security.selinux"

/* Copies the SELinux label of from to fd, when from has one: a file relabelled by a rename would
 * otherwise carry the label of the temporary file (etc_t for /etc/hosts, not net_conf_t). */
static int copy_selinux_label(int from, int fd) {
        char label[4096];
        ssize_t n;

        n = fgetxattr(from, XATTR_SELINUX, label, sizeof(label));
        if (n < 0)
                return errno == ENODATA || errno == ENOTSUP ? 0 : negative_errno();
        if (fsetxattr(fd, XATTR_SELINUX, label, (size_t) n, 0) < 0)
                return negative_errno();
        return 0;
}

/* The temporary file beside path, written, given the mode (or the owner, mode and label of template_fd
 * when it is not negative), synced and renamed into place. */
static int write_atomic(const char *path, const char *data, size_t size, unsigned mode, int template_fd) {
        _cleanup_(freep) char *tmp = NULL;
        _cleanup_(closep) int fd = -EBADF;
        size_t done = 0;
        struct stat st;
        int r = 0;

        if (asprintf(&tmp, "%s.XXXXXX", path) < 0)
                return -ENOMEM;
        fd = mkostemp(tmp, O_CLOEXEC);
        if (fd < 0)
                return negative_errno();

        while (done < size) {
                ssize_t k = write(fd, data + done, size - done);
                if (k < 0) {
                        r = negative_errno();
                        (void) unlink(tmp);
                        return r;
                }
                done += (size_t) k;
        }

        if (template_fd >= 0) {
                if (fstat(template_fd, &st) < 0 || fchown(fd, st.st_uid, st.st_gid) < 0)
                        r = negative_errno();
                else {
                        mode = st.st_mode & 07777;
                        r = copy_selinux_label(template_fd, fd);
                }
        }
        if (r >= 0 && (fchmod(fd, mode) < 0 || fsync(fd) < 0 || rename(tmp, path) < 0))
                r = negative_errno();
        if (r < 0)
                (void) unlink(tmp);
        return r;
}

int mkdir_parent(const char *path) {
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

int write_file_atomic(const char *path, const char *data, size_t size, unsigned mode) {
        return write_atomic(path, data, size, mode, -EBADF);
}

int write_file_atomic_keeping(const char *path, const char *data, size_t size) {
        _cleanup_(closep) int fd = -EBADF;
        int r;

        r = open_regular_file(path, &fd);
        if (r < 0)
                return r;
        return write_atomic(path, data, size, 0, fd);
}

int write_file_atomic_if_changed(const char *path, const char *text, unsigned mode) {
        _cleanup_(freep) char *old = NULL;
        int r;

        /* What is there now, read without following a symlink or waiting on a FIFO that someone put in
         * its place: anything but a regular file is not read, and the rename below replaces it. */
        if (read_regular_file(path, strlen(text) + 1, &old, NULL) >= 0 && streq(old, text))
                return 0;

        r = mkdir_parent(path);
        if (r < 0)
                return r;
        r = write_file_atomic(path, text, strlen(text), mode);
        return r < 0 ? r : 1;
}
