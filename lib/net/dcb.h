/* SPDX-License-Identifier: MIT */
/* DCB netlink (RTM_GETDCB/RTM_SETDCB, linux/dcbnl.h): a netdev's IEEE 802.1Qaz state (PFC, the APP
 * table, the APP trust order) and the changes halod makes to it, on the rtnetlink socket of
 * net/rtnl.h. */
#pragma once

#include <linux/dcbnl.h>
#include <linux/netlink.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "net/rtnl.h"

/* Newer than Debian 12's linux/dcbnl.h (kernel 6.1): the APP trust table and the rewrite table came
 * with kernel 6.3 and 6.4, numbered after DCB_ATTR_DCB_BUFFER in enum ieee_attrs; DCB_ATTR_DCB_APP
 * follows DCB_ATTR_IEEE_APP in enum ieee_attrs_app, and DCB_APP_SEL_PCP is the non-standard selector
 * of the PCP (include/uapi/linux/dcbnl.h of kernel 6.4). */
#define DCBNL_ATTR_APP_TRUST_TABLE (DCB_ATTR_DCB_BUFFER + 1)
#define DCBNL_ATTR_REWR_TABLE (DCB_ATTR_DCB_BUFFER + 2)
#define DCBNL_ATTR_IEEE_MAX DCBNL_ATTR_REWR_TABLE
#define DCBNL_ATTR_DCB_APP (DCB_ATTR_IEEE_APP + 1)
#define DCBNL_APP_SEL_PCP 255U

/* The most APP entries and trust selectors halod keeps of one netdev: a DSCP map is 64 entries, the
 * other selectors (ports, ethertypes) a few more; a reply with more is refused (-E2BIG). */
#define DCB_APPS_MAX 512U
#define DCB_TRUST_MAX 8U

typedef struct DcbState {
        bool has_pfc; /* the driver reported PFC (DCB_ATTR_IEEE_PFC) */
        struct ieee_pfc pfc;
        struct dcb_app apps[DCB_APPS_MAX]; /* the APP table (DCB_ATTR_IEEE_APP_TABLE), in the kernel's order */
        size_t n_apps;
        bool has_trust; /* the driver has an APP trust table (dcbnl_getapptrust, kernel ≥ 6.3) */
        uint8_t trust[DCB_TRUST_MAX]; /* selectors, most trusted first: IEEE_8021QAZ_APP_SEL_DSCP, DCBNL_APP_SEL_PCP */
        size_t n_trust;
} DcbState;

/* The errno contract of every request below: 0 on success; -EOPNOTSUPP when the netdev's driver has no
 * DCB support (no dcbnl_ops: veth, lo, most virtual devices) or lacks the operation (a trust order
 * for a driver without dcbnl_setapptrust); -ENODEV when there is no such netdev; -EPERM for a change
 * without CAP_NET_ADMIN; -EBADMSG for a reply that is malformed; any other negative errno is the
 * driver's refusal (ice answers -EINVAL while its firmware LLDP agent owns DCB). ret_error: the
 * kernel's extended-ack text when it gave one, else NULL (see net/rtnl.h). */

/* DCB_CMD_IEEE_GET. */
int dcb_get(Rtnl *r, const char *ifname, DcbState *ret, char **ret_error);
/* DCB_CMD_IEEE_SET of DCB_ATTR_IEEE_PFC: pfc is the whole structure, as dcb_get() read it, with
 * pfc_en changed (the driver takes every field). */
int dcb_set_pfc(Rtnl *r, const char *ifname, const struct ieee_pfc *pfc, char **ret_error);
/* DCB_CMD_IEEE_SET / DCB_CMD_IEEE_DEL of APP entries: the kernel adds an entry unless the same one
 * exists (-EEXIST) and deletes only an existing one (-ENOENT). */
int dcb_add_apps(Rtnl *r, const char *ifname, const struct dcb_app *apps, size_t n, char **ret_error);
int dcb_delete_apps(Rtnl *r, const char *ifname, const struct dcb_app *apps, size_t n, char **ret_error);
/* DCB_CMD_IEEE_SET of the APP trust order (n ≤ DCB_TRUST_MAX selectors, no duplicates). */
int dcb_set_trust(Rtnl *r, const char *ifname, const uint8_t *selectors, size_t n, char **ret_error);

/* Parsing (net/dcb-parse.c; pure, public for the tests and the fuzzer). */

/* One reply to DCB_CMD_IEEE_GET (an RTM_GETDCB message with struct dcbmsg). Returns 0, -EBADMSG for
 * a malformed message (another type or command, a truncated attribute, a PFC or APP entry of the wrong
 * size, a trust selector of the wrong type), -E2BIG for more than DCB_APPS_MAX entries or
 * DCB_TRUST_MAX selectors. */
int dcb_parse_get_reply(const struct nlmsghdr *nlh, DcbState *ret);
/* One reply to DCB_CMD_IEEE_SET or DCB_CMD_IEEE_DEL: the kernel acks the request and reports the
 * driver's result in the reply's DCB_ATTR_IEEE byte (a negative errno truncated to 8 bits). Returns
 * 0, that errno, or -EBADMSG. */
int dcb_parse_set_reply(const struct nlmsghdr *nlh);

/* Queries of a state. */
/* The priority of the APP entry (selector, protocol) when the table has exactly one, -ENOENT when it
 * has none, -ENOTUNIQ when it has several. */
int dcb_state_app_priority(const DcbState *s, uint8_t selector, uint16_t protocol);
bool dcb_state_has_app(const DcbState *s, const struct dcb_app *app) _pure_;
size_t dcb_state_count_selector(const DcbState *s, uint8_t selector) _pure_;

/* Priorities of a PFC bitmap, "3" or "3,4"; "none" for 0. Written to buf (at least 16 bytes), returned. */
const char *dcb_pfc_to_string(uint8_t pfc_en, char buf[static 16]);
/* The trust order, "dscp,pcp"; "none" when empty. Written to buf (DCB_TRUST_STRING_MAX bytes), returned. */
#define DCB_TRUST_STRING_MAX (DCB_TRUST_MAX * 10U)
const char *dcb_trust_to_string(const uint8_t *selectors, size_t n, char *buf);
