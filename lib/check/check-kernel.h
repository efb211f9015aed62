/* SPDX-License-Identifier: MIT */
/* The kernel. checks: kernel.cmdline, kernel.cmdline-next, and from the fabric ports kernel.iommu and
 * kernel.aspm (what iommu=pt and pcie_aspm=off are for). amdgpu's GTT is gpu.gtt (check-gpu.h). */
#pragma once

#include "boot/cmdline.h"
#include "check/check-ports.h"
#include "check/checks.h"

/* kernel.cmdline and kernel.cmdline-next, from the snapshot s its caller read. */
int check_kernel(
        const NodeContext *c, const Snapshot *s, const CheckHistory *before, CheckHistory *after, CheckList *out);
/* kernel.iommu and kernel.aspm, which look at the fabric NIC's PCI device (the snapshot's ports). */
int check_kernel_devices(
        const NodeContext *c, const Snapshot *s, const CheckHistory *before, CheckHistory *after, CheckList *out);

/* True when the profile's kernel.cmdline requires name=value (value NULL: name with any value or
 * none); names compare as the kernel compares them ('-' and '_' alike). */
bool kernel_profile_requires(const NodeContext *c, const char *name, const char *value);

/* The required parameters (as written in the profile) that cmdline does not satisfy; *ret NULL when
 * it satisfies them all. Returns 0, -EINVAL for a requirement that does not parse, -ENOMEM. */
int kernel_unmet_requirements(const KernelCmdline *cmdline, char **required, char ***ret);

/* The profile's kernel.cmdline; NULL when it asks for none. */
char **kernel_required_params(const NodeContext *c);

/* kernel.cmdline-next's fix for the parameters in unmet, which the next boot b lacks
 * (check-kernel-next-fix.c), from what the snapshot read for it (f: Snapshot.host.boot_fix). */
int kernel_next_how_to_fix(const BootFixFacts *f, const BootConfig *b, char **unmet, char **ret);

/* The parts, for tests. */
int check_kernel_cmdline(const NodeContext *c, const Snapshot *s, CheckList *out);
int check_kernel_cmdline_next(const NodeContext *c, const Snapshot *s, CheckList *out);
int check_kernel_iommu(const NodeContext *c, const Snapshot *s, CheckList *out);
int check_kernel_aspm(const NodeContext *c, const Snapshot *s, CheckList *out);

/* kernel.aspm's decision for the fabric NIC at pci: aspm is the Link Control register's ASPM Control
 * field (bit 0: L0s, bit 1: L1), or -1 when it could not be read (why_not says why); source names
 * where it was read. */
int check_kernel_aspm_evaluate(
        const char *pci, int aspm, const char *source, const char *why_not, PortCheck *ret);
