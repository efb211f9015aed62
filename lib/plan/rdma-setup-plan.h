/* SPDX-License-Identifier: MIT */
/* The RDMA setup part of the plan (rdma.limits: manage, rdma.modules: manage): the files halod owns for
 * the workload's memlock limit (systemd's manager, pam_limits, podman) and for the RDMA modules at boot,
 * what each would change below the host root, and the modules to load now. halod-helper.service writes
 * them (lib/apply/apply-rdma-setup.c); `haloctl apply --undo limits|modules` removes them. */
#pragma once

#include "basic/owned-file.h"
#include "profile/node-context.h"

#define RDMA_SETUP_PART_LIMITS "limits"
#define RDMA_SETUP_PART_MODULES "modules"

/* Read after the distribution's drop-ins (and before an admin's 99-), so that their defaults do not
 * undo it: systemd and pam_limits apply their files in name order, the last setting winning. */
#define MEMLOCK_SYSTEMD_FILE "/etc/systemd/system.conf.d/90-halod-memlock.conf"
#define MEMLOCK_LIMITS_FILE "/etc/security/limits.d/90-halod-memlock.conf"
#define MEMLOCK_CONTAINERS_FILE "/etc/containers/containers.conf.d/90-halod-memlock.conf"
/* systemd-modules-load.service reads /etc/modules-load.d/\*.conf at boot: one module name a line. */
#define MODULES_LOAD_FILE "/etc/modules-load.d/halod-rdma.conf"
/* Restarted to load them now, as at boot. */
#define MODULES_LOAD_SERVICE "systemd-modules-load.service"
/* librdmacm's kernel side: rdma_cm's user-space interface, which NCCL's and RCCL's IB transport opens
 * (/dev/infiniband/rdma_cm). Nothing loads it on its own before the first user asks. */
#define RDMA_UCM_MODULE "rdma_ucm"

/* Which parts a plan covers (the profile's manage decides the rest). */
typedef enum RdmaSetupParts {
        RDMA_SETUP_LIMITS = 1U << 0,
        RDMA_SETUP_MODULES = 1U << 1,
        RDMA_SETUP_ALL = RDMA_SETUP_LIMITS | RDMA_SETUP_MODULES,
} RdmaSetupParts;

typedef enum SetupFileAction {
        SETUP_FILE_KEEP,    /* halod's, as the profile says */
        SETUP_FILE_CREATE,  /* none there */
        SETUP_FILE_UPDATE,  /* halod's, with other content */
        SETUP_FILE_REFUSED, /* someone else's, or unreadable: reason says; nothing of the plan is written */
        _SETUP_FILE_ACTION_MAX,
        _SETUP_FILE_ACTION_INVALID = -EINVAL,
} SetupFileAction;

typedef struct SetupFile {
        const char *part; /* RDMA_SETUP_PART_* */
        const char *path; /* on the host, without the root: MEMLOCK_SYSTEMD_FILE */
        char *body;       /* what follows halod's marker */
        char *what;       /* for the plan: "DefaultLimitMEMLOCK=infinity" */
        const char *when; /* when it is in force: "for services after `systemctl daemon-reexec`" */
        SetupFileAction action;
        char *reason; /* SETUP_FILE_REFUSED: why */
} SetupFile;

#define RDMA_SETUP_FILES_MAX 4U

typedef struct RdmaSetupPlan {
        SetupFile files[RDMA_SETUP_FILES_MAX];
        size_t n_files;
        char **modules; /* the modules rdma.modules loads: "irdma", "rdma_ucm" */
        char **load;    /* those of them not loaded now (no /sys/module/NAME below the root) */
        char **errors;  /* "modules: …": why a part cannot be set up here; nothing is written then */
} RdmaSetupPlan;

void rdma_setup_plan_done(RdmaSetupPlan *p);
/* The plan for the parts of node c that its profile manages, among parts, below c->host's root. Returns 0
 * or -ENOMEM; what cannot be read or decided is in the plan (errors, a refused file). */
int rdma_setup_plan_compute(const NodeContext *c, RdmaSetupParts parts, RdmaSetupPlan *ret);
/* Nothing to write and nothing to load, and no error. */
bool rdma_setup_plan_is_empty(const RdmaSetupPlan *p) _pure_;
/* A file refused or an error: apply writes nothing. */
bool rdma_setup_plan_has_errors(const RdmaSetupPlan *p) _pure_;
/* One line per change or error, appended to *lines: "limits: write /etc/…/90-halod-memlock.conf
 * (DefaultLimitMEMLOCK=infinity): for services after `systemctl daemon-reexec`", "modules: load irdma
 * rdma_ucm now (systemctl restart systemd-modules-load.service)". */
int rdma_setup_plan_describe(const RdmaSetupPlan *p, char ***lines);

/* The directories where a part's files live, for --undo: NULL-terminated. NULL for an unknown part. */
const char *const *rdma_setup_part_dirs(const char *part) _pure_;
