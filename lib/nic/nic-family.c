/* SPDX-License-Identifier: MIT */
/* The NIC families: how each is recognised, and what each needs said to the user. */
#include <stdio.h>

#include "basic/strv.h"
#include "nic/nic-family.h"
#include "nic/pci-sysfs.h"

static const char *const nic_family_table[_NIC_FAMILY_MAX] = {
        [NIC_FAMILY_UNKNOWN] = "unknown",
        [NIC_FAMILY_E810] = "e810",
        [NIC_FAMILY_CONNECTX] = "connectx",
};

DEFINE_STRING_TABLE_LOOKUP(nic_family, NicFamily);

typedef struct NicFamilyInfo {
        const char *display_name;
        const char *driver;
        const char *rdma_module;
        const char *rdma_prefix;
        const char *firmware_name;
        const char *firmware_tool;
} NicFamilyInfo;

static const NicFamilyInfo nic_family_infos[_NIC_FAMILY_MAX] = {
        [NIC_FAMILY_E810] = {
                .display_name = "E810",
                .driver = "ice",
                .rdma_module = "irdma",
                .rdma_prefix = "irdma",
                .firmware_name = "E810 NVM",
                .firmware_tool = "Intel's nvmupdate64e",
        },
        [NIC_FAMILY_CONNECTX] = {
                .display_name = "ConnectX",
                .driver = "mlx5_core",
                .rdma_module = "mlx5_ib",
                .rdma_prefix = "mlx5_",
                .firmware_name = "ConnectX firmware",
                /* mlxfwmanager comes with NVIDIA's MFT (and MLNX_OFED). */
                .firmware_tool = "mlxfwmanager, or fwupd",
        },
};

/* The members halod knows by PCI id, with the line rate of one port. */
static const struct {
        PciId id;
        NicFamily family;
        unsigned gbit;
} nic_models[] = {
        { { PCI_VENDOR_ID_INTEL, 0x1591 }, NIC_FAMILY_E810, 100 }, /* E810-C for backplane */
        { { PCI_VENDOR_ID_INTEL, 0x1592 }, NIC_FAMILY_E810, 100 }, /* E810-C for QSFP (E810-CQDA1/CQDA2) */
        { { PCI_VENDOR_ID_INTEL, 0x1593 }, NIC_FAMILY_E810, 25 },  /* E810-C for SFP */
        { { PCI_VENDOR_ID_INTEL, 0x1599 }, NIC_FAMILY_E810, 25 },  /* E810-XXV for backplane */
        { { PCI_VENDOR_ID_INTEL, 0x159a }, NIC_FAMILY_E810, 25 },  /* E810-XXV for QSFP */
        { { PCI_VENDOR_ID_INTEL, 0x159b }, NIC_FAMILY_E810, 25 },  /* E810-XXV for SFP */
        { { PCI_VENDOR_ID_MELLANOX, 0x1017 }, NIC_FAMILY_CONNECTX, 100 }, /* MT27800 [ConnectX-5] */
        { { PCI_VENDOR_ID_MELLANOX, 0x1019 }, NIC_FAMILY_CONNECTX, 100 }, /* MT28800 [ConnectX-5 Ex] */
        { { PCI_VENDOR_ID_MELLANOX, 0x101b }, NIC_FAMILY_CONNECTX, 200 }, /* MT28908 [ConnectX-6] */
        /* MT2892 [ConnectX-6 Dx]: one device id for the 2x25, 2x100 and 1x200 GbE cards; the id cannot
         * tell them apart, so the family's largest port (200) is taken: the bound then never calls
         * a slot enough that is not. */
        { { PCI_VENDOR_ID_MELLANOX, 0x101d }, NIC_FAMILY_CONNECTX, 200 },
        { { PCI_VENDOR_ID_MELLANOX, 0x1021 }, NIC_FAMILY_CONNECTX, 400 }, /* MT2910 [ConnectX-7] */
};

static const NicFamilyInfo *info(NicFamily f) {
        if (f <= NIC_FAMILY_UNKNOWN || f >= _NIC_FAMILY_MAX)
                return NULL;
        return &nic_family_infos[f];
}

const char *nic_family_display_name(NicFamily f) {
        return info(f) ? info(f)->display_name : NULL;
}

const char *nic_family_driver(NicFamily f) {
        return info(f) ? info(f)->driver : NULL;
}

