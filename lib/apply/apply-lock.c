/* SPDX-License-Identifier: MIT */
/* The apply lock: a root-only file flock()ed by each writer of the boot, limits and modules parts, so
 * that one's plan is made from what the previous holder left and one's rollback cannot undo another's
 * write. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apply/apply-lock.h"
#include "basic/errorf.h"
#include "basic/file-owner.h"
#include "basic/fileio.h"

/* Only root may write what it is in: anyone else could take the lock (flock needs only a read) and keep
 * root's applies waiting for ever, or replace the file under them. */
static int check_root_only(int fd, const char *path, bool dir, char **ret_error) {
        char owner[64];
        struct stat st;

        if (fstat(fd, &st) < 0)
                return errorf(ret_error, negative_errno(), "cannot stat %s: %s", path, strerror(errno));
        if (dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode))
                return errorf(
                        ret_error, -EBADF, "%s is not a %s: remove it", path, dir ? "directory" : "regular file");
        if (st.st_uid != 0) {
                return errorf(
                        ret_error,
                        -EPERM,
                        "%s belongs to %s, not root: another user could hold the lock and keep root's applies "
                        "waiting. It was not used; remove it (root makes it anew)",
                        path,
                        file_owner_name(st.st_uid, owner, sizeof owner));
        }
        if (st.st_mode & (dir ? 0022 : 0077))
                return errorf(
                        ret_error,
                        -EPERM,
                        "%s has mode %04o: only root may %s it. It was not used; remove it (root makes it anew)",
                        path,
                        (unsigned) (st.st_mode & 07777),
                        dir ? "write" : "open");
        return 0;
}

static int open_dir(const char *dir, int *ret_fd, char **ret_error) {
        bool made = false;
        int fd;

        fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0 && errno == ENOENT) {
                /* Its parent too under --root: a host tree need not have run/. */
                if (mkdir_parent(dir) < 0 || (mkdir(dir, 0755) < 0 && errno != EEXIST))
                        return errorf(ret_error, negative_errno(), "cannot make %s: %s", dir, strerror(errno));
                made = true;
                fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        }
        if (fd < 0)
                return errorf(
                        ret_error, negative_errno(), "cannot open the directory %s: %s", dir, strerror(errno));
        /* 0755 whatever the umask: the user halod reads the helper's result there (halod(8)). */
        if (made)
                (void) fchmod(fd, 0755);
        *ret_fd = fd;
        return 0;
}

int apply_lock_open(const Host *h, int *ret_fd, char **ret_error) {
        _cleanup_(freep) char *dir = NULL, *path = NULL;
        _cleanup_(closep) int dir_fd = -EBADF, fd = -EBADF;
        int r;

        r = host_path(h, APPLY_LOCK_DIR, &dir);
        if (r >= 0)
                r = host_path(h, APPLY_LOCK_FILE, &path);
        if (r < 0)
                return r;
        r = open_dir(dir, &dir_fd, ret_error);
        if (r >= 0)
                r = check_root_only(dir_fd, dir, /* dir= */ true, ret_error);
        if (r < 0)
                return r;
        /* O_NONBLOCK: a FIFO planted there must not hang the open (it is refused below). */
        fd = openat(
                dir_fd, "apply.lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0600);
        /* A unit that may not write the directory still takes the lock: flock needs only a read. */
        if (fd < 0 && (errno == EROFS || errno == EACCES))
                fd = openat(dir_fd, "apply.lock", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        if (fd < 0)
                return errorf(ret_error, negative_errno(), "cannot open %s: %s", path, strerror(errno));
        r = check_root_only(fd, path, /* dir= */ false, ret_error);
        if (r < 0)
                return r;
        *ret_fd = TAKE_FD(fd);
        return 0;
}

int apply_lock_take(int fd, bool wait, const char *what) {
        char text[32 + APPLY_LOCK_WHAT_MAX];
        int n, flags;

        while (flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB)) < 0)
                if (errno != EINTR)
                        return negative_errno();
        /* Who holds it, for those who wait: a courtesy, so a file that cannot be written is no error. */
        flags = fcntl(fd, F_GETFL);
        if (flags < 0 || (flags & O_ACCMODE) == O_RDONLY)
                return 0;
        n = snprintf(text, sizeof text, "%d %.*s\n", (int) getpid(), (int) APPLY_LOCK_WHAT_MAX, what);
        if (ftruncate(fd, 0) == 0)
                (void) !pwrite(fd, text, (size_t) n, 0);
        return 0;
}

int apply_lock_parse(const char *text, pid_t *ret_pid, char **ret_what) {
        const char *what;
        size_t digits, n;
        long pid = 0;

        digits = strspn(text, "0123456789");
        if (digits == 0 || digits > 9 || text[digits] != ' ')
                return -EBADMSG;
        for (size_t i = 0; i < digits; i++)
                pid = pid * 10 + (text[i] - '0');
        what = text + digits + 1;
        /* Printable ASCII up to the newline that ends the text: it is shown on a terminal. */
        for (n = 0; what[n] >= ' ' && what[n] <= '~'; n++)
                ;
        if (pid == 0 || n == 0 || n > APPLY_LOCK_WHAT_MAX || what[n] != '\n' || what[n + 1] != '\0')
                return -EBADMSG;
        *ret_what = strndup(what, n);
        if (!*ret_what)
                return -ENOMEM;
        *ret_pid = (pid_t) pid;
        return 0;
}

int apply_lock_holder(int fd, pid_t *ret_pid, char **ret_what) {
        char text[32 + APPLY_LOCK_WHAT_MAX + 2];
        ssize_t n;
        pid_t pid;
        int r;

        n = pread(fd, text, sizeof text - 1, 0);
        if (n < 0)
                return negative_errno();
        text[n] = '\0';
        r = apply_lock_parse(text, &pid, ret_what);
        if (r < 0)
                return r;
        /* The text of a holder that is gone: the new one has the lock but has not written it yet. */
        if (kill(pid, 0) < 0 && errno == ESRCH) {
                *ret_what = mfree(*ret_what);
                return -ESRCH;
        }
        *ret_pid = pid;
        return 0;
}
