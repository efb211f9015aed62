/* SPDX-License-Identifier: MIT */
/* A PCI device's vendor and device id: what a profile's nic.pci-ids name and sysfs and libpci show. */
#pragma once

#include <stdint.h>

typedef struct PciId {
        uint16_t vendor;
        uint16_t device;
} PciId;
