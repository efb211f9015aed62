/* SPDX-License-Identifier: MIT */
/* The node profile: the YAML contract of man/halod.yaml.5, parsed and validated into plain structs. */
#pragma once

#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "basic/ipv4-prefix.h"
#include "basic/json-writer.h"
#include "basic/macro.h"
#include "basic/pci-id.h"
#include "basic/qos-values.h"

/* Caps that keep any input, however hostile, bounded (each is reported in the error). */
#define PROFILE_SIZE_MAX (1024U * 1024U)
#define PROFILE_DEPTH_MAX 16U
#define PROFILE_SCALAR_MAX 4096U
#define PROFILE_ERRORS_MAX 100U
#define PROFILE_DEFAULT_PATH "/etc/halod/halod.yaml"
#define PROFILE_DEFAULT_PEER_PORT 7739
/* The MTUs a link may ask for: from IPv4's minimum (RFC 791) to the largest jumbo frame that data
 * center switches commonly pass. Plain numbers, for the messages. */
#define PROFILE_LINK_MTU_MIN 68
#define PROFILE_LINK_MTU_MAX 9216

typedef enum ProfileMode {
        PROFILE_MODE_ENFORCE,
        PROFILE_MODE_VERIFY,
        _PROFILE_MODE_MAX,
        _PROFILE_MODE_INVALID = -EINVAL,
} ProfileMode;

const char *profile_mode_to_string(ProfileMode m) _pure_;
ProfileMode profile_mode_from_string(const char *s) _pure_;

typedef enum RdmaGidType {
        RDMA_GID_ROCE_V2,
        RDMA_GID_ROCE_V1,
        RDMA_GID_IB,
        _RDMA_GID_TYPE_MAX,
        _RDMA_GID_TYPE_INVALID = -EINVAL,
} RdmaGidType;

const char *rdma_gid_type_to_string(RdmaGidType t) _pure_;
RdmaGidType rdma_gid_type_from_string(const char *s) _pure_;

/* How a logical link finds its netdev. Every set field must match; NULL fields are ignored. */
typedef struct LinkMatch {
        char *driver; /* kernel driver, "ice" */
        char *pci;    /* PCI address, "0000:c2:00.0" (normalized to lower case, with domain) */
        char *mac;    /* "6c:fe:54:12:34:56" (normalized to lower case) */
        char *name;   /* interface name or fnmatch(3) glob, "enp194s0*" */
} LinkMatch;

/* What a lossless RoCE class needs on a link, as the profile's qos: mapping asks for it (halod.yaml(5),
 * QOS). Every part is optional: what the profile leaves out is neither checked nor applied. */
typedef enum QosTrust {
        QOS_TRUST_PCP,  /* the VLAN priority (802.1p) classifies */
        QOS_TRUST_DSCP, /* the IP header's DSCP classifies: what a routed RoCE v2 fabric uses */
        _QOS_TRUST_MAX,
        _QOS_TRUST_INVALID = -EINVAL,
} QosTrust;

const char *qos_trust_to_string(QosTrust t) _pure_;
QosTrust qos_trust_from_string(const char *s) _pure_;

typedef struct ProfileQos {
        bool present;                          /* the link has a qos: mapping */
        bool has_pfc;                          /* pfc: given; [] asks for PFC off on every priority */
        uint8_t pfc;                           /* bit p set: PFC on priority p */
        QosTrust trust;                        /* _QOS_TRUST_INVALID when not given */
        bool has_dscp_map;                     /* dscp-priority: given */
        int8_t dscp_priority[QOS_DSCP_VALUES]; /* the priority each DSCP maps to; -1: not mapped */
        int ecn;                               /* 1: on, 0: off, -1: not given */
        int roce_tos;                          /* the default RoCE ToS (0..255) for rdma_cm; -1: not given */
} ProfileQos;

/* Nothing asked: no mapping, no trust, every DSCP unmapped, ECN and the ToS not given. */
static inline void profile_qos_init(ProfileQos *q) {
        *q = (ProfileQos){ .trust = _QOS_TRUST_INVALID, .ecn = -1, .roce_tos = -1 };
        memset(q->dscp_priority, -1, sizeof(q->dscp_priority));
}

/* The priority that RoCE traffic sent with roce-tos travels on, as the profile sets it: the DSCP map's
 * entry for the ToS's DSCP under trust dscp; under trust pcp the one priority with PFC on (the VLAN
 * priority is then the workload's service level). -ENOENT: no roce-tos; -ENODATA: the profile does
 * not say (no trust, no entry, or PFC on none or several priorities under trust pcp). */
int profile_qos_roce_priority(const ProfileQos *q) _pure_;
/* The priority a message suggests for the RoCE class among those with PFC on (a bit mask): the lowest
 * past 0, which carries everything unclassified; 0 when there is none. */
unsigned qos_suggested_roce_priority(uint8_t pfc_mask) _pure_;
/* True when q asks something of DCB: PFC, a trust, a DSCP map. */
bool qos_wants_dcb(const ProfileQos *q) _pure_;
/* The priorities whose ECN a profile's qos: asks for: those with PFC when pfc: is given, else all. */
uint8_t roce_ecn_wanted_priorities(const ProfileQos *q) _pure_;

