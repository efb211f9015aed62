/* SPDX-License-Identifier: MIT */
/* rtnetlink through libmnl: the state of every link in one call, and the few changes halod makes. */
#pragma once

#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/macro.h"

/* The address protocol (IFA_PROTO, Linux ≥ 6.3) halod stamps on the addresses it adds, so that it can
 * later tell them from addresses somebody else configured. Values 0-3 belong to the kernel. */
#define RTNL_ADDRESS_PROTO_HALOD 0x68U

/* The route protocol (RTA/rtm_protocol, rt_protos(5)) halod stamps on the routes it adds, for the same
 * reason: a stray halod route is told from everybody else's. 0x68 is free in iproute2's rt_protos and
 * equals RTNL_ADDRESS_PROTO_HALOD. */
#define RTNL_ROUTE_PROTO_HALOD 0x68U

#define RTNL_MAC_MAX 32U

/* One IPv4 unicast route of the main table with a gateway or a device (the dump leaves out the other
 * tables, other types and multipath routes, which halod neither adds nor removes). */
typedef struct RtnlRoute {
        struct in_addr dst; /* network byte order; 0.0.0.0 with dst_len 0 is the default route */
        uint8_t dst_len;
        struct in_addr gateway; /* 0.0.0.0: none (a route on the link) */
        int ifindex;            /* RTA_OIF; 0 when the kernel did not say */
        uint32_t metric;        /* RTA_PRIORITY; 0 when absent, as ip(8) shows it */
        uint8_t protocol;       /* RTPROT_*; RTNL_ROUTE_PROTO_HALOD for halod's own */
} RtnlRoute;

typedef struct RtnlAddress {
        int ifindex;
        struct in_addr address; /* IFA_LOCAL (IFA_ADDRESS when absent), network byte order */
        uint8_t prefixlen;
        uint8_t proto; /* IFA_PROTO; 0 when the kernel did not say */
        uint8_t scope;
        uint32_t flags; /* IFA_F_* (IFA_FLAGS when present) */
} RtnlAddress;

typedef struct RtnlLink {
        int ifindex;
        char name[IF_NAMESIZE];
        uint32_t mtu;
        uint32_t min_mtu, max_mtu; /* 0: the kernel did not say */
        uint32_t flags;            /* IFF_* */
        uint8_t operstate;         /* IF_OPER_*; IF_OPER_UNKNOWN when the kernel did not say */
        uint8_t mac[RTNL_MAC_MAX];
        size_t mac_len;
        RtnlAddress *addresses; /* IPv4 only */
        size_t n_addresses;
        /* From IFLA_STATS64 (the start of struct rtnl_link_stats64 every kernel sends), and
         * IFLA_CARRIER_CHANGES and IFLA_CARRIER_DOWN_COUNT (Linux 4.16): what the fabric health
         * checks count, read with the link instead of from sysfs. */
        bool has_stats;
        uint64_t rx_packets, tx_packets, rx_crc_errors, rx_frame_errors, rx_missed_errors;
        bool has_carrier_changes, has_carrier_down_count;
        uint32_t carrier_changes, carrier_down_count;
} RtnlLink;

typedef struct RtnlState {
        RtnlLink *links;
        size_t n_links;
        RtnlRoute *routes; /* the main table's IPv4 unicast routes */
        size_t n_routes;
} RtnlState;

void rtnl_state_done(RtnlState *s);
const RtnlLink *rtnl_state_find_by_name(const RtnlState *s, const char *name) _pure_;
const RtnlLink *rtnl_state_find_by_index(const RtnlState *s, int ifindex) _pure_;
/* The link (other than except_ifindex) that carries the IPv4 address, or NULL. */
const RtnlLink *rtnl_state_find_address_owner(
        const RtnlState *s, const struct in_addr *address, int except_ifindex) _pure_;
const RtnlAddress *
        rtnl_link_find_address(const RtnlLink *l, const struct in_addr *address, uint8_t prefixlen) _pure_;
/* "up", "down", "lowerlayerdown", ... (RFC 2863 operstates, as ip(8) prints them in lower case). */
const char *rtnl_operstate_to_string(uint8_t operstate) _pure_;
/* "6c:fe:54:12:34:56"; buf must hold 3 * RTNL_MAC_MAX bytes. */
const char *rtnl_link_mac_to_string(const RtnlLink *l, char *buf);

/* One rtnetlink socket with extended acks (NETLINK_EXT_ACK) and capped acks (NETLINK_CAP_ACK). The
 * portid and sequence number are kept so that every reply is matched to its request. */
typedef struct Rtnl Rtnl;

int rtnl_open(Rtnl **ret);
Rtnl *rtnl_close(Rtnl *r);
DEFINE_TRIVIAL_CLEANUP_FUNC(Rtnl *, rtnl_close);

/* Every function below returns 0 or negative errno. On failure, when ret_error is not NULL and the
 * kernel explained itself in an extended ack, *ret_error is set to that text ("mtu greater than
 * device maximum"), else to NULL. */

/* Dumps every link (RTM_GETLINK), then every IPv4 address (RTM_GETADDR), attached to its link, then
 * the main table's IPv4 unicast routes (RTM_GETROUTE). A dump interrupted by a concurrent change is
 * retried. */
