/* SPDX-License-Identifier: MIT */
/* What the driver of a network interface says of itself through the SIOCETHTOOL ioctl: its name and
 * firmware (ETHTOOL_GDRVINFO), the link it negotiated (ETHTOOL_GLINKSETTINGS), its private flags
 * (ETHTOOL_GPFLAGS) and its statistics (ETHTOOL_GSTATS). */
#pragma once

#include <linux/ethtool.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/* The driver's statistics (`ethtool -S`): names from ETHTOOL_GSSET_INFO and ETHTOOL_GSTRINGS
 * (ETH_SS_STATS), values from ETHTOOL_GSTATS, in the driver's order. Per-priority pause frames are
 * among them: mlx5's rx_prio3_pause and tx_prio3_pause, ice's rx_priority_3_xoff.nic and
 * tx_priority_3_xoff.nic; veth has its own (peer_ifindex, rx_queue_0_xdp_packets, ...). */
typedef struct EthtoolStats {
        char (*names)[ETH_GSTRING_LEN]; /* NUL-terminated */
        uint64_t *values;
        size_t n;
} EthtoolStats;

/* Returns 0 (n 0 when the driver has no statistics), -EAGAIN when their number changed between the
 * questions (a driver reconfigured: ask again), or the errors of ethtool_get_driver_info(). */
int ethtool_get_stats(const char *ifname, EthtoolStats *ret);
void ethtool_stats_done(EthtoolStats *s);
/* The value of the statistic named name: 0 or -ENOENT. */
int ethtool_stats_find(const EthtoolStats *s, const char *name, uint64_t *ret);

/* "full", "half", "unknown". */
const char *ethtool_duplex_to_string(int duplex) _pure_;

/* The driver's private flag name (`ethtool --show-priv-flags`): its names from ETHTOOL_GSSET_INFO and
 * ETHTOOL_GSTRINGS (ETH_SS_PRIV_FLAGS), its bit from ETHTOOL_GPFLAGS. *ret: whether it is on. Returns
 * 0, -ENOENT when the driver has no flag of that name (veth has no private flags at all), or the
 * errors of ethtool_get_driver_info(). */
int ethtool_get_private_flag(const char *ifname, const char *name, bool *ret);
/* Sets the driver's private flag name to value (`ethtool --set-priv-flags IF NAME on|off`), the other
 * flags left as they are: 1 when it changed, 0 when it already was value; -ENOENT as above, -EPERM
 * without CAP_NET_ADMIN, or the driver's refusal. */
int ethtool_set_private_flag(const char *ifname, const char *name, bool value);

/* The permanent hardware address the driver reports (ETHTOOL_GPERMADDR, `ethtool -P`), as
 * "6c:fe:54:00:00:01"; -ENODATA when it has none (a veth answers all zeros), or the errors of
 * ethtool_get_driver_info(). */
int ethtool_get_permanent_address(const char *ifname, char ret[static 18]);
