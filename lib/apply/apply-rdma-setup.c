/* SPDX-License-Identifier: MIT */
/* Writes the memlock drop-ins and the modules-load.d file halod owns, has systemd-modules-load load the
 * RDMA modules, and puts the files back as they were when a step fails, so that nothing is
 * half-applied. */
#include <stdio.h>
#include <systemd/sd-daemon.h>

#include "apply/apply-rdma-setup.h"
#include "apply/systemctl-unit.h"
#include "basic/errorf.h"
#include "basic/strv.h"

static int write_files(const Host *h, const RdmaSetupPlan *p, OwnedFileRollback **rb, char ***done, char **error) {
        int r;

        for (size_t i = 0; i < p->n_files; i++) {
                const SetupFile *f = &p->files[i];
                _cleanup_(freep) char *path = NULL;

                if (f->action == SETUP_FILE_KEEP)
                        continue;
                r = host_path(h, f->path, &path);
                if (r >= 0)
                        r = owned_file_rollback_save(rb, path);
                if (r < 0)
                        return errorf(error, r, "cannot save %s before writing it: %s", f->path, strerror(-r));
                r = owned_file_write(path, f->part, f->body, 0644);
                if (r == -EEXIST)
                        return errorf(error, r, "%s is not halod's (any more): it was left alone", f->path);
                if (r < 0)
                        return errorf(error, r, "cannot write %s: %s", f->path, strerror(-r));
                if (r > 0 && strv_extendf(done, "%s: wrote %s (%s)", f->part, f->path, f->what) < 0)
                        return -ENOMEM;
        }
        return 0;
}

static int load_modules(const Host *h, const RdmaSetupPlan *p, char ***done, char **error) {
        _cleanup_(freep) char *missing = NULL;
        _cleanup_(strv_freep) char **left = NULL;
        int r;

        if (!p->load)
                return 0;
        if (!host_is_running_system(h))
                return strv_extend(
                        done, "modules: not loaded now: --root names a tree, not the running kernel");
        if (sd_booted() <= 0)
                return errorf(
                        error,
                        -EOPNOTSUPP,
                        "the host does not run systemd, whose systemd-modules-load reads " MODULES_LOAD_FILE
                        ": load them with modprobe");
        /* systemd-modules-load loads what modules-load.d lists, as at boot, with systemd's privileges:
         * the helper needs no CAP_SYS_MODULE of its own. */
        r = systemctl_unit("restart", MODULES_LOAD_SERVICE);
        if (r < 0)
                return errorf(error, r, "cannot run systemctl: %s", strerror(-r));
        STRV_FOREACH(m, p->load) {
                _cleanup_(freep) char *sys = NULL;

                if (asprintf(&sys, "/sys/module/%s", *m) < 0)
                        return -ENOMEM;
                r = host_path_exists(h, sys) ? strv_extendf(done, "modules: loaded %s", *m)
                                             : strv_extend(&left, *m);
                if (r < 0)
                        return r;
        }
        if (!left)
                return 0;
        missing = strv_join(left, " ");
        return errorf(
                error,
                -EIO,
                "systemd-modules-load.service did not load %s (systemctl exited %d): see `journalctl -u " MODULES_LOAD_SERVICE
                "`",
                strna(missing),
                r);
}

int apply_rdma_setup(const Host *h, const RdmaSetupPlan *p, char ***ret_done, char **ret_error) {
        _cleanup_(owned_file_rollback_freep) OwnedFileRollback *rb = NULL;
        _cleanup_(strv_freep) char **done = NULL;
        int r, k;

        if (rdma_setup_plan_has_errors(p)) {
                _cleanup_(strv_freep) char **lines = NULL;
                _cleanup_(freep) char *text = NULL;

                if (rdma_setup_plan_describe(p, &lines) < 0 || !(text = strv_join(lines, "; ")))
                        return -ENOMEM;
                return errorf(ret_error, -EINVAL, "nothing of the RDMA setup was written: %s", text);
        }
        r = write_files(h, p, &rb, &done, ret_error);
        if (r >= 0)
                r = load_modules(h, p, &done, ret_error);
        if (r >= 0) {
                *ret_done = TAKE_PTR(done);
                return 0;
        }
        k = rb ? owned_file_rollback(rb) : 0;
        if (ret_error && *ret_error) {
                char *more = NULL;

                if (asprintf(
                            &more,
                            "%s; %s",
                            *ret_error,
                            k < 0 ? "putting the files written back failed too"
                                  : "the files written were put back") >= 0) {
                        free(*ret_error);
                        *ret_error = more;
                }
        }
        return r;
}

int undo_rdma_setup(const Host *h, const char *part, char ***ret_removed) {
        const char *const *dirs = rdma_setup_part_dirs(part);
        int r;

        if (!dirs)
                return -EINVAL;
        for (const char *const *d = dirs; *d; d++) {
                _cleanup_(strv_freep) char **files = NULL;
                _cleanup_(freep) char *dir = NULL;

                r = host_path(h, *d, &dir);
                if (r < 0)
                        return r;
                r = owned_file_list(dir, part, &files);
                if (r < 0)
                        return r;
                STRV_FOREACH(f, files) {
                        r = owned_file_remove(*f, part);
                        if (r < 0)
                                return r;
                        if (r > 0 && strv_extend(ret_removed, *f) < 0)
                                return -ENOMEM;
                }
        }
        return 0;
}
