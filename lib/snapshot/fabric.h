/* SPDX-License-Identifier: MIT */
/* Finds the fabric NIC of each of a node's links in sysfs: its PCI address and its netdev. */
#pragma once

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>

#include "basic/host.h"
#include "nic/pci-sysfs.h"
#include "profile/node-context.h"
#include "profile/profile.h"
#include "snapshot/link-match.h"

typedef struct FabricPort {
        char *link;   /* the logical link name, "rdma0" */
        char *pci;    /* "0000:c2:00.0", NULL when no PCI device was found */
        char *ifname; /* "enp194s0np0", NULL when the device has no netdev */
        int ifindex;  /* 0 when unknown */
        bool has_address;
        struct in_addr address; /* the node's address on this link (from the profile) */
        char *problem;          /* why pci or ifname is missing, written for the user; NULL when found */
        char *resolve_error;    /* why the link's match named no one netdev (link_match_resolve()'s
                                 * words, which the link checks and the plan report); NULL when it did */
        int resolve_errno;      /* -ENOENT: no netdev matches, -ENOTUNIQ: several, -EINVAL: no match;
                                 * another errno: sysfs could not be read; 0 when ifname is set */
} FabricPort;

typedef struct FabricPorts {
        FabricPort *ports;
        size_t n;
} FabricPorts;

/* One port for each link of the node (or of the profile when no node is selected), in profile
 * order. A link whose NIC cannot be found still gets a port, with problem set. Returns -ENOMEM only.
 * fabric_ports_resolve() and fabric_ports_locate() are its two halves: each link's netdev (all the
 * link checks and the plan need), then the netdev's PCI device and ifindex, or for a link without
 * netdev the PCI device its match describes (what the NIC and RDMA checks need). */
int fabric_ports_find(const NodeContext *c, FabricPorts *ret);
int fabric_ports_resolve(const NodeContext *c, FabricPorts *ret);
/* fabric_ports_resolve() against a netdev list already read (snapshot/link-match.h). */
int fabric_ports_resolve_in(const NodeContext *c, const NetdevList *netdevs, FabricPorts *ret);
int fabric_ports_locate(const NodeContext *c, FabricPort *ports, size_t n);
/* A deep copy of n ports (a snapshot's), for a holder that outlives it. Returns 0 or -ENOMEM. */
int fabric_ports_copy(const FabricPort *ports, size_t n, FabricPorts *ret);
/* Frees the ports and leaves p empty; for _cleanup_. */
void fabric_ports_done(FabricPorts *p);
/* The same for an array of n ports that a structure keeps. */
void fabric_ports_free(FabricPort *ports, size_t n);
