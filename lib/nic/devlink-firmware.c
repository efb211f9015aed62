/* SPDX-License-Identifier: MIT */
/* Which firmware a device runs and holds, from the version names of its devlink info
 * (Documentation/networking/devlink/ice.rst, mlx5.rst, devlink-info.rst). */
#include "nic/devlink.h"

/* In order of preference: the first one the device reports running is the firmware's version. */
static const char *const firmware_version_names[] = {
        "fw.psid.api", /* ice: the NVM version ("%x.%02x"), the first word of `ethtool -i` */
        "fw.version",  /* mlx5 */
        "fw",          /* DEVLINK_INFO_VERSION_GENERIC_FW: mlx5 too, and bnxt, nfp, ... */
};

const char *devlink_info_board_id(const DevlinkInfo *info) {
        return devlink_info_version(info, DEVLINK_VERSION_FIXED, "board.id")
                ?: devlink_info_version(info, DEVLINK_VERSION_FIXED, "fw.psid");
}

int devlink_info_firmware(const DevlinkInfo *info, DevlinkFirmware *ret) {
        for (size_t i = 0; i < ELEMENTSOF(firmware_version_names); i++) {
                const char *name = firmware_version_names[i];
                const char *running = devlink_info_version(info, DEVLINK_VERSION_RUNNING, name);

                if (isempty(running))
                        continue;
                *ret = (DevlinkFirmware){
                        .name = name,
                        .running = running,
                        .stored = devlink_info_version(info, DEVLINK_VERSION_STORED, name),
                        .eetrack = devlink_info_version(info, DEVLINK_VERSION_RUNNING, "fw.bundle_id"),
                        .stored_eetrack = devlink_info_version(info, DEVLINK_VERSION_STORED, "fw.bundle_id"),
                        .combo = devlink_info_version(info, DEVLINK_VERSION_RUNNING, "fw.undi"),
                        .board_id = devlink_info_board_id(info),
                };
                return 0;
        }
        return -ENODATA;
}

bool devlink_firmware_pending(const DevlinkFirmware *f) {
        /* ice reports the running version as stored too when nothing is pending; mlx5 likewise. */
        if (f->stored && !streq(f->stored, f->running))
                return true;
        return f->eetrack && f->stored_eetrack && !streq(f->eetrack, f->stored_eetrack);
}