typedef struct ProfileLink {
        char *name; /* logical name, "rdma0" */
        LinkMatch match;
        uint32_t mtu;        /* 0: leave the MTU alone */
        char *firewall_zone; /* NULL: leave the zone alone */
        bool ipv6;           /* false: IPv6 disabled on the link */
        ProfileQos qos;
} ProfileLink;

typedef struct NodeLink {
        char *link; /* a ProfileLink name */
        Ipv4Prefix address;
        LinkMatch match; /* per-node override of the link's match; all NULL when absent */
} NodeLink;

/* nic.speed-min's range in Gbit/s, up to 1.6 Tbit/s, the fastest Ethernet IEEE 802.3 defines. */
#define PROFILE_NIC_SPEED_MIN_GBIT_MAX 1600U

typedef struct ProfileNic {
        bool present; /* the section was given (top level: the profile's; a node's: its own) */
        PciId *pci_ids;
        size_t n_pci_ids;
        char *driver;
        char *firmware_min;      /* version string, compared as a version */
        unsigned pcie_min_width; /* 0: not checked */
        uint32_t speed_min_mbit; /* the slowest acceptable negotiated speed; 0: not checked */
        /* Runtime settings halod applies at each start in enforce mode (they are the driver's, and a
         * reboot or a driver reload resets them): */
        bool has_fw_lldp_agent; /* fw-lldp-agent: given */
        int fw_lldp_agent;      /* the E810's "fw-lldp-agent" private flag: 0 off, 1 on */
        bool enable_roce; /* devlink's enable_roce turned on (enable_iwarp off first) where it is off */
} ProfileNic;

/* A static route of a node (routes:): to reaches the subnet through the gateway via on one of the
 * node's links. */
typedef struct NodeRoute {
        Ipv4Prefix to;      /* the destination subnet, host bits zero; prefix length 0..32 */
        struct in_addr via; /* the gateway, inside the subnet of link's address */
        char *link;         /* the node link the route leaves by: link: when given, else the one whose
                             * subnet holds via */
        uint32_t metric;    /* the route's priority; used when has_metric */
        bool has_metric;
} NodeRoute;

/* The most routes: a node may have (a chain or a ring of nodes needs one per peer subnet). */
#define PROFILE_ROUTES_MAX 256U

typedef struct ProfileNode {
        char *name;
        char *hostname; /* NULL when the profile gives none */
        NodeLink *links;
        size_t n_links;
        NodeRoute *routes; /* sorted by destination (prefix, then length): the order is not meaningful */
        size_t n_routes;
        bool forwarding; /* the node forwards IPv4 between its fabric links (a chain's middle node) */
        ProfileNic nic;  /* the node's own nic:, which replaces the profile's; present false when none */
} ProfileNode;

/* Whether halod only judges a part of the node's RDMA setup or also writes it (rdma.limits, rdma.modules):
 * manage writes marked files through halod-helper.service, and `haloctl apply --undo PART` removes them. */
typedef enum RdmaSetupPolicy {
        RDMA_SETUP_CHECK,  /* the check judges, the user fixes */
        RDMA_SETUP_MANAGE, /* and haloctl apply (halod-helper.service) writes what the check needs */
        _RDMA_SETUP_POLICY_MAX,
        _RDMA_SETUP_POLICY_INVALID = -EINVAL,
} RdmaSetupPolicy;

const char *rdma_setup_policy_to_string(RdmaSetupPolicy p) _pure_;
RdmaSetupPolicy rdma_setup_policy_from_string(const char *s) _pure_;

typedef struct ProfileRdma {
        bool present;
        bool required; /* false: RDMA problems are warnings */
        RdmaGidType gid;
        uint32_t min_active_mtu; /* 0: not checked; else an RDMA MTU (basic/rdma-mtu.h) */
        uint64_t memlock;        /* bytes; UINT64_MAX means "unlimited"; 0: not checked */
        RdmaSetupPolicy limits;  /* manage: the memlock drop-ins (systemd, limits.d, containers.conf) */
        RdmaSetupPolicy modules; /* manage: modules-load.d for the NIC's RDMA driver and rdma_ucm */
} ProfileRdma;

/* What the node's GPU must be (the gpu: section). */
typedef struct ProfileGpu {
        bool present;      /* the section was given */
        uint64_t vram_max; /* bytes: the most the firmware may carve out for the iGPU; 0: not checked */
} ProfileGpu;

/* What halod does about the other nodes' names in /etc/hosts (health.hosts). */
typedef enum HostsPolicy {
        HOSTS_POLICY_CHECK,  /* hosts.<node> only judges how the names resolve */
        HOSTS_POLICY_MANAGE, /* and enforce mode keeps a marked block of them in /etc/hosts */
        _HOSTS_POLICY_MAX,
        _HOSTS_POLICY_INVALID = -EINVAL,
} HostsPolicy;

const char *hosts_policy_to_string(HostsPolicy p) _pure_;
HostsPolicy hosts_policy_from_string(const char *s) _pure_;

