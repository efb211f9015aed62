/* SPDX-License-Identifier: MIT */
/* The kernel command line written with the boot loader's own tool, and put back when that fails. */
#include <stdio.h>
#include <sys/stat.h>

#include "apply/apply-boot.h"
#include "basic/child-wait.h"
#include "basic/errorf.h"
#include "basic/fileio.h"
#include "basic/owned-file.h"
#include "basic/strv.h"
#include "boot/bootcfg.h"

/* Runs argv and waits: 0, or the exit status (positive) or -errno. The tools are looked up in PATH, as
 * the user's shell would (grubby is in /usr/sbin, kernel-install in /usr/bin). */
static int run(char **argv) {
        pid_t pid;

        fflush(NULL);
        pid = fork();
        if (pid < 0)
                return negative_errno();
        if (pid == 0) {
                (void) dup2(STDERR_FILENO, STDOUT_FILENO);
                execvp(argv[0], argv);
                fprintf(stderr, "Failed to run %s: %m\n", argv[0]);
                _exit(127);
        }
        return child_wait(pid);
}

static int write_plan_file(const char *path, const BootPlan *bp) {
        _cleanup_(closep) int fd = -EBADF;
        int r;

        if (streq(bp->file, BOOT_GRUB_DROPIN))
                return bp->undo ? owned_file_remove(path, BOOT_PART)
                                : owned_file_write(path, BOOT_PART, bp->file_text, 0644);
        /* /etc/kernel/cmdline: the system's file, read whole by kernel-install, so it cannot carry the
         * marker; its content before halod is in BOOT_UNDO_FILE. */
        if (!bp->file_text)
                return unlink(path) < 0 && errno != ENOENT ? negative_errno() : 0;
        r = open_regular_file(path, &fd);
        if (r >= 0)
                return write_file_atomic_keeping(path, bp->file_text, strlen(bp->file_text));
        if (r != -ENOENT)
                return r;
        /* /etc/kernel, which only systemd-boot hosts have before it is written. */
        r = mkdir_parent(path);
        if (r < 0)
                return r;
        return write_file_atomic(path, bp->file_text, strlen(bp->file_text), 0644);
}

static int write_undo_record(const char *path, const BootPlan *bp) {
        if (bp->undo)
                return owned_file_remove(path, BOOT_PART);
        if (!bp->undo_text)
                return 0;
        return owned_file_write(path, BOOT_PART, bp->undo_text, 0644);
}

static int save_all(const Host *h, const BootPlan *bp, OwnedFileRollback **rb, char **paths) {
        int r;

        STRV_FOREACH(p, paths) {
                _cleanup_(freep) char *full = NULL;

                r = host_path(h, *p, &full);
                if (r < 0)
                        return r;
                r = owned_file_rollback_save(rb, full);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int steps(const Host *h, const BootPlan *bp, OwnedFileRollback **rb, char **ret_error) {
        _cleanup_(freep) char *file = NULL, *undo = NULL;
        char *own[] = { bp->file ?: (char *) BOOT_UNDO_FILE, (char *) BOOT_UNDO_FILE, NULL };
        int r;

        r = save_all(h, bp, rb, own);
        if (r >= 0)
                r = save_all(h, bp, rb, bp->saved);
        if (r < 0)
                return errorf(
                        ret_error,
                        r,
                        "cannot keep a copy of the boot configuration to put back: %s",
                        strerror(-r));

        if (bp->file) {
                r = host_path(h, bp->file, &file);
                if (r >= 0)
                        r = write_plan_file(file, bp);
                if (r == -EEXIST)
                        return errorf(
                                ret_error,
                                r,
                                "%s is not halod's (no halod marker on its first line): left alone",
                                file);
                if (r < 0)
                        return errorf(ret_error, r, "cannot write %s: %s", file, strerror(-r));
        }
        r = host_path(h, BOOT_UNDO_FILE, &undo);
        if (r >= 0)
                r = write_undo_record(undo, bp);
        if (r < 0)
                return errorf(ret_error, r, "cannot write %s: %s", undo, strerror(-r));

        for (char ***c = bp->commands; c && *c; c++) {
                _cleanup_(freep) char *cmd = strv_join(*c, " ");

                if (!cmd)
                        return -ENOMEM;
                r = run(*c);
                if (r < 0)
                        return errorf(ret_error, r, "cannot run %s: %s", cmd, strerror(-r));
                if (r > 0)
                        return errorf(
                                ret_error, -EPROTO, "%s failed (exit status %d; its messages are above)", cmd, r);
        }
        return 0;
}

int apply_boot(const Host *h, const BootPlan *bp, char **ret_error) {
        _cleanup_(owned_file_rollback_freep) OwnedFileRollback *rb = NULL;
        _cleanup_(freep) char *why = NULL;
        int r, k;

        if (!bp || bp->error)
                return bp ? errorf(ret_error, -EINVAL, "%s", bp->error) : 0;
        if (bp->commands && !host_is_running_system(h))
                return errorf(
                        ret_error,
                        -EOPNOTSUPP,
                        "the boot loader's tool runs on this system only, not on the host tree %s",
                        h->root);
        r = steps(h, bp, &rb, &why);
        if (r >= 0)
                return 0;
        k = owned_file_rollback(rb);
        if (k < 0)
                return errorf(
                        ret_error,
                        r,
                        "%s; putting the boot configuration back failed too (%s): check %s and the entries",
                        why,
                        strerror(-k),
                        bp->file ?: BOOT_UNDO_FILE);
        return errorf(ret_error, r, "%s; the boot configuration was put back as it was", why);
}
