/* SPDX-License-Identifier: MIT */
/* Which netdev a systemd .network file's [Match] section takes, and the name of halod's own file: what
 * link.<name>.owner needs to name the other files that configure a fabric interface. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "basic/macro.h"

/* What a netdev shows to a [Match] section; NULL fields are unknown (a key that asks for them is taken
 * as matching: the check would rather name a file too many than miss one). */
typedef struct NetdevIdentity {
        const char *ifname;
        const char *mac;           /* "6c:fe:54:00:00:01", lower case */
        const char *permanent_mac; /* NULL: the device has none (a veth) or it was not read */
        const char *driver;        /* "ice"; NULL for a device without driver (a veth) */
        const char *type;          /* networkd's Type=: "ether" for an Ethernet port */
} NetdevIdentity;

/* halod's own files are NETWORKD_FILE_PREFIX<link>.network in /etc/systemd/network: "05-" sorts before
 * netplan's "10-netplan-" and the "50-"/"80-" of distributions, and networkd takes the first file in
 * the lexical order of the names (across its directories) that matches a link. */
#define NETWORKD_FILE_PREFIX "05-halod-"
#define NETWORKD_FILE_DIR "/etc/systemd/network"

/* "05-halod-rdma0.network"; NULL on ENOMEM. */
char *networkd_file_name(const char *link);
/* Whether name is one of halod's file names. */
bool networkd_file_name_is_halod(const char *name) _pure_;

/* Sets *ret to whether the [Match] section(s) of the .network file text take id, by networkd's rules:
 * every key given must match; a list matches when one of its entries does ("!" before the list
 * inverts it); an empty assignment clears the key; a file without any match key takes no link
 * (networkd ignores it). Name=, MACAddress=, PermanentMACAddress=, Driver= and Type= are judged; keys halod
 * cannot judge (Path=, Property=, Host=, ...) are taken as matching. Returns 0, or -ENOMEM. */
int networkd_file_matches(const char *text, const NetdevIdentity *id, bool *ret);