/* What halod does about the next boot's kernel command line (kernel.boot). */
typedef enum BootPolicy {
        BOOT_POLICY_CHECK, /* kernel.cmdline and kernel.cmdline-next only judge it */
        BOOT_POLICY_MANAGE, /* and halod-helper writes kernel.cmdline's parameters with the boot loader's tool */
        _BOOT_POLICY_MAX,
        _BOOT_POLICY_INVALID = -EINVAL,
} BootPolicy;

const char *boot_policy_to_string(BootPolicy p) _pure_;
BootPolicy boot_policy_from_string(const char *s) _pure_;

typedef struct ProfileHealth {
        uint64_t interval_usec;
        bool peers;
        uint16_t port;             /* the peer channel's UDP port */
        char *prometheus_textfile; /* absolute path of node_exporter's textfile; NULL: none */
        HostsPolicy hosts;
        /* fabric.transport: TCP to a peer at or above this average (bit/s) while RDMA moves less than a
         * tenth as much is a fallback to sockets (basic/transport-verdict.h). */
        uint64_t tcp_bulk_bps;
} ProfileHealth;

typedef struct Profile {
        char *path;
        char *cluster;
        ProfileMode mode;
        ProfileLink *links;
        size_t n_links;
        ProfileNic nic;
        ProfileRdma rdma;
        char **kernel_cmdline; /* required parameters, "name" or "name=value"; NULL when none */
        BootPolicy kernel_boot;
        ProfileGpu gpu;
        uint64_t memory_min; /* bytes: the least MemTotal every node must have; 0: not checked */
        ProfileNode *nodes;
        size_t n_nodes;
        ProfileHealth health;
} Profile;

Profile *profile_free(Profile *p);
DEFINE_TRIVIAL_CLEANUP_FUNC(Profile *, profile_free);

/* Parses and validates. On success returns 0 and the profile. On a profile that does not validate
 * returns -EINVAL and, in ret_errors, every error found as one line
 * "FILE:LINE:COL: key: what is wrong (expected …)". Other negative errno: the file could not be read
 * (ret_errors then holds one line saying so). ret_errors may be NULL. */
int profile_load_file(const char *path, Profile **ret, char ***ret_errors);
/* For the programs that act on this machine: profile_open_trusted() (profile/profile-trust.h), then
 * profile_load_fd() on that descriptor. A profile that may not be trusted returns -EPERM or -ELOOP,
 * one that cannot be read its errno, each with one line in ret_errors saying what and where. */
int profile_load_trusted(const char *path, Profile **ret, char ***ret_errors);
int profile_load_string(
        const char *display_path, const char *data, size_t size, Profile **ret, char ***ret_errors);

/* The mode rule, in one place: whether halod may change this host under the profile — on its own (at
 * start, reload and on drift) or when asked (Apply, `haloctl apply`). mode: enforce allows it; mode:
 * verify only with force, the user's explicit one-off `haloctl apply --force`. */
bool profile_may_change_host(const Profile *p, bool force) _pure_;

const ProfileLink *profile_find_link(const Profile *p, const char *name) _pure_;
const ProfileNode *profile_find_node(const Profile *p, const char *name) _pure_;
/* Whether one of the node's links has the address a. */
bool profile_node_has_address(const ProfileNode *n, struct in_addr a) _pure_;
/* The node of p that holds the address a on one of its links; NULL when none does. */
const ProfileNode *profile_find_node_by_address(const Profile *p, struct in_addr a) _pure_;
/* The match that applies to a node's link: its own override if any, else the profile link's. */
const LinkMatch *profile_node_link_match(const Profile *p, const NodeLink *nl) _pure_;
bool link_match_is_empty(const LinkMatch *m) _pure_;
/* The NIC a node must have: its own nic: when it has one (a whole replacement of the profile's, not
 * a merge), else the profile's; the profile's when node is NULL. Check present to see whether any
 * nic: applies. */
const ProfileNic *profile_node_nic(const Profile *p, const ProfileNode *node) _pure_;
/* True when some link of the node asks for a firewall zone: only then is firewalld worth asking. */
bool node_wants_zones(const Profile *p, const ProfileNode *node) _pure_;

/* Picks this machine's node: by node_name if given, else by hostname, else the node one of whose
 * addresses is in local_addresses. Returns 0, or -ENOENT / -ENOTUNIQ with a message for the user
 * in ret_error that lists the candidates. */
int profile_select_node(
        const Profile *p,
        const char *node_name,
        const char *hostname,
        const struct in_addr *local_addresses,
        size_t n_local_addresses,
        const ProfileNode **ret,
        char **ret_error);

/* Collects the IPv4 addresses configured on this machine's interfaces (getifaddrs). */
int local_ipv4_addresses(struct in_addr **ret, size_t *ret_n);

/* Writes the normalized profile (every default filled in). */
void profile_dump_json(const Profile *p, JsonWriter *w);
/* Writes one nic: section, as profile_dump_json() does for the profile's and each node's. */
void profile_nic_dump_json(const ProfileNic *nic, JsonWriter *w);
