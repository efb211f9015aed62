/* SPDX-License-Identifier: MIT */
/* haloctl apply --only PARTS (daemon/haloctl/haloctl-apply-parts.c): what halod-helper.service runs for halod. */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include "check/helper-ask.h" /* HELPER_STAMP_*: the files it leaves for halod */
#include "plan/plan.h"
#include "plan/rdma-setup-plan.h"
#include "profile/node-context.h"

typedef enum ApplyPart {
        APPLY_PART_HOSTS = 1U << 0,    /* the /etc/hosts block (health.hosts: manage) */
        APPLY_PART_CDI = 1U << 1,      /* /run/cdi/halod.json */
        APPLY_PART_NETWORKD = 1U << 2, /* the links, when the backend is systemd-networkd */
        APPLY_PART_BOOT = 1U << 3,     /* the kernel command line (kernel.boot: manage) */
        APPLY_PART_LIMITS = 1U << 4,   /* the memlock drop-ins (rdma.limits: manage) */
        APPLY_PART_MODULES = 1U << 5,  /* modules-load.d and modprobe (rdma.modules: manage) */
} ApplyPart;

/* Parses the comma-separated parts of --only into ApplyPart flags; says what is wrong on stderr and
 * returns -EINVAL for an unknown or missing part. */
int apply_parts_parse(const char *only, unsigned *ret);
/* Takes part out of *parts, done or left alone; true when that was the last of the parts asked for. */
bool apply_parts_drop(unsigned *parts, ApplyPart part);
/* Derives the CDI spec of c's node, refuses one that is not safe (cdi_spec_check_safe()), writes it to
 * /run/cdi/halod.json when it changed, and says what it did. Returns the exit code. */
int apply_cdi_spec(const NodeContext *c);

/* Plans the kernel command line of c's node (kernel.boot: manage), or its undo, and carries it out with
 * the boot loader's tool; or, where unit is not NULL (and the profile says manage), has systemd start
 * unit, which does that in a sandbox made for the tools (haloctl apply --only boot), and waits for it.
 * Says what it did. Never reboots. Returns the exit code. */
int apply_boot_part(const NodeContext *c, bool undo, const char *unit);
/* haloctl-apply-setup.c: the plan's lines of the RDMA setup (appended to *lines), whether it has errors
 * and changes; applying the parts of it the profile manages, which says what it did (the exit code);
 * --undo PARTS, which removes halod's files of each part. */
int plan_rdma_setup_lines(const NodeContext *c, char ***lines, bool *ret_errors, bool *ret_changes);
/* For plan's text: a grey line for each file halod owns that is as the profile says (the list of them). */
void print_rdma_setup_kept(const NodeContext *c);
int apply_rdma_setup_parts(const NodeContext *c, RdmaSetupParts parts, FILE *out);
/* --undo PARTS: boot (with c, whose profile the boot loader's undo record is checked against) and the
 * parts whose files halod owns; c is NULL when undo does not name boot. */
int apply_undo(const char *undo, const NodeContext *c);
bool undo_names_boot(const char *undo) _pure_;
/* The NIC's runtime settings (nic.fw-lldp-agent, nic.enable-roce): the plan's lines for links (appended
 * to *lines; *errors and *changes raised when there are any), and setting them, saying what it did on
 * out and what failed on stderr (the exit code). */
int plan_nic_runtime_lines(const NodeContext *c, const Plan *links, char ***lines, bool *errors, bool *changes);
int apply_nic_runtime_settings(const NodeContext *c, FILE *out);

/* haloctl-apply-lock.c: takes the apply lock of h (lib/apply/apply-lock.h) before what ("changing the
 * kernel command line"), waiting while another process holds it and saying once on stderr who that is.
 * EXIT_SUCCESS with the lock's fd (closing it lets go), or the exit code after saying what is wrong. */
int apply_lock_part(const Host *h, const char *what, int *ret_fd);

/* Writes dir/name atomically (a new file: its mtime is now); for the result, with the exit status.
 * Failures are reported on stderr and otherwise ignored: the apply itself is what counts. */
void helper_stamp(const char *dir, const char *name, int exit_status);
