/* SPDX-License-Identifier: MIT */
/* devlink over generic netlink: a device's info (driver, serial numbers, fixed/running/stored
 * versions: `devlink dev info`) and its parameters (`devlink dev param show`). */
#pragma once

#include <linux/devlink.h>
#include <stdbool.h>
#include <stdint.h>

#include "basic/macro.h"

struct nlmsghdr;

typedef enum DevlinkVersionType {
        DEVLINK_VERSION_FIXED,   /* the hardware: "board.id", mlx5's "fw.psid" */
        DEVLINK_VERSION_RUNNING, /* what runs now: "fw.psid.api" (E810 NVM), "fw.version" (mlx5) */
        DEVLINK_VERSION_STORED,  /* what the flash holds, and runs after the next reset */
        _DEVLINK_VERSION_TYPE_MAX,
        _DEVLINK_VERSION_TYPE_INVALID = -EINVAL,
} DevlinkVersionType;

const char *devlink_version_type_to_string(DevlinkVersionType t) _pure_;

typedef struct DevlinkVersion {
        DevlinkVersionType type;
        char *name;  /* "fw.psid.api" */
        char *value; /* "4.91" */
} DevlinkVersion;

typedef struct DevlinkInfo {
        char *bus;          /* "pci" */
        char *device;       /* "0000:c2:00.0" */
        char *driver;       /* "ice"; NULL when the reply does not name it */
        char *serial;       /* ice: the PCI DSN "00-01-02-03-04-05-06-07"; NULL when none */
        char *board_serial; /* NULL when none */
        DevlinkVersion *versions;
        size_t n_versions;
} DevlinkInfo;

void devlink_info_done(DevlinkInfo *info);
/* The value of the version name of that type, or NULL when the device does not report it. */
const char *devlink_info_version(const DevlinkInfo *info, DevlinkVersionType type, const char *name) _pure_;

/* The data types of DEVLINK_ATTR_PARAM_TYPE: the kernel's NLA_* numbers (include/net/netlink.h),
 * which linux/devlink.h names enum devlink_var_attr_type only after 6.1 (DEVLINK_VAR_ATTR_TYPE_U8 =
 * 1, ...); Debian 12's header has neither, so they are spelled out here. */
typedef enum DevlinkParamType {
        DEVLINK_PARAM_U8 = 1,
        DEVLINK_PARAM_U16 = 2,
        DEVLINK_PARAM_U32 = 3,
        DEVLINK_PARAM_U64 = 4,
        DEVLINK_PARAM_STRING = 5,
        DEVLINK_PARAM_BOOL = 6, /* NLA_FLAG: the data attribute present means true */
} DevlinkParamType;

/* A parameter's value in one configuration mode (enum devlink_param_cmode: runtime, driverinit,
 * permanent). */
typedef struct DevlinkParamValue {
        bool present;    /* the driver reported this mode */
        uint64_t number; /* the integer types, and bool as 0 or 1 */
        char *string;    /* DEVLINK_PARAM_STRING */
} DevlinkParamValue;

typedef struct DevlinkParam {
        char *name; /* "enable_roce" */
        bool generic;
        uint8_t type; /* DevlinkParamType, or a newer one whose values are left out */
        DevlinkParamValue values[DEVLINK_PARAM_CMODE_MAX + 1];
} DevlinkParam;

void devlink_param_done(DevlinkParam *p);
/* The value in cmode, or NULL when the driver does not report that mode. */
const DevlinkParamValue *devlink_param_value(const DevlinkParam *p, enum devlink_param_cmode cmode) _pure_;
const char *devlink_param_cmode_to_string(enum devlink_param_cmode cmode) _pure_;

/* Pure parsing of one reply message (lib/nic/devlink-parse.c), for the requests below, the tests
 * and the fuzzer: the netlink header, the genetlink header and the attributes, every length checked.
 * Return 0, -EBADMSG for a malformed message or another command's, -ENOMEM. */
int devlink_parse_info(const struct nlmsghdr *nlh, DevlinkInfo *ret);
int devlink_parse_param(const struct nlmsghdr *nlh, DevlinkParam *ret);

