/* SPDX-License-Identifier: MIT */
/* What the driver of a network interface says of itself through the SIOCETHTOOL ioctl: its name and
 * firmware (ETHTOOL_GDRVINFO), the link it negotiated (ETHTOOL_GLINKSETTINGS), and its private flags
 * (ETHTOOL_GPFLAGS). */
#pragma once

#include <linux/ethtool.h>
#include <stdbool.h>

#include "basic/macro.h"

typedef struct EthtoolDriverInfo {
        char driver[sizeof(((struct ethtool_drvinfo *) 0)->driver)];         /* "ice", "veth" */
        char version[sizeof(((struct ethtool_drvinfo *) 0)->version)];       /* "6.18.4" or "" */
        char fw_version[sizeof(((struct ethtool_drvinfo *) 0)->fw_version)]; /* "" when none */
        char bus_info[sizeof(((struct ethtool_drvinfo *) 0)->bus_info)];     /* "0000:c2:00.0" or "" */
} EthtoolDriverInfo;

/* Asks the kernel, in the caller's network namespace. Returns 0, -EINVAL for a name that is not an
 * interface name, -ENODEV when there is no such interface, -EOPNOTSUPP when its driver does not
 * answer (lo), or another negative errno from socket()/ioctl(). */
int ethtool_get_driver_info(const char *ifname, EthtoolDriverInfo *ret);

typedef struct EthtoolLinkSettings {
        unsigned speed_mbit; /* the negotiated speed in Mbit/s; 0 when the driver does not know (no link) */
        int duplex;          /* DUPLEX_FULL, DUPLEX_HALF or DUPLEX_UNKNOWN */
        bool autoneg;        /* AUTONEG_ENABLE */
} EthtoolLinkSettings;

/* ETHTOOL_GLINKSETTINGS, with the kernel's handshake for the size of the link mode masks. Returns the
 * same errors as ethtool_get_driver_info(). */
int ethtool_get_link_settings(const char *ifname, EthtoolLinkSettings *ret);

/* "full", "half", "unknown". */
const char *ethtool_duplex_to_string(int duplex) _pure_;

/* The driver's private flag name (`ethtool --show-priv-flags`): its names from ETHTOOL_GSSET_INFO and
 * ETHTOOL_GSTRINGS (ETH_SS_PRIV_FLAGS), its bit from ETHTOOL_GPFLAGS. *ret: whether it is on. Returns
 * 0, -ENOENT when the driver has no flag of that name (veth has no private flags at all), or the
 * errors of ethtool_get_driver_info(). */
int ethtool_get_private_flag(const char *ifname, const char *name, bool *ret);
