/* SPDX-License-Identifier: MIT */
/* ETHTOOL_GDRVINFO, ETHTOOL_GLINKSETTINGS, ETHTOOL_GPERMADDR, the private flags and ETHTOOL_GSTATS through
 * the SIOCETHTOOL ioctl. */
#include <limits.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "basic/macro.h"
#include "basic/untrusted-string.h"
#include "nic/ethtool.h"

/* The kernel NUL-terminates these fields, but a copy that cannot overrun costs nothing. */
static void copy_field(char *dst, const char *src, size_t size) {
        size_t n = strnlen(src, size - 1);

        memcpy(dst, src, n);
        dst[n] = '\0';
}

/* A datagram socket to ask through, once the name is one the kernel could know. */
static int ethtool_socket(const char *ifname, struct ifreq *ifr) {
        size_t n;
        int fd;

        if (!ifname)
                return -EINVAL;
        n = strlen(ifname);
        if (n == 0 || n >= IFNAMSIZ || strchr(ifname, '/') || strchr(ifname, ' '))
                return -EINVAL;

        fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return negative_errno();
        memcpy(ifr->ifr_name, ifname, n + 1);
        return fd;
}

int ethtool_get_driver_info(const char *ifname, EthtoolDriverInfo *ret) {
        struct ethtool_drvinfo info = { .cmd = ETHTOOL_GDRVINFO };
        struct ifreq ifr = {};
        _cleanup_(closep) int fd = -EBADF;

        fd = ethtool_socket(ifname, &ifr);
        if (fd < 0)
                return fd;
        ifr.ifr_data = (void *) &info;
        if (ioctl(fd, SIOCETHTOOL, &ifr) < 0)
                return negative_errno();

        copy_field(ret->driver, info.driver, sizeof(ret->driver));
        copy_field(ret->version, info.version, sizeof(ret->version));
        copy_field(ret->fw_version, info.fw_version, sizeof(ret->fw_version));
        copy_field(ret->bus_info, info.bus_info, sizeof(ret->bus_info));
        /* The driver copies these from the device's firmware: escaped before anything shows them. */
        untrusted_escape_in_place(ret->driver, sizeof(ret->driver));
        untrusted_escape_in_place(ret->version, sizeof(ret->version));
        untrusted_escape_in_place(ret->fw_version, sizeof(ret->fw_version));
        untrusted_escape_in_place(ret->bus_info, sizeof(ret->bus_info));
        return 0;
}

int ethtool_get_link_settings(const char *ifname, EthtoolLinkSettings *ret) {
        /* The settings are followed by three link mode bitmaps (supported, advertising, lp_advertising)
         * of link_mode_masks_nwords words each; their size is the kernel's, so it is asked first: a
         * request with 0 words is answered with -nwords (linux/ethtool.h, "handshake"). The buffer is
         * large enough for any kernel's masks (SCHAR_MAX words, the field being s8). */
        typedef struct LinkSettingsRequest {
                struct ethtool_link_settings s;
                uint32_t masks[3 * SCHAR_MAX];
        } LinkSettingsRequest;
        LinkSettingsRequest req = {};
        struct ifreq ifr = {};
        _cleanup_(closep) int fd = -EBADF;
        int nwords;

        fd = ethtool_socket(ifname, &ifr);
        if (fd < 0)
                return fd;
        ifr.ifr_data = (void *) &req;

        req.s.cmd = ETHTOOL_GLINKSETTINGS;
        if (ioctl(fd, SIOCETHTOOL, &ifr) < 0)
                return negative_errno();
        nwords = -req.s.link_mode_masks_nwords;
        if (req.s.cmd != ETHTOOL_GLINKSETTINGS || nwords <= 0 || nwords > SCHAR_MAX)
                return -EPROTO;

        req = (LinkSettingsRequest){};
        req.s.cmd = ETHTOOL_GLINKSETTINGS;
        req.s.link_mode_masks_nwords = (int8_t) nwords;
        if (ioctl(fd, SIOCETHTOOL, &ifr) < 0)
                return negative_errno();
        if (req.s.cmd != ETHTOOL_GLINKSETTINGS || req.s.link_mode_masks_nwords != nwords)
                return -EPROTO;

        *ret = (EthtoolLinkSettings){
                .speed_mbit = req.s.speed == (uint32_t) SPEED_UNKNOWN ? 0 : req.s.speed,
                .duplex = req.s.duplex == DUPLEX_FULL || req.s.duplex == DUPLEX_HALF ? req.s.duplex
                                                                                     : DUPLEX_UNKNOWN,
                .autoneg = req.s.autoneg == AUTONEG_ENABLE,
        };
        return 0;
}

