/* SPDX-License-Identifier: MIT */
/* The text of halod's .network file for one link (the networkd backend's whole configuration of it). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "basic/ipv4-prefix.h"
#include "profile/profile.h"

/* How networkd spells IPv4 forwarding on a link: IPForward=ipv4 up to systemd 255 (there it turns on
 * the host's global switch), IPv4Forwarding=yes from 256 on (the link's own switch; IPForward= is
 * deprecated there). */
typedef enum NetworkdForwardingKey {
        NETWORKD_FORWARDING_IPFORWARD,
        NETWORKD_FORWARDING_IPV4FORWARDING,
} NetworkdForwardingKey;

/* The first systemd version with IPv4Forwarding=. */
#define NETWORKD_IPV4FORWARDING_SINCE 256

typedef struct NetworkdFileConfig {
        const char *link;          /* logical name, for the comment */
        const char *ifname;        /* Name= when there is no permanent address */
        const char *permanent_mac; /* PermanentMACAddress=; NULL: none (a veth) */
        uint32_t mtu;              /* 0: no MTUBytes= */
        Ipv4Prefix address;        /* prefixlen 0: no Address= */
        const NodeRoute *routes;   /* the node's routes: those of link are written */
        size_t n_routes;
        bool forwarding;
        NetworkdForwardingKey forwarding_key;
} NetworkdFileConfig;

/* Whether the file matches on the permanent address, from what ethtool_get_permanent_address() returned
 * (permanent_result): 1 PermanentMACAddress=, 0 Name= when the device has none (-ENODATA: a veth), or
 * permanent_result itself when the address could not be read. A device with a permanent address is
 * never keyed on its name by accident: the name is one halod (CAP_NET_ADMIN) can change, and the file
 * is root's. */
int networkd_match_on_permanent(int permanent_result);

/* The file's text, "# Written by halod ..." first. Returns 0, -EINVAL when the config names no
 * interface, or -ENOMEM. */
int networkd_file_text(const NetworkdFileConfig *cfg, char **ret);
