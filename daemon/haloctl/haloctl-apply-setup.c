/* SPDX-License-Identifier: MIT */
/* haloctl plan and apply for the node's RDMA setup (rdma.limits: manage, rdma.modules: manage): the
 * memlock drop-ins and the modules-load.d file halod owns, written by root (halod-helper.service runs
 * `haloctl apply --only limits,modules`), and `haloctl apply --undo limits,modules`, which removes them. */
#include <stdio.h>
#include <unistd.h>

#include "apply/apply-nic-runtime.h"
#include "apply/apply-rdma-setup.h"
#include "basic/strv.h"
#include "haloctl-apply-parts.h"
#include "haloctl.h"

int plan_rdma_setup_lines(const NodeContext *c, char ***lines, bool *ret_errors, bool *ret_changes) {
        _cleanup_(rdma_setup_plan_done) RdmaSetupPlan plan = {};
        int r;

        r = rdma_setup_plan_compute(c, RDMA_SETUP_ALL, &plan);
        if (r >= 0)
                r = rdma_setup_plan_describe(&plan, lines);
        if (r < 0)
                return r;
        *ret_errors = rdma_setup_plan_has_errors(&plan);
        *ret_changes = !rdma_setup_plan_is_empty(&plan);
        return 0;
}

void print_rdma_setup_kept(const NodeContext *c) {
        _cleanup_(rdma_setup_plan_done) RdmaSetupPlan plan = {};

        if (rdma_setup_plan_compute(c, RDMA_SETUP_ALL, &plan) < 0)
                return;
        for (size_t i = 0; i < plan.n_files; i++)
                if (plan.files[i].action == SETUP_FILE_KEEP)
                        printf("%s%s: nothing to change: %s is halod's, as the profile says (%s)%s\n",
                               ansi_grey(),
                               plan.files[i].part,
                               plan.files[i].path,
                               plan.files[i].what,
                               ansi_normal());
}

int plan_nic_runtime_lines(const NodeContext *c, const Plan *links, char ***lines, bool *errors, bool *changes) {
        _cleanup_(nic_runtime_plan_done) NicRuntimePlan plan = {};
        int r;

        r = nic_runtime_plan_compute(c, links, &plan);
        if (r >= 0)
                r = nic_runtime_plan_describe(&plan, lines);
        if (r < 0)
                return r;
        *errors = *errors || nic_runtime_plan_has_errors(&plan);
        *changes = *changes || plan.n_changes > 0;
        return 0;
}

int apply_nic_runtime_settings(const NodeContext *c, FILE *out) {
        _cleanup_(nic_runtime_plan_done) NicRuntimePlan nic = {};
        _cleanup_(strv_freep) char **lines = NULL, **done = NULL, **failed = NULL;
        _cleanup_(plan_done) Plan links = {};
        const ProfileNic *want = node_context_nic(c);
        int r;

        if (!want || (!want->has_fw_lldp_agent && !want->enable_roce))
                return EXIT_SUCCESS;
        r = plan_node(c, &links);
        if (r >= 0)
                r = nic_runtime_plan_compute(c, &links, &nic);
        if (r >= 0 && nic_runtime_plan_has_errors(&nic))
                r = nic_runtime_plan_describe(&nic, &lines);
        if (r >= 0)
                r = apply_nic_runtime(&nic, &done, &failed);
        if (r < 0) {
                fprintf(stderr, "Failed to set the NIC's runtime settings: %s\n", strerror(-r));
                return EX_OSERR;
        }
        STRV_FOREACH(l, done)
                fprintf(out, "%s\n", *l);
        STRV_FOREACH(l, lines)
                fprintf(stderr, "%s\n", *l);
        STRV_FOREACH(l, failed)
                fprintf(stderr, "%s\n", *l);
        return failed || lines ? EXIT_CHECK_FAIL : EXIT_SUCCESS;
}