/* The requests, on a socket of their own in the caller's network namespace. The errno contract:
 *   -EPROTONOSUPPORT  the kernel has no devlink at all (the controller does not know the family:
 *                     CONFIG_NET_DEVLINK is off). Nothing else returns it.
 *   -ENODEV           devlink exists, but no instance is registered for bus/device in this network
 *                     namespace: no such device, or its driver does not use devlink (virtio_net).
 *   -ENOENT           (devlink_get_param) the driver has no parameter of that name: the kernel
 *                     answers -EINVAL, which for a well-formed request means only that.
 *   -EOPNOTSUPP       the driver does not implement it (info before 6.2 without .info_get; a
 *                     parameter mode it cannot read).
 *   -EINVAL           a bus, device or name that cannot be a devlink handle (checked before asking).
 *   other             the kernel's answer, or the socket's (-EAFNOSUPPORT: no AF_NETLINK here).
 * When ret_error is not NULL it is set to the kernel's extended-ack text on failure, else NULL. */
int devlink_get_info(const char *bus, const char *device, DevlinkInfo *ret, char **ret_error);
int devlink_get_param(const char *bus, const char *device, const char *name, DevlinkParam *ret, char **ret_error);

/* Puts the attributes of DEVLINK_CMD_PARAM_SET for a bool parameter into nlh, after its genetlink
 * header: as net/devlink/param.c's devlink_nl_param_set_doit() reads them, the handle, the name, the
 * type (NLA_FLAG, which must be the parameter's own), the value as a flag (DEVLINK_ATTR_PARAM_VALUE_DATA
 * present and empty for true, absent for false: devlink_param_value_get_from_info()) and the mode.
 * Exposed for the tests. */
void devlink_param_set_bool_put(
        struct nlmsghdr *nlh,
        const char *bus,
        const char *device,
        const char *name,
        bool value,
        enum devlink_param_cmode cmode);
/* `devlink dev param set BUS/DEVICE name NAME value true|false cmode CMODE`: 0, or the contract's
 * errors above (-ENOENT: no such parameter; -EOPNOTSUPP: not settable in that mode), -EPERM without
 * CAP_NET_ADMIN, or the driver's refusal with its extended ack in *ret_error ("iWARP is currently
 * enabled. This device cannot enable iWARP and RoCEv2 simultaneously"). */
int devlink_set_param_bool(
        const char *bus,
        const char *device,
        const char *name,
        bool value,
        enum devlink_param_cmode cmode,
        char **ret_error);

/* The same for a PCI device by address ("0000:c2:00.0"). */
static inline int devlink_get_pci_info(const char *pci, DevlinkInfo *ret, char **ret_error) {
        return devlink_get_info("pci", pci, ret, ret_error);
}

/* The firmware a device runs, by the version names the drivers use (lib/nic/devlink-firmware.c):
 * ice's NVM "fw.psid.api" (what `ethtool -i` prints first, "4.91"), else "fw.version" (mlx5:
 * "16.35.2000"), else the generic "fw". Pointers into the DevlinkInfo. */
typedef struct DevlinkFirmware {
        const char *name;           /* the version name compared: "fw.psid.api" */
        const char *running;        /* "4.91" */
        const char *stored;         /* the same name's stored version; NULL when not reported */
        const char *eetrack;        /* ice's running "fw.bundle_id" ("0x800214b5"); NULL otherwise */
        const char *stored_eetrack; /* its stored one */
        const char *combo;          /* ice's "fw.undi", the combo image (option ROM) */
        const char *board_id;       /* devlink_info_board_id() */
} DevlinkFirmware;

/* Returns 0, or -ENODATA when the device reports none of those running versions. */
int devlink_info_firmware(const DevlinkInfo *info, DevlinkFirmware *ret);
/* The fixed "board.id" (ice: the PBA, "K91258-000"), else mlx5's fixed "fw.psid" ("MT_0000000012");
 * NULL when neither. */
const char *devlink_info_board_id(const DevlinkInfo *info) _pure_;
/* True when the flash holds another firmware than the one running (a stored version or EETRACK that
 * differs), which runs after the next reset: an update waiting for activation. */
bool devlink_firmware_pending(const DevlinkFirmware *f) _pure_;

/* What a devlink errno of the contract above means, for messages: "this kernel has no devlink",
 * "the driver has no devlink instance for the device", ...; strerror() for the others. */
const char *devlink_strerror(int error);
