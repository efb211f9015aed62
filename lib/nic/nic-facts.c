/* SPDX-License-Identifier: MIT */
/* Gathering one fabric port's NIC facts: libpci, ETHTOOL_GDRVINFO and GLINKSETTINGS, devlink, and for
 * ice's DDP devlink or the kernel log. */
#include <stdio.h>

#include "nic/nic-facts.h"
#include "nic/nic-family.h"

int nic_facts_read_ddp(const Host *h, const char *pci, NicFacts *f) {
        int r;

        if (f->devlink_error >= 0) {
                r = ice_ddp_state_from_devlink(&f->devlink, &f->ddp, &f->ddp_package);
                if (r < 0)
                        return r;
                if (f->ddp != ICE_DDP_UNKNOWN) {
                        f->ddp_source = ICE_DDP_SOURCE_DEVLINK;
                        /* devlink says that there is no package, only the log says why: its record
                         * becomes the detail when it agrees; a log that cannot be read changes nothing. */
                        if (f->ddp == ICE_DDP_SAFE_MODE) {
                                _cleanup_(freep) char *detail = NULL;
                                IceDdpState logged;

                                r = ice_ddp_state_from_kmsg(h, pci, &logged, &detail);
                                if (r == -ENOMEM)
                                        return r;
                                if (r < 0)
                                        f->ddp_error = r;
                                if (r >= 0 && logged == ICE_DDP_SAFE_MODE) {
                                        free(f->ddp_detail);
                                        f->ddp_detail = TAKE_PTR(detail);
                                }
                        }
                        return 0;
                }
        }
        f->ddp_error = ice_ddp_state_from_kmsg(h, pci, &f->ddp, &f->ddp_detail);
        if (f->ddp_error == -ENOMEM)
                return -ENOMEM;
        if (f->ddp_error < 0 || f->ddp == ICE_DDP_UNKNOWN)
                return 0;
        f->ddp_source = ICE_DDP_SOURCE_KERNEL_LOG;
        return ice_ddp_package_from_message(f->ddp_detail, &f->ddp_package);
}

/* Which RDMA protocol the NIC runs: devlink's enable_roce (ConnectX, E810) and enable_iwarp (E810). */
static int nic_facts_read_rdma_protocol(const char *pci, NicFamily family, NicFacts *f) {
        if (family == NIC_FAMILY_UNKNOWN)
                return 0;
        f->roce_error = devlink_get_param("pci", pci, "enable_roce", &f->roce, NULL);
        if (f->roce_error == -ENOMEM)
                return -ENOMEM;
        if (family != NIC_FAMILY_E810)
                return 0;
        f->iwarp_error = devlink_get_param("pci", pci, "enable_iwarp", &f->iwarp, NULL);
        return f->iwarp_error == -ENOMEM ? -ENOMEM : 0;
}

int nic_facts_gather(const Host *h, const char *pci, const char *ifname, NicFacts *ret) {
        NicFacts f = {
                .device_error = -ENODEV,
                .info_error = -ENOMEDIUM,
                .link_error = -ENOMEDIUM,
                .devlink_error = -ENOMEDIUM,
                .roce_error = -ENOMEDIUM,
                .iwarp_error = -ENOMEDIUM,
                .speed_error = -ENOMEDIUM,
        };
        int r;

        if (pci) {
                r = pci_iommu_read(h, pci, &f.iommu);
                if (r >= 0)
                        r = pci_sysfs_aspm(h, pci, &f.sysfs_aspm);
                if (r == -ENOMEM)
                        goto fail;
                f.sysfs_aspm_error = r < 0 ? r : 0;
                f.device_error = pci_device_get(h, pci, &f.device);
                if (f.device_error == -ENOMEM)
                        return -ENOMEM;
                if (f.device_error == -ELIBACC || f.device_error == -ELIBBAD) {
                        r = pci_library_load(&f.libpci_error);
                        if (r == -ENOMEM)
                                goto fail;
                }
                if (f.device_error < 0) {
                        /* Without libpci (not built in, or not installed) sysfs still names the driver. */
                        _cleanup_(freep) char *link = NULL;

                        if (asprintf(&link, "/sys/bus/pci/devices/%s/driver", pci) < 0)
                                return -ENOMEM;
                        r = host_readlink_basename(h, link, &f.sysfs_driver);
                        if (r == -ENOMEM)
                                goto fail;
                }
        }
        if (ifname) {
                f.speed_error = netdev_read_uint(h, ifname, "speed", &f.speed_mbit);
                if (f.speed_error == -ENOMEM) {
                        r = -ENOMEM;
                        goto fail;
                }
        }
        /* The ioctl asks the running kernel, which does not describe a tree below --root. */
        if (ifname && host_is_running_system(h)) {
                f.info_error = ethtool_get_driver_info(ifname, &f.info);
                f.link_error = ethtool_get_link_settings(ifname, &f.link);
                if (f.info_error == -ENOMEM || f.link_error == -ENOMEM) {
                        r = -ENOMEM;
                        goto fail;
                }
        }
        /* devlink describes the running kernel's devices, as the ioctl does. */
        if (pci && host_is_running_system(h)) {
                f.devlink_error = devlink_get_pci_info(pci, &f.devlink, &f.devlink_message);
                if (f.devlink_error == -ENOMEM) {
                        r = -ENOMEM;
                        goto fail;
                }
        }
        if (pci && nic_family_from_driver(nic_facts_driver(&f)) == NIC_FAMILY_E810) {
                r = nic_facts_read_ddp(h, pci, &f);
                if (r < 0)
                        goto fail;
        }
        if (pci && host_is_running_system(h)) {
                r = nic_facts_read_rdma_protocol(pci, nic_family_from_driver(nic_facts_driver(&f)), &f);
                if (r < 0)
                        goto fail;
        }
        *ret = f;
        return 0;

fail:
        nic_facts_done(&f);
        return -ENOMEM;
}

void nic_facts_done(NicFacts *f) {
        if (!f)
                return;
        f->device = pci_device_free(f->device);
        f->sysfs_driver = mfree(f->sysfs_driver);
        f->libpci_error = mfree(f->libpci_error);
        f->ddp_detail = mfree(f->ddp_detail);
        f->ddp_package = mfree(f->ddp_package);
        devlink_info_done(&f->devlink);
        devlink_param_done(&f->roce);
        devlink_param_done(&f->iwarp);
        f->devlink_message = mfree(f->devlink_message);
        pci_iommu_done(&f->iommu);
}

const char *nic_facts_driver(const NicFacts *f) {
        if (f->info_error >= 0 && !isempty(f->info.driver))
                return f->info.driver;
        if (f->devlink_error >= 0 && !isempty(f->devlink.driver))
                return f->devlink.driver;
        if (f->device && f->device->driver)
                return f->device->driver;
        return f->sysfs_driver;
}

NicFamily nic_facts_family(const NicFacts *f) {
        NicFamily family = nic_family_from_driver(nic_facts_driver(f));

        if (family == NIC_FAMILY_UNKNOWN && f->device)
                return nic_family_from_pci_id(f->device->id);
        return family;
}

NicFirmwareSource nic_facts_firmware_source(const NicFacts *f, DevlinkFirmware *ret_devlink) {
        /* No devlink in the kernel, no instance for the device, or a driver whose info names no
         * firmware: the driver's own string. */
        if (f->devlink_error >= 0 && devlink_info_firmware(&f->devlink, ret_devlink) >= 0)
                return NIC_FIRMWARE_SOURCE_DEVLINK;
        return NIC_FIRMWARE_SOURCE_ETHTOOL;
}
