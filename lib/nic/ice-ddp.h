/* SPDX-License-Identifier: MIT */
/* Whether the ice driver loaded its DDP package for a device or runs it in Safe Mode, from the kernel log. */
#pragma once

#include <errno.h>

#include "basic/host.h"
#include "basic/macro.h"

typedef enum IceDdpState {
        ICE_DDP_UNKNOWN,   /* the log says nothing about the device (rotated away, or not readable) */
        ICE_DDP_LOADED,    /* "The DDP package was successfully loaded: ..." or "already present" */
        ICE_DDP_SAFE_MODE, /* "... Entering Safe Mode" / "Device now in Safe Mode" */
        _ICE_DDP_STATE_MAX,
        _ICE_DDP_STATE_INVALID = -EINVAL,
} IceDdpState;

const char *ice_ddp_state_to_string(IceDdpState s) _pure_;

/* Where the state is read from, below the host root. halod's unit hides it (PrivateDevices=,
 * ProtectKernelLogs=), and dmesg_restrict keeps it from users other than root. */
#define ICE_DDP_KMSG "/dev/kmsg"

/* Reads the kernel log records (<root>/dev/kmsg: the live ring buffer, or a regular file with the
 * same "prio,seq,usec,flags;text" records in a fixture tree) and returns the state the last record
 * about the ice device at pci says. ret_detail gets that record's text (may be NULL). Returns
 * -EACCES/-EPERM when the log is not readable (dmesg_restrict: run as root), -ENOENT when there is
 * none (halod's sandbox): then the state is not known, which the callers must say. */
int ice_ddp_state_from_kmsg(const Host *h, const char *pci, IceDdpState *ret, char **ret_detail);

/* Decides from one message text ("ice 0000:c2:00.0: ..."); exported for the tests and the fuzzer. */
IceDdpState ice_ddp_state_from_message(const char *message, const char *pci);
