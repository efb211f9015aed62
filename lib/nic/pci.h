/* SPDX-License-Identifier: MIT */
/* A PCI device as the NIC checks see it (libpci): identity, name from pci.ids, driver, PCIe link. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "basic/host.h"
#include "basic/macro.h"
#include "basic/pci-id.h"

typedef struct PcieLink {
        unsigned speed_mts; /* transfer rate per lane in MT/s: 2500 ... 64000; 0 when unknown */
        unsigned width;     /* lanes; 0 when unknown */
} PcieLink;

typedef enum PcieLinkSource {
        PCIE_LINK_UNKNOWN,
        PCIE_LINK_CONFIG, /* the PCIe capability's Link Capabilities and Link Status registers */
        PCIE_LINK_SYSFS,  /* current_link_speed/width and max_link_speed/width */
        _PCIE_LINK_SOURCE_MAX,
        _PCIE_LINK_SOURCE_INVALID = -EINVAL,
} PcieLinkSource;

const char *pcie_link_source_to_string(PcieLinkSource s) _pure_;

typedef struct PciDevice {
        char *address; /* "0000:c2:00.0" */
        PciId id;
        unsigned class_id; /* base class and subclass, 0x0200 for an Ethernet controller */
        char *name;        /* "Intel Corporation Ethernet Controller E810-C for QSFP"; NULL when unknown */
        char *driver;      /* "ice"; NULL when no driver is bound */
        PcieLinkSource link_source;
        PcieLink current; /* negotiated */
        PcieLink capable; /* what the device can do */
        int aspm_control; /* the Link Control register's ASPM Control field (bit 0: L0s, bit 1: L1
                           * entry enabled); -1 when the PCIe capability could not be read (not
                           * root: only the first 64 bytes of config space are readable) */
} PciDevice;

/* Loads libpci.so.3 (on first use, and never unloads it; pci_device_get() and
 * pci_devices_find_ids() do it themselves): 0 when loaded; -ELIBACC or -ELIBBAD with a message for
 * the user in *ret_error (may be NULL) when it cannot be; -EOPNOTSUPP when halod was built without
 * libpci. */
int pci_library_load(char **ret_error);

/* Reads one device through libpci's linux-sysfs method with sysfs.path below the host root, and
 * names it from the pci.ids found below the host root. Returns -ENODEV when there is no such
 * device, -EIO when libpci reports an error, -EOPNOTSUPP when halod was built without libpci,
 * -ELIBACC or -ELIBBAD when libpci cannot be loaded (pci_library_load() says why). */
int pci_device_get(const Host *h, const char *address, PciDevice **ret);
PciDevice *pci_device_free(PciDevice *d);
DEFINE_TRIVIAL_CLEANUP_FUNC(PciDevice *, pci_device_free);

/* The addresses of every device whose vendor:device is one of ids, sorted (NULL when none). */
int pci_devices_find_ids(const Host *h, const PciId *ids, size_t n_ids, char ***ret);

/* Usable throughput of a link in Gbit/s after the line encoding: 8b/10b up to 5 GT/s, 128b/130b
 * for 8 to 32 GT/s, FLIT mode (242/256) at 64 GT/s. 0 when unknown. */
double pcie_link_gbit(const PcieLink *l) _pure_;
/* "16", "2.5": the GT/s figure as people write it. buf needs PCIE_SPEED_STRING_MAX bytes. */
#define PCIE_SPEED_STRING_MAX 16U
const char *pcie_speed_to_string(unsigned speed_mts, char *buf);
/* The PCIe generation (1..6) of a transfer rate; 0 when unknown. */
unsigned pcie_generation(unsigned speed_mts) _pure_;
/* Parses sysfs's "16.0 GT/s PCIe" or "2.5 GT/s" into MT/s. */
int pcie_speed_from_sysfs(const char *s, unsigned *ret);
