/* SPDX-License-Identifier: MIT */
/* The kernel command line part of the plan (kernel.boot: manage): which parameters of the profile the
 * next boot lacks, and what halod-helper writes and runs to add them with the boot loader's own tool. */
#pragma once

#include "basic/owned-file.h"
#include "boot/boot-loader.h"
#include "profile/node-context.h"

/* The drop-in halod owns on GRUB without BLS (Debian, Ubuntu): grub-mkconfig sources
 * /etc/default/grub.d/\*.cfg in name order, so this one, read after 50-cloudimg-settings.cfg, has the
 * last word. */
#define BOOT_GRUB_DROPIN "/etc/default/grub.d/99-halod.cfg"
/* What halod needs to undo its change where the boot loader's tool keeps none (grubby edits the BLS
 * entries in place; /etc/kernel/cmdline cannot carry a marker): root's, beside the profile. */
#define BOOT_UNDO_FILE "/etc/halod/boot-undo.conf"
#define BOOT_PART "boot"

typedef struct BootPlan {
        BootLoader loader;
        const char *tool;  /* "grubby", "update-grub" (or grub2-mkconfig …), "kernel-install" */
        char **add;        /* parameters the next boot lacks: "iommu=pt" */
        char **replace;    /* those it has with another value, as it has them: "amd_iommu=off" */
        char *file;        /* the file written below the host root (BOOT_GRUB_DROPIN, /etc/kernel/cmdline);
                            * NULL when none is (grubby edits the entries itself) */
        char *file_text;   /* its new content (for the drop-in: after halod's marker) */
        char *file_before; /* /etc/kernel/cmdline as it was; NULL when there was none */
        bool undo;         /* haloctl apply --undo boot: file_text NULL removes file */
        char ***commands;  /* each command to run, in order, as argv (NULL-terminated list of strv) */
        char **saved;      /* the files the commands rewrite (entries, grub.cfg): put back when one fails */
        char *undo_text;   /* BOOT_UNDO_FILE's new body; NULL when it does not change */
        char *error;       /* why halod cannot write the command line here, or NULL */
} BootPlan;

/* BOOT_UNDO_FILE: what halod changed that the boot loader's tool does not keep. */
typedef struct BootUndo {
        char **added;         /* parameters halod added ("iommu=pt"): grubby removes them again */
        char **replaced;      /* parameters halod replaced, as they were: grubby puts them back */
        bool cmdline_known;   /* systemd-boot: the line below is known */
        char *cmdline_before; /* /etc/kernel/cmdline before halod wrote it; NULL when there was none */
} BootUndo;

/* Reads BOOT_UNDO_FILE (path below the host root): 0, -ENOENT when there is none, -EEXIST when it is
 * not halod's. */
int boot_undo_read(const char *path, BootUndo *ret);
/* Parses its body (after the marker line): "added=", "replaced=" (command lines), "cmdline-before="
 * or "cmdline-absent"; other lines are ignored. -E2BIG for a list beyond KERNEL_CMDLINE_MAX. */
int boot_undo_parse(const char *body, BootUndo *ret);
void boot_undo_done(BootUndo *u);

/* The plan for the node's kernel command line, read from below c->host's root. *ret is NULL when the
 * profile does not say kernel.boot: manage, names no parameter, or the next boot and what writes it
 * already carry them all. Returns 0 or -ENOMEM; what cannot be read or written is the plan's error. */
int boot_plan_compute(const NodeContext *c, BootPlan **ret);
BootPlan *boot_plan_free(BootPlan *bp);
DEFINE_TRIVIAL_CLEANUP_FUNC(BootPlan *, boot_plan_free);

/* One line per change: "kernel: + iommu=pt pcie_aspm=off via grubby --update-kernel=ALL --args=…",
 * "kernel: write /etc/default/grub.d/99-halod.cfg, then run update-grub", or "kernel: cannot …". */
int boot_plan_describe(const BootPlan *bp, char ***ret_lines);

/* Merges the required parameters into cmdline as the boot loaders' tools do (grubby's --args, rhboot/
 * grubby grubby-bls update_args()): a parameter absent is appended, one with another value has every
 * occurrence replaced by the one required (never doubled), every other parameter is kept in its place.
 * The names appended go to *ret_add, the occurrences replaced to *ret_replace (each may be NULL).
 * -EINVAL when a requirement is not one parameter. */
int boot_cmdline_merge(const char *cmdline, char **required, char **ret, char ***ret_add, char ***ret_replace);

/* What `haloctl apply --undo boot` does: removes halod's drop-in (GRUB), puts back /etc/kernel/cmdline
 * (systemd-boot) or has grubby remove what halod added and put back what it replaced (GRUB with BLS), as
 * BOOT_UNDO_FILE says, then runs the tool. *ret is NULL when halod wrote nothing. */
int boot_plan_undo(const NodeContext *c, BootPlan **ret);
