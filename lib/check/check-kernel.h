/* SPDX-License-Identifier: MIT */
/* The kernel. checks: kernel.cmdline, kernel.cmdline-next, and from the fabric ports kernel.iommu and
 * kernel.aspm (what iommu=pt and pcie_aspm=off are for). amdgpu's GTT is gpu.gtt (check-gpu.h). */
#pragma once

#include "boot/cmdline.h"
#include "check/check-ports.h"
#include "check/checks.h"
#include "check/kernel-params.h"

int check_kernel(const NodeContext *c, CheckList *out);
/* kernel.iommu and kernel.aspm, which look at the fabric NIC's PCI device (the snapshot's ports). */
int check_kernel_devices(const NodeContext *c, Snapshot *s, CheckList *out);

/* The parts, for tests. */
int check_kernel_cmdline(const NodeContext *c, CheckList *out);
int check_kernel_cmdline_next(const NodeContext *c, CheckList *out);
int check_kernel_iommu(const NodeContext *c, Snapshot *s, CheckList *out);
int check_kernel_aspm(const NodeContext *c, Snapshot *s, CheckList *out);

/* kernel.aspm's decision for the fabric NIC at pci: aspm is the Link Control register's ASPM Control
 * field (bit 0: L0s, bit 1: L1), or -1 when it could not be read (why_not says why); source names
 * where it was read. */
int check_kernel_aspm_evaluate(
        const char *pci, int aspm, const char *source, const char *why_not, PortCheck *ret);