/* How many strings the driver has in the string set: 0 for a set it does not have (left out of the
 * answer's mask, not refused). */
static int string_set_count(int fd, struct ifreq *ifr, enum ethtool_stringset set, uint32_t *ret) {
        struct {
                struct ethtool_sset_info info;
                uint32_t count;
        } sset = { .info = { .cmd = ETHTOOL_GSSET_INFO, .sset_mask = 1ULL << set } };

        ifr->ifr_data = (void *) &sset;
        if (ioctl(fd, SIOCETHTOOL, ifr) < 0)
                return negative_errno();
        *ret = sset.info.sset_mask & (1ULL << set) ? sset.count : 0;
        return 0;
}

/* The set's count names (ETH_GSTRING_LEN bytes each), in a buffer with room for room of them: the
 * kernel writes as many as the driver has at the time of this question, whatever count said. */
static int string_set_names(
        int fd,
        struct ifreq *ifr,
        enum ethtool_stringset set,
        uint32_t count,
        uint32_t room,
        struct ethtool_gstrings **ret) {
        _cleanup_(freep) struct ethtool_gstrings *strings = NULL;

        strings = calloc(1, sizeof(*strings) + (size_t) room * ETH_GSTRING_LEN);
        if (!strings)
                return -ENOMEM;
        *strings = (struct ethtool_gstrings){ .cmd = ETHTOOL_GSTRINGS, .string_set = set, .len = count };
        ifr->ifr_data = (void *) strings;
        if (ioctl(fd, SIOCETHTOOL, ifr) < 0)
                return negative_errno();
        *ret = TAKE_PTR(strings);
        return 0;
}

/* The private flags are one u32 bitmap: a driver has at most 32 of them. */
#define PRIVATE_FLAGS_MAX 32U

/* The bit of the driver's private flag name, from its ETH_SS_PRIV_FLAGS names. */
static int private_flag_bit(int fd, struct ifreq *ifr, const char *name, unsigned *ret) {
        _cleanup_(freep) struct ethtool_gstrings *strings = NULL;
        uint32_t count;
        int r;

        r = string_set_count(fd, ifr, ETH_SS_PRIV_FLAGS, &count);
        if (r < 0)
                return r;
        if (count == 0)
                return -ENOENT;
        if (count > PRIVATE_FLAGS_MAX)
                return -EPROTO;
        r = string_set_names(fd, ifr, ETH_SS_PRIV_FLAGS, count, PRIVATE_FLAGS_MAX, &strings);
        if (r < 0)
                return r;
        for (uint32_t i = 0; i < count && i < strings->len; i++)
                if (strncmp((const char *) strings->data + (size_t) i * ETH_GSTRING_LEN,
                            name,
                            ETH_GSTRING_LEN) == 0) {
                        *ret = i;
                        return 0;
                }
        return -ENOENT;
}

/* Opens ifname's ethtool socket and reads its private flags and the bit of name in them. */
static int private_flags_read(
        const char *ifname,
        const char *name,
        struct ifreq *ifr,
        int *ret_fd,
        unsigned *ret_bit,
        uint32_t *ret_flags) {
        struct ethtool_value flags = { .cmd = ETHTOOL_GPFLAGS };
        _cleanup_(closep) int fd = -EBADF;
        int r;

        if (!name)
                return -EINVAL;
        fd = ethtool_socket(ifname, ifr);
        if (fd < 0)
                return fd;
        r = private_flag_bit(fd, ifr, name, ret_bit);
        if (r < 0)
                return r;
        ifr->ifr_data = (void *) &flags;
        if (ioctl(fd, SIOCETHTOOL, ifr) < 0)
                return negative_errno();
        *ret_flags = flags.data;
        *ret_fd = TAKE_FD(fd);
        return 0;
}

int ethtool_get_private_flag(const char *ifname, const char *name, bool *ret) {
        _cleanup_(closep) int fd = -EBADF;
        struct ifreq ifr = {};
        uint32_t flags;
        unsigned bit;
        int r;

        r = private_flags_read(ifname, name, &ifr, &fd, &bit, &flags);
        if (r < 0)
                return r;
        *ret = flags & (1U << bit);
        return 0;
}

int ethtool_set_private_flag(const char *ifname, const char *name, bool value) {
        _cleanup_(closep) int fd = -EBADF;
        struct ethtool_value set = { .cmd = ETHTOOL_SPFLAGS };
        struct ifreq ifr = {};
        uint32_t flags;
        unsigned bit;
        int r;

        r = private_flags_read(ifname, name, &ifr, &fd, &bit, &flags);
        if (r < 0)
                return r;
        set.data = value ? flags | (1U << bit) : flags & ~(1U << bit);
        if (set.data == flags)
                return 0;
        /* ETHTOOL_SPFLAGS takes the whole bitmap (net/ethtool/ioctl.c, ethtool_set_value()): the other
         * flags as they were. */
        ifr.ifr_data = (void *) &set;
        if (ioctl(fd, SIOCETHTOOL, &ifr) < 0)
                return negative_errno();
        return 1;
}

