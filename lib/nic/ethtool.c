/* SPDX-License-Identifier: MIT */
/* ETHTOOL_GDRVINFO through the SIOCETHTOOL ioctl. */
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "basic/macro.h"
#include "nic/ethtool.h"

/* The kernel NUL-terminates these fields, but a copy that cannot overrun costs nothing. */
static void copy_field(char *dst, const char *src, size_t size) {
        size_t n = strnlen(src, size - 1);

        memcpy(dst, src, n);
        dst[n] = '\0';
}

int ethtool_get_driver_info(const char *ifname, EthtoolDriverInfo *ret) {
        struct ethtool_drvinfo info = { .cmd = ETHTOOL_GDRVINFO };
        struct ifreq ifr = {};
        _cleanup_(closep) int fd = -EBADF;
        size_t n;

        if (!ifname)
                return -EINVAL;
        n = strlen(ifname);
        if (n == 0 || n >= IFNAMSIZ || strchr(ifname, '/') || strchr(ifname, ' '))
                return -EINVAL;

        fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return negative_errno();

        memcpy(ifr.ifr_name, ifname, n + 1);
        ifr.ifr_data = (void *) &info;
        if (ioctl(fd, SIOCETHTOOL, &ifr) < 0)
                return negative_errno();

        copy_field(ret->driver, info.driver, sizeof(ret->driver));
        copy_field(ret->version, info.version, sizeof(ret->version));
        copy_field(ret->fw_version, info.fw_version, sizeof(ret->fw_version));
        copy_field(ret->bus_info, info.bus_info, sizeof(ret->bus_info));
        return 0;
}