const char *nic_family_rdma_module(NicFamily f) {
        return info(f) ? info(f)->rdma_module : NULL;
}

const char *nic_family_rdma_prefix(NicFamily f) {
        return info(f) ? info(f)->rdma_prefix : NULL;
}

const char *nic_family_firmware_name(NicFamily f) {
        return info(f) ? info(f)->firmware_name : NULL;
}

const char *nic_family_firmware_tool(NicFamily f) {
        return info(f) ? info(f)->firmware_tool : NULL;
}

NicFamily nic_family_from_driver(const char *driver) {
        for (NicFamily f = NIC_FAMILY_UNKNOWN + 1; f < _NIC_FAMILY_MAX; f++)
                if (streq_ptr(driver, nic_family_infos[f].driver))
                        return f;
        return NIC_FAMILY_UNKNOWN;
}

NicFamily nic_family_from_pci_id(PciId id) {
        for (size_t i = 0; i < ELEMENTSOF(nic_models); i++)
                if (nic_models[i].id.vendor == id.vendor && nic_models[i].id.device == id.device)
                        return nic_models[i].family;
        /* Every Ethernet function Mellanox makes from the ConnectX-4 on (and the BlueField's) is
         * mlx5's; Intel's other NICs are other drivers' (i40e, ixgbe, igc). */
        if (id.vendor == PCI_VENDOR_ID_MELLANOX)
                return NIC_FAMILY_CONNECTX;
        return NIC_FAMILY_UNKNOWN;
}

NicFamily nic_family_from_rdma_device(const char *name) {
        for (NicFamily f = NIC_FAMILY_UNKNOWN + 1; f < _NIC_FAMILY_MAX; f++)
                if (name && startswith(name, nic_family_infos[f].rdma_prefix))
                        return f;
        return NIC_FAMILY_UNKNOWN;
}

NicFamily nic_family_of_pci(const Host *h, const char *pci) {
        _cleanup_(freep) char *link = NULL, *driver = NULL;
        NicFamily f;
        PciId id;

        if (!pci)
                return NIC_FAMILY_UNKNOWN;
        if (asprintf(&link, "/sys/bus/pci/devices/%s/driver", pci) >= 0 &&
            host_readlink_basename(h, link, &driver) >= 0) {
                f = nic_family_from_driver(driver);
                if (f != NIC_FAMILY_UNKNOWN)
                        return f;
        }
        /* Unbound (the driver did not probe), or bound to vfio-pci: the ids still say. */
        if (pci_sysfs_id(h, pci, &id) >= 0)
                return nic_family_from_pci_id(id);
        return NIC_FAMILY_UNKNOWN;
}

NicFamily nic_family_on_host(const Host *h) {
        _cleanup_(strv_freep) char **devices = NULL;
        NicFamily found = NIC_FAMILY_UNKNOWN;

        if (host_list_directory(h, "/sys/bus/pci/devices", &devices) < 0)
                return NIC_FAMILY_UNKNOWN;
        STRV_FOREACH(d, devices) {
                NicFamily f = nic_family_of_pci(h, *d);

                if (f == NIC_FAMILY_UNKNOWN)
                        continue;
                if (found != NIC_FAMILY_UNKNOWN && found != f)
                        return NIC_FAMILY_UNKNOWN;
                found = f;
        }
        return found;
}

unsigned nic_line_rate_from_id(PciId id) {
        for (size_t i = 0; i < ELEMENTSOF(nic_models); i++)
                if (nic_models[i].id.vendor == id.vendor && nic_models[i].id.device == id.device)
                        return nic_models[i].gbit;
        return 0;
}

char *nic_family_modprobe(NicFamily f, NicModule m) {
        _cleanup_(strv_freep) char **l = NULL;

        for (NicFamily k = NIC_FAMILY_UNKNOWN + 1; k < _NIC_FAMILY_MAX; k++) {
                const NicFamilyInfo *i = &nic_family_infos[k];

                if (f != NIC_FAMILY_UNKNOWN && k != f)
                        continue;
                if (strv_extendf(
                            &l,
                            "`modprobe %s` for %s",
                            m == NIC_MODULE_RDMA ? i->rdma_module : i->driver,
                            i->display_name) < 0)
                        return NULL;
        }
        return l ? strv_join(l, ", ") : strdup("");
}
