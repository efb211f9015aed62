/* SPDX-License-Identifier: MIT */
/* The driver and firmware of a network interface, through the SIOCETHTOOL ioctl (ETHTOOL_GDRVINFO). */
#pragma once

#include <linux/ethtool.h>

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
