/* SPDX-License-Identifier: MIT */
/* The change records of a plan: one change to one field of a link, as the journal records it and as
 * haloctl words it. Below the plan and its parts (link, DCB, the host's qos, routes, /etc/hosts), which
 * all append to a list of them: plan-change.c then puts the parts' records in apply's order and into
 * words, and no part needs another's file. */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/macro.h"
#include "profile/profile.h"

/* One change a plan makes to one field of a link, as the journal records it. */
typedef enum LinkField {
        LINK_FIELD_MTU,     /* "1500" → "9000" */
        LINK_FIELD_UP,      /* "down" → "up" */
        LINK_FIELD_ADDRESS, /* "192.168.100.5/30" → "" (removed), "" → "192.168.100.1/30" (added) */
        LINK_FIELD_ZONE,    /* "public" or "" (none) → "trusted" */
        /* haloctl apply --adopt: the configuration that held the link → what became of it:
         * "NetworkManager connection \"rdma0\" (uuid …)" → "kept as \"rdma0 (before halod)\", autoconnect off" */
        LINK_FIELD_OWNER,
        /* DCB (plan/qos-plan-dcb.h): the PFC priorities "none" → "3"; the APP trust order "pcp" →
         * "dscp,pcp"; one DSCP's priorities in the APP table "26:none" or "26:0" → "26:3" */
        LINK_FIELD_QOS_PFC,
        LINK_FIELD_QOS_TRUST,
        LINK_FIELD_QOS_DSCP,
        /* plan/qos-plan-host.h: one priority's ECN "3:off/on" → "3:on/on" (notification point/reaction
         * point); the default RoCE ToS "0" (or "" before rdma_cm's directory exists) → "106" */
        LINK_FIELD_QOS_ECN,
        LINK_FIELD_QOS_TOS,
        /* plan/hosts-plan.h: a line of halod's block in /etc/hosts (link "/etc/hosts", no ifname): "" →
         * "192.168.100.2 halo-2" (added), or the other way (removed) */
        LINK_FIELD_HOSTS,
        /* plan/route-plan.h: a route "" → "10.0.3.0/24 via 10.0.2.3" (added), the kernel's → the
         * profile's (replaced), halod's old one → "" (removed); the forwarding switch "off" → "on" */
        LINK_FIELD_ROUTE,
        LINK_FIELD_FORWARDING,
        _LINK_FIELD_MAX,
        _LINK_FIELD_INVALID = -EINVAL,
} LinkField;

const char *link_field_to_string(LinkField f) _pure_;

/* What a record does to its field: the words (plan_change_describe()) go by it, never by reading from
 * and to back. */
typedef enum PlanChangeOp {
        PLAN_CHANGE_SET,    /* from → to */
        PLAN_CHANGE_ADD,    /* an address, a route, a line of /etc/hosts that was not there (from "") */
        PLAN_CHANGE_REMOVE, /* one that goes (to "") */
        PLAN_CHANGE_CREATE, /* LINK_FIELD_QOS_TOS before rdma_cm's directory exists: from unknown ("") */
        _PLAN_CHANGE_OP_MAX,
        _PLAN_CHANGE_OP_INVALID = -EINVAL,
} PlanChangeOp;

/* LINK_FIELD_QOS_ECN: one priority's switches at the notification and reaction point. */
typedef struct PlanChangeEcn {
        unsigned priority;
        bool np_from, rp_from; /* before */
        bool on;               /* both points after */
} PlanChangeEcn;

/* LINK_FIELD_QOS_DSCP: one DSCP's priorities in the APP table. */
typedef struct PlanChangeDscp {
        uint8_t dscp;
        uint8_t from[QOS_PRIORITIES]; /* in the table's order; none: n_from 0 */
        size_t n_from;
        uint8_t to;
} PlanChangeDscp;

typedef struct PlanChange {
        char *link;   /* logical name */
        char *ifname; /* the netdev */
        LinkField field;
        PlanChangeOp op;
        /* The journal's HALOD_FROM and HALOD_TO, written with the record from what the plan holds;
         * nothing reads them back. */
        char *from, *to;
        union { /* by field */
                PlanChangeEcn ecn;
                PlanChangeDscp dscp;
        };
} PlanChange;

typedef struct PlanChanges {
        PlanChange *changes;
        size_t n_changes;
} PlanChanges;

/* Appends a copy of c (its strings copied; ifname NULL is ""). */
int plan_changes_push(PlanChanges *l, const PlanChange *c);
/* Appends a PLAN_CHANGE_SET record; copies the strings. */
int plan_changes_add(
        PlanChanges *l, const char *link, const char *ifname, LinkField field, const char *from, const char *to);
/* Appends an added (from "") or removed (to "") item: an address, a route, a line of /etc/hosts. */
int plan_changes_add_item(
        PlanChanges *l, const char *link, const char *ifname, LinkField field, bool add, const char *item);
void plan_changes_done(PlanChanges *c);
