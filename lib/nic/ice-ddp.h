/* SPDX-License-Identifier: MIT */
/* Whether the ice driver loaded its DDP package for a device or runs it in Safe Mode, from the kernel log. */
#pragma once

#include <errno.h>

#include "basic/host.h"
#include "basic/macro.h"
#include "nic/devlink.h"

typedef enum IceDdpState {
        ICE_DDP_UNKNOWN,   /* neither devlink nor the log says (rotated away, or not readable) */
        ICE_DDP_LOADED,    /* devlink's running "fw.app.name"; the log's "The DDP package was
                            * successfully loaded: ...", "already present", or "a compatible DDP
                            * package is already present on the device" */
        ICE_DDP_SAFE_MODE, /* devlink reports no package; the log's messages of a failed load, whatever
                            * their case ("Entering Safe Mode", "Entering safe mode", or none) */
        _ICE_DDP_STATE_MAX,
        _ICE_DDP_STATE_INVALID = -EINVAL,
} IceDdpState;

const char *ice_ddp_state_to_string(IceDdpState s) _pure_;

/* Why ice entered Safe Mode, from the message it logged about the package (ice_log_pkg_init(),
 * ice_request_fw() and ice_load_pkg() in drivers/net/ethernet/intel/ice/ice_main.c). */
typedef enum IceDdpCause {
        ICE_DDP_CAUSE_NONE,             /* loaded, or no Safe Mode message at all */
        ICE_DDP_CAUSE_NVM_TOO_OLD,      /* "The firmware loaded on the device is not compatible with the
                                         * DDP package.  Please update the device's NVM." */
        ICE_DDP_CAUSE_FILE_MISSING,     /* "The DDP package file was not found or could not be read",
                                         * "The DDP package file failed to load" */
        ICE_DDP_CAUSE_FILE_INVALID,     /* "The DDP package file is invalid" */
        ICE_DDP_CAUSE_FILE_TOO_NEW,     /* "... version is higher than the driver supports" */
        ICE_DDP_CAUSE_FILE_TOO_OLD,     /* "... version is lower than the driver supports" */
        ICE_DDP_CAUSE_SIGNATURE,        /* "... its signature is not valid" */
        ICE_DDP_CAUSE_REVISION_TOO_LOW, /* "... its security revision is too low" */
        ICE_DDP_CAUSE_DEVICE_PACKAGE,   /* "The device has a DDP package that is not supported by the
                                         * driver" */
        ICE_DDP_CAUSE_LOAD_ERROR,       /* "An error occurred on the device while loading the DDP package" */
        ICE_DDP_CAUSE_UNKNOWN,          /* "An unknown error occurred ...", or a wording that names none */
        _ICE_DDP_CAUSE_MAX,
        _ICE_DDP_CAUSE_INVALID = -EINVAL,
} IceDdpCause;

/* "the device's NVM is too old for the kernel's DDP package" */
const char *ice_ddp_cause_to_string(IceDdpCause c) _pure_;
/* What to do about it: "update the NVM with Intel's nvmupdate64e ..." */
const char *ice_ddp_cause_fix(IceDdpCause c) _pure_;
/* The cause a message names; ICE_DDP_CAUSE_NONE for a message that says nothing of a failed load. */
IceDdpCause ice_ddp_cause_from_message(const char *message) _pure_;
/* The cause of Safe Mode, which is known to have happened, from the message that was seen (may be
 * NULL): a message that names none makes it ICE_DDP_CAUSE_UNKNOWN, never NONE. */
IceDdpCause ice_ddp_safe_mode_cause(const char *message) _pure_;

/* Where the state is read from, below the host root. halod's unit hides it (PrivateDevices=,
 * ProtectKernelLogs=), and dmesg_restrict keeps it from users other than root. */
#define ICE_DDP_KMSG "/dev/kmsg"

/* Reads the kernel log records (<root>/dev/kmsg: the live ring buffer, or a regular file with the
 * same "prio,seq,usec,flags;text" records in a fixture tree) and returns the state the last record
 * about the ice device at pci says. ret_detail gets that record's text (may be NULL). Returns
 * -EACCES/-EPERM when the log is not readable (dmesg_restrict: run as root), -ENOENT when there is
 * none (halod's sandbox): then the state is not known, which the callers must say. */
int ice_ddp_state_from_kmsg(const Host *h, const char *pci, IceDdpState *ret, char **ret_detail);

/* Decides from one message text ("ice 0000:c2:00.0: ..."); exported for the tests and the fuzzer.
 * Every message ice has logged for the package's outcome counts, by its cause, not by the words
 * "Safe Mode" (which one of them writes "safe mode", and another leaves out). */
IceDdpState ice_ddp_state_from_message(const char *message, const char *pci);

/* Where a state was read from, for the checks to say. */
typedef enum IceDdpSource {
        ICE_DDP_SOURCE_NONE,
        ICE_DDP_SOURCE_DEVLINK,
        ICE_DDP_SOURCE_KERNEL_LOG,
        _ICE_DDP_SOURCE_MAX,
        _ICE_DDP_SOURCE_INVALID = -EINVAL,
} IceDdpSource;

const char *ice_ddp_source_to_string(IceDdpSource s) _pure_; /* "devlink", "kernel log" */

/* Decides from an ice device's devlink info. ice reports the active package as running "fw.app.name"
 * ("ICE OS Default Package", "ICE COMMS Package") and "fw.app" (its version, "1.3.36.0"); in Safe
 * Mode the name is empty, so not reported, and "fw.app" is "0.0.0.0". A device whose info has no
 * running "fw.mgmt" is not described by its driver's info at all: ICE_DDP_UNKNOWN, and the caller
 * asks the kernel log. ret_package gets "ICE OS Default Package 1.3.36.0" when loaded (may be NULL).
 * Returns the state, or -ENOMEM. */
int ice_ddp_state_from_devlink(const DevlinkInfo *info, IceDdpState *ret, char **ret_package);

/* The package a kernel log record names ("ICE OS Default Package version 1.3.36.0", from "The DDP
 * package was successfully loaded: ICE OS Default Package version 1.3.36.0", or from "The device has
 * package 'ICE OS Default Package' version 1.3.36.0."): *ret is NULL when it names none. Returns 0 or
 * -ENOMEM. */
int ice_ddp_package_from_message(const char *message, char **ret);

/* The state of the ice device at pci as nic.driver reads it, for callers without the NIC facts:
 * devlink first (on the running system only), then the kernel log below h. ret_source says which
 * said (ICE_DDP_SOURCE_NONE: neither). Returns 0, or the kernel log's error when devlink did not say
 * and the log could not be read (as ice_ddp_state_from_kmsg()), or -ENOMEM. */
int ice_ddp_state_read(
        const Host *h, const char *pci, IceDdpState *ret, IceDdpSource *ret_source, char **ret_detail);
