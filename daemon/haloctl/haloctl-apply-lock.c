/* SPDX-License-Identifier: MIT */
/* haloctl apply's side of the apply lock (lib/apply/apply-lock.h): taken around each part that writes
 * the boot configuration, the memlock drop-ins or modules-load.d; when another process holds it, haloctl
 * waits for it as apt and dpkg do, and says once who that is. */
#include <stdio.h>

#include "apply/apply-lock.h"
#include "haloctl-apply-parts.h"
#include "haloctl.h"

static void say_waiting(const Host *h, int fd) {
        _cleanup_(freep) char *path = NULL, *what = NULL;
        pid_t pid;

        if (host_path(h, APPLY_LOCK_FILE, &path) < 0)
                return;
        if (apply_lock_holder(fd, &pid, &what) >= 0)
                fprintf(stderr, "waiting for haloctl apply (pid %d), which is %s (%s)\n", (int) pid, what, path);
        else
                fprintf(stderr, "waiting for the process that holds %s\n", path);
}

int apply_lock_part(const Host *h, const char *what, int *ret_fd) {
        _cleanup_(closep) int fd = -EBADF;
        _cleanup_(freep) char *error = NULL;
        int r;

        r = apply_lock_open(h, &fd, &error);
        if (r < 0) {
                fprintf(stderr,
                        "Cannot take haloctl apply's lock before %s, so nothing was changed: %s\n",
                        what,
                        error ?: strerror(-r));
                return r == -EPERM ? EX_NOPERM : EX_OSERR;
        }
        r = apply_lock_take(fd, /* wait= */ false, what);
        if (r == -EWOULDBLOCK) {
                say_waiting(h, fd);
                r = apply_lock_take(fd, /* wait= */ true, what);
        }
        if (r < 0) {
                fprintf(stderr, "Failed to take haloctl apply's lock: %s\n", strerror(-r));
                return EX_OSERR;
        }
        *ret_fd = TAKE_FD(fd);
        return EXIT_SUCCESS;
}