int apply_rdma_setup_parts(const NodeContext *c, RdmaSetupParts parts, FILE *out) {
        _cleanup_(rdma_setup_plan_done) RdmaSetupPlan plan = {};
        _cleanup_(strv_freep) char **done = NULL;
        _cleanup_(freep) char *error = NULL;
        _cleanup_(closep) int lock = -EBADF;
        const ProfileRdma *rdma = &c->profile->rdma;
        bool limits = (parts & RDMA_SETUP_LIMITS) && rdma->limits == RDMA_SETUP_MANAGE,
             modules = (parts & RDMA_SETUP_MODULES) && rdma->modules == RDMA_SETUP_MANAGE;
        int r;

        if (!limits && !modules)
                return EXIT_SUCCESS; /* the profile manages none of these parts */
        r = apply_lock_part(
                c->host,
                limits && modules ? "changing the memlock limits and the RDMA modules"
                        : limits  ? "changing the memlock limits"
                                  : "changing the RDMA modules",
                &lock);
        if (r != EXIT_SUCCESS)
                return r;
        r = rdma_setup_plan_compute(c, parts, &plan);
        if (r < 0) {
                fprintf(stderr, "Failed to plan the RDMA setup: %s\n", strerror(-r));
                return EX_OSERR;
        }
        if (plan.n_files == 0 && !plan.errors)
                return EXIT_SUCCESS; /* the profile manages none of these parts */
        r = apply_rdma_setup(c->host, &plan, &done, &error);
        if (r == -ENOMEM) {
                fprintf(stderr, "Out of memory.\n");
                return EX_OSERR;
        }
        if (r < 0) {
                fprintf(stderr,
                        "%sFailed to set up RDMA:%s %s\n",
                        ansi_red(),
                        ansi_normal(),
                        error ?: strerror(-r));
                return EXIT_CHECK_FAIL;
        }
        if (!done)
                fprintf(out,
                        "nothing to change: the memlock limits and RDMA modules halod owns are as the profile says\n");
        STRV_FOREACH(l, done)
                fprintf(out, "%s\n", *l);
        return EXIT_SUCCESS;
}

bool undo_names_boot(const char *undo) {
        for (const char *p = undo; p && *p;) {
                size_t n = strcspn(p, ",");

                if (n == strlen("boot") && strneq(p, "boot", n))
                        return true;
                p += n;
                p += *p == ',';
        }
        return false;
}

/* The files of a part, removed under the apply lock: 0 or -errno, or the exit code when the lock could not
 * be taken. */
static int undo_rdma_part(const Host *host, const char *part, char ***removed) {
        _cleanup_(freep) char *what = NULL;
        _cleanup_(closep) int lock = -EBADF;
        int r;

        if (asprintf(&what, "removing halod's %s files", part) < 0)
                return -ENOMEM;
        r = apply_lock_part(host, what, &lock);
        if (r != EXIT_SUCCESS)
                return r;
        return undo_rdma_setup(host, part, removed);
}

int apply_undo(const char *undo, const NodeContext *c) {
        Host host = { .root = arg_root ?: "" };
        int exit_status = EXIT_SUCCESS;

        if (geteuid() != 0) {
                fprintf(stderr,
                        "haloctl apply --undo removes files of root's and needs root: run it with sudo.\n");
                return EX_NOPERM;
        }
        for (const char *p = undo; *p;) {
                _cleanup_(strv_freep) char **removed = NULL;
                _cleanup_(freep) char *part = strndup(p, strcspn(p, ","));
                int r;

                if (!part)
                        return EX_OSERR;
                p += strlen(part);
                p += *p == ',';
                if (streq(part, "boot") && c) {
                        r = apply_boot_part(c, /* undo= */ true, /* unit= */ NULL);
                        exit_status = r > exit_status ? r : exit_status;
                        continue;
                }
                if (!rdma_setup_part_dirs(part)) {
                        fprintf(stderr,
                                "haloctl apply --undo: unknown part '%s' in '%s': the parts are boot (the kernel "
                                "command line of kernel.boot: manage), limits (the memlock drop-ins of "
                                "rdma.limits: manage) and modules (the modules-load.d file of "
                                "rdma.modules: manage), comma-separated.\n",
                                part,
                                undo);
                        return EX_USAGE;
                }
                r = undo_rdma_part(&host, part, &removed);
                if (r > 0)
                        return r;
                if (r < 0) {
                        fprintf(stderr, "Failed to remove halod's %s files: %s\n", part, strerror(-r));
                        exit_status = EX_CANTCREAT;
                }
                if (!removed && r >= 0)
                        printf("%s: halod has no files here\n", part);
                STRV_FOREACH(f, removed)
                        printf("%s: removed %s\n", part, *f);
                if (removed && streq(part, RDMA_SETUP_PART_LIMITS))
                        printf("limits: services keep the raised limit until `systemctl daemon-reexec` (or a reboot), "
                               "sessions until they log out\n");
                if (removed && streq(part, RDMA_SETUP_PART_MODULES))
                        printf("modules: the modules loaded stay loaded until the next boot (or modprobe -r)\n");
        }
        return exit_status;
}
