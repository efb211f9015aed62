/* SPDX-License-Identifier: MIT */
/* What the NIC checks and the metrics know about one fabric port, gathered once: its PCI device
 * (libpci), the driver's own report (ETHTOOL_GDRVINFO), the link it negotiated (ETHTOOL_GLINKSETTINGS),
 * its devlink info (firmware versions, board id) and, for ice, whether its DDP package loaded. */
#pragma once

#include "nic/devlink.h"
#include "nic/ethtool.h"
#include "nic/ice-ddp.h"
#include "nic/nic-family.h"
#include "nic/pci-iommu.h"
#include "nic/pci-sysfs.h"
#include "nic/pci.h"

typedef struct NicFacts {
        PciDevice *device;  /* NULL: device_error says why */
        int device_error;   /* -ENODEV: no PCI device for the port; -ELIBACC, -ELIBBAD: no libpci; ... */
        char *libpci_error; /* with -ELIBACC or -ELIBBAD: why libpci could not be loaded, and what to install
                             * (pci_library_load()'s message; NULL: it gave none) */
        char *sysfs_driver; /* the driver sysfs names for the port's PCI device when libpci could not
                             * describe it; NULL otherwise */
        EthtoolDriverInfo info;
        int info_error; /* -ENOMEDIUM: not asked (no netdev, or a tree below --root has no ioctl) */
        EthtoolLinkSettings link; /* ETHTOOL_GLINKSETTINGS */
        int link_error;           /* -ENOMEDIUM: not asked, as info_error */
        DevlinkInfo devlink;      /* valid when devlink_error >= 0 */
        int devlink_error;        /* -ENOMEDIUM: not asked (no PCI device, or a tree below --root, which
                                   * devlink does not describe); -EPROTONOSUPPORT: the kernel has no
                                   * devlink; -ENODEV: the driver has no devlink instance; devlink.h */
        char *devlink_message;    /* the kernel's extended-ack text when it refused; NULL otherwise */
        IceDdpState ddp;          /* ICE_DDP_UNKNOWN unless the driver is ice and devlink or the log says */
        IceDdpSource ddp_source;  /* where ddp was read; ICE_DDP_SOURCE_NONE while it is unknown */
        int ddp_error;            /* <0: devlink did not say and the kernel log could not be read (not
                                   * root, or halod's sandbox); also when devlink said Safe Mode and the
                                   * log, which says why, could not be read */
        char *ddp_detail;         /* the kernel log record that decided; when devlink said Safe Mode,
                                   * the log's record of why, if it could be read */
        char *ddp_package;        /* "ICE OS Default Package 1.3.36.0"; NULL when not named */
        DevlinkParam roce;        /* devlink's enable_roce, valid when roce_error >= 0 */
        int roce_error;           /* -ENOMEDIUM: not asked (not an E810 or ConnectX, or below --root) */
        DevlinkParam iwarp;       /* ice's enable_iwarp, valid when iwarp_error >= 0 */
        int iwarp_error;          /* -ENOMEDIUM: not asked (not an E810, or below --root) */
        PciIommu iommu;           /* how the IOMMU treats the PCI device; read when there is one */
        int sysfs_aspm;           /* the ASPM states the kernel enabled on its link (pci_sysfs_aspm()), */
        int sysfs_aspm_error;     /* valid when this is 0; its errno otherwise (-ENOENT: not shown) */
        unsigned speed_mbit;      /* the netdev's sysfs "speed" (Mbit/s), valid when speed_error is 0 */
        int speed_error;          /* -ENOMEDIUM: no netdev; else the errno of reading it */
} NicFacts;

/* Gathers the facts of one port: its PCI device pci ("0000:c2:00.0", NULL when none was found) and
 * netdev ifname (NULL when it has none). Whatever cannot be read is recorded with its errno, for the
 * checks to explain; returns 0, or -ENOMEM. */
int nic_facts_gather(const Host *h, const char *pci, const char *ifname, NicFacts *ret);
void nic_facts_done(NicFacts *f);

/* ice's DDP state into f (ddp, ddp_source, ddp_error, ddp_detail, ddp_package): from f's devlink info
 * when it says, else from the kernel log below h. An unreadable log (not root, or halod's sandbox)
 * leaves the state unknown with ddp_error set: nic.driver says that it could not look. Returns 0 or
 * -ENOMEM; called by nic_facts_gather() for ice, and by the tests with the devlink info handed in. */
int nic_facts_read_ddp(const Host *h, const char *pci, NicFacts *f);

/* The driver the facts name: the driver's own report, else devlink's, else libpci's, else sysfs's;
 * NULL when none. */
const char *nic_facts_driver(const NicFacts *f) _pure_;
/* The port's NIC family from what was read: the driver (nic_facts_driver()), else the PCI ids (unbound,
 * or bound to vfio-pci), as nic_family_of_pci() says from sysfs. Without libpci only the driver. */
NicFamily nic_facts_family(const NicFacts *f) _pure_;

typedef enum NicFirmwareSource {
        NIC_FIRMWARE_SOURCE_DEVLINK, /* devlink's running version of the firmware it names */
        NIC_FIRMWARE_SOURCE_ETHTOOL, /* the driver's ETHTOOL_GDRVINFO fw_version string */
        _NIC_FIRMWARE_SOURCE_MAX,
        _NIC_FIRMWARE_SOURCE_INVALID = -EINVAL,
} NicFirmwareSource;

/* Where the running firmware's version is read, for nic.firmware and the metrics alike: devlink's
 * versions when devlink describes the device and names its firmware (*ret_devlink then holds them,
 * pointers into f), else the driver's own string, as `ethtool -i` shows it. */
NicFirmwareSource nic_facts_firmware_source(const NicFacts *f, DevlinkFirmware *ret_devlink);