int rtnl_dump(Rtnl *r, RtnlState *ret, char **ret_error);
/* How many times this process called rtnl_dump(): read by tests and benchmarks that count the
 * kernel's link state being read instead of timing it (halod logs it per re-check at debug level). */
uint64_t rtnl_dump_count(void);
int rtnl_set_mtu(Rtnl *r, int ifindex, uint32_t mtu, char **ret_error);
int rtnl_set_link_up(Rtnl *r, int ifindex, bool up, char **ret_error);
/* Sets the interface's IPv4 forwarding switch (net.ipv4.conf.IF.forwarding) over rtnetlink, not
 * through /proc/sys. Unlike a write of the sysctl, it neither turns LRO off nor announces the change
 * with RTM_NEWNETCONF. */
int rtnl_set_ipv4_forwarding(Rtnl *r, int ifindex, bool on, char **ret_error);
/* Adds the address with its broadcast (for prefixes up to /30) and RTNL_ADDRESS_PROTO_HALOD, or
 * replaces it when it exists (NLM_F_REPLACE). */
int rtnl_add_address(Rtnl *r, int ifindex, const struct in_addr *address, uint8_t prefixlen, char **ret_error);
/* Puts back an address as a dump showed it (with its own IFA_PROTO): for rollbacks. */
int rtnl_restore_address(Rtnl *r, const RtnlAddress *a, char **ret_error);
int rtnl_delete_address(Rtnl *r, int ifindex, const struct in_addr *address, uint8_t prefixlen, char **ret_error);

/* Adds the route with RTNL_ROUTE_PROTO_HALOD to the main table, or replaces the one with the same
 * destination and metric (NLM_F_CREATE | NLM_F_REPLACE). */
int rtnl_replace_route(Rtnl *r, const RtnlRoute *route, char **ret_error);
/* Deletes the main table's route with route's destination, metric, gateway and protocol. */
int rtnl_delete_route(Rtnl *r, const RtnlRoute *route, char **ret_error);
/* "10.0.3.0/24 via 10.0.2.3", with " metric N" when metric is not 0; buf holds RTNL_ROUTE_STRING_MAX. */
#define RTNL_ROUTE_STRING_MAX 64U
const char *rtnl_route_to_string(const RtnlRoute *route, char *buf);
/* Parses a buffer of rtnetlink messages (a route dump's reply) and appends the main table's IPv4
 * unicast routes to *routes; other messages are skipped. Returns 0, -EBADMSG on a malformed message,
 * -ENOMEM. Public for the fuzzer and the tests. */
int rtnl_parse_routes(const void *buf, size_t size, RtnlRoute **routes, size_t *n_routes);

/* Watching the kernel: a socket subscribed to RTNLGRP_LINK, RTNLGRP_IPV4_IFADDR and RTNLGRP_IPV4_ROUTE. */
typedef enum RtnlEventType {
        RTNL_EVENT_NEW_LINK, /* added or changed (flags, MTU, operstate, name) */
        RTNL_EVENT_DEL_LINK,
        RTNL_EVENT_NEW_ADDRESS,
        RTNL_EVENT_DEL_ADDRESS,
        RTNL_EVENT_NEW_ROUTE, /* main-table IPv4 unicast routes only (as the dump keeps them) */
        RTNL_EVENT_DEL_ROUTE,
        _RTNL_EVENT_TYPE_MAX,
        _RTNL_EVENT_TYPE_INVALID = -EINVAL,
} RtnlEventType;

const char *rtnl_event_type_to_string(RtnlEventType t) _pure_;

typedef struct RtnlEvent {
        RtnlEventType type;
        const RtnlLink *link;       /* link events; its addresses are not filled in */
        const RtnlAddress *address; /* address events */
        const RtnlRoute *route;     /* route events */
} RtnlEvent;

/* Returns 0 to go on, negative errno to stop (returned by the caller of the callback). */
typedef int (*RtnlEventFunc)(const RtnlEvent *e, void *userdata);

typedef struct RtnlMonitor RtnlMonitor;

int rtnl_monitor_open(RtnlMonitor **ret);
RtnlMonitor *rtnl_monitor_free(RtnlMonitor *m);
DEFINE_TRIVIAL_CLEANUP_FUNC(RtnlMonitor *, rtnl_monitor_free);
/* Non-blocking, O_CLOEXEC; poll it for EPOLLIN (e.g. with sd_event_add_io()). */
int rtnl_monitor_fd(const RtnlMonitor *m) _pure_;
/* Reads pending messages, at most max_reads datagrams (each up to 32 KiB of messages; 0: no bound),
 * and calls cb once per link, IPv4 address or route event. Returns 0 when the socket is drained, 1 when
 * max_reads were read (more may wait: an event loop calls again when the fd is still readable, and
 * serves its other sources in between), -ENOBUFS when the kernel dropped events (the receive queue
 * overran: the caller must re-read the whole state with rtnl_dump()), or the callback's negative
 * return. */
int rtnl_monitor_process(RtnlMonitor *m, unsigned max_reads, RtnlEventFunc cb, void *userdata);

/* Parses a buffer of rtnetlink messages (as read from a monitor socket) and calls cb per event;
 * messages of other types are ignored. Returns 0, -EBADMSG on a malformed message, or the callback's
 * negative return. Public for the fuzzer. */
int rtnl_parse_events(const void *buf, size_t size, RtnlEventFunc cb, void *userdata);