const char *ethtool_duplex_to_string(int duplex) {
        switch (duplex) {
        case DUPLEX_FULL:
                return "full";
        case DUPLEX_HALF:
                return "half";
        default:
                return "unknown";
        }
}

/* More statistics than any driver has (mlx5 with many channels has a few thousand): a bound on what
 * a driver's answer may make us allocate. */
#define STATS_MAX (1U << 16)
/* Room beyond the count asked for: the kernel writes as many as the driver has at the time of the
 * second question, whatever the request said, so a driver that grew in between must not overrun. */
#define STATS_SLACK 1024U

void ethtool_stats_done(EthtoolStats *s) {
        if (!s)
                return;
        s->names = mfree(s->names);
        s->values = mfree(s->values);
        s->n = 0;
}

int ethtool_get_stats(const char *ifname, EthtoolStats *ret) {
        _cleanup_(freep) struct ethtool_gstrings *strings = NULL;
        _cleanup_(freep) struct ethtool_stats *stats = NULL;
        _cleanup_(ethtool_stats_done) EthtoolStats s = {};
        struct ifreq ifr = {};
        _cleanup_(closep) int fd = -EBADF;
        uint32_t count;
        int r;

        fd = ethtool_socket(ifname, &ifr);
        if (fd < 0)
                return fd;

        r = string_set_count(fd, &ifr, ETH_SS_STATS, &count);
        if (r < 0)
                return r;
        if (count == 0) {
                *ret = (EthtoolStats){};
                return 0;
        }
        if (count > STATS_MAX)
                return -E2BIG;

        stats = calloc(1, sizeof(*stats) + (size_t) (count + STATS_SLACK) * sizeof(uint64_t));
        s.names = calloc(count, ETH_GSTRING_LEN);
        s.values = calloc(count, sizeof(uint64_t));
        if (!stats || !s.names || !s.values)
                return -ENOMEM;

        r = string_set_names(fd, &ifr, ETH_SS_STATS, count, count + STATS_SLACK, &strings);
        if (r < 0)
                return r;
        *stats = (struct ethtool_stats){ .cmd = ETHTOOL_GSTATS, .n_stats = count };
        ifr.ifr_data = (void *) stats;
        if (ioctl(fd, SIOCETHTOOL, &ifr) < 0)
                return negative_errno();
        if (strings->len != count || stats->n_stats != count)
                return -EAGAIN;

        for (uint32_t i = 0; i < count; i++) {
                copy_field(
                        s.names[i],
                        (const char *) strings->data + (size_t) i * ETH_GSTRING_LEN,
                        ETH_GSTRING_LEN);
                s.values[i] = stats->data[i];
        }
        s.n = count;
        *ret = s;
        s = (EthtoolStats){};
        return 0;
}

int ethtool_stats_find(const EthtoolStats *s, const char *name, uint64_t *ret) {
        for (size_t i = 0; i < s->n; i++)
                if (strneq(s->names[i], name, ETH_GSTRING_LEN)) {
                        *ret = s->values[i];
                        return 0;
                }
        return -ENOENT;
}

int ethtool_get_permanent_address(const char *ifname, char ret[static 18]) {
        struct {
                struct ethtool_perm_addr a;
                uint8_t data[32]; /* MAX_ADDR_LEN */
        } req = { .a = { .cmd = ETHTOOL_GPERMADDR, .size = 32 } };
        struct ifreq ifr = {};
        _cleanup_(closep) int fd = -EBADF;
        bool zero = true;

        fd = ethtool_socket(ifname, &ifr);
        if (fd < 0)
                return fd;
        ifr.ifr_data = (void *) &req;
        if (ioctl(fd, SIOCETHTOOL, &ifr) < 0)
                return negative_errno();
        if (req.a.size != 6)
                return -ENODATA; /* not Ethernet */
        for (size_t i = 0; i < 6; i++)
                zero = zero && req.data[i] == 0;
        if (zero)
                return -ENODATA;
        (void) snprintf(
                ret,
                18,
                "%02x:%02x:%02x:%02x:%02x:%02x",
                req.data[0],
                req.data[1],
                req.data[2],
                req.data[3],
                req.data[4],
                req.data[5]);
        return 0;
}
