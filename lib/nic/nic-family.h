/* SPDX-License-Identifier: MIT */
/* The NIC families halod knows (Intel E810, NVIDIA/Mellanox ConnectX), told apart by driver or PCI id,
 * and what each needs said to the user: its driver and RDMA modules, its firmware tool, its RDMA
 * device names, its line rates. */
#pragma once

#include <errno.h>

#include "basic/host.h"
#include "basic/macro.h"
#include "basic/pci-id.h"

/* The PCI vendor ids of the families. */
#define PCI_VENDOR_ID_INTEL 0x8086U
#define PCI_VENDOR_ID_MELLANOX 0x15b3U

typedef enum NicFamily {
        NIC_FAMILY_UNKNOWN, /* anything else: suggestions then name every family's module or tool */
        NIC_FAMILY_E810,
        NIC_FAMILY_CONNECTX,
        _NIC_FAMILY_MAX,
        _NIC_FAMILY_INVALID = -EINVAL,
} NicFamily;

/* "unknown", "e810", "connectx" */
const char *nic_family_to_string(NicFamily f) _pure_;
NicFamily nic_family_from_string(const char *s) _pure_;

/* What the user reads: "E810", "ConnectX"; NULL for an unknown family (and so below). */
const char *nic_family_display_name(NicFamily f) _pure_;
/* The kernel driver of the netdev: "ice", "mlx5_core". */
const char *nic_family_driver(NicFamily f) _pure_;
/* The kernel module of the RDMA device: "irdma", "mlx5_ib". */
const char *nic_family_rdma_module(NicFamily f) _pure_;
/* How the RDMA devices are named: "irdma" (irdma0, irdma1), "mlx5_" (mlx5_0, mlx5_1). */
const char *nic_family_rdma_prefix(NicFamily f) _pure_;
/* What the firmware is called and what updates it: "E810 NVM" with "Intel's nvmupdate64e";
 * "ConnectX firmware" with "mlxfwmanager, or fwupd". */
const char *nic_family_firmware_name(NicFamily f) _pure_;
const char *nic_family_firmware_tool(NicFamily f) _pure_;

/* The family of a netdev's driver ("ice", "mlx5_core"); unknown for NULL or any other. */
NicFamily nic_family_from_driver(const char *driver) _pure_;
/* The family of a PCI function: Intel's E810 device ids, any Mellanox device. */
NicFamily nic_family_from_pci_id(PciId id) _pure_;
/* The family of an RDMA device by its name ("mlx5_1": ConnectX). */
NicFamily nic_family_from_rdma_device(const char *name) _pure_;
/* The family of the PCI function at address pci below the host root: by its bound driver, else by
 * the vendor and device ids sysfs shows; unknown when neither says (or pci is NULL). */
NicFamily nic_family_of_pci(const Host *h, const char *pci);
/* The one family of the fabric NICs on the host (the PCI devices sysfs lists below the host root):
 * unknown when there are none, or several families. */
NicFamily nic_family_on_host(const Host *h);

/* The line rate in Gbit/s of a port of the family members halod knows, from their PCI id, for when
 * the netdev does not say (no link); 0 when unknown. */
unsigned nic_line_rate_from_id(PciId id) _pure_;

typedef enum NicModule {
        NIC_MODULE_DRIVER, /* the netdev's driver: ice, mlx5_core */
        NIC_MODULE_RDMA,   /* the RDMA device's: irdma, mlx5_ib */
        _NIC_MODULE_MAX,
        _NIC_MODULE_INVALID = -EINVAL,
} NicModule;

/* The command that loads the module, for a suggestion: "`modprobe mlx5_ib` for ConnectX" for a known
 * family, every family's ("`modprobe irdma` for E810, `modprobe mlx5_ib` for ConnectX") for an
 * unknown one. NULL when out of memory. */
char *nic_family_modprobe(NicFamily f, NicModule m);
