/* SPDX-License-Identifier: MIT */
/* The /etc/hosts part of the plan: the lines halod's marked block gains and loses when the profile says
 * health.hosts: manage (lib/basic/etc-hosts.h has the block). */
#pragma once

#include "plan/plan.h"

typedef struct HostsPlan {
        char *path;    /* the file below the host root */
        char **add;    /* "ADDRESS NAME" lines the block gains */
        char **remove; /* lines it loses */
        char *text;    /* the file's whole new content; NULL when nothing changes */
        char *error;   /* why the file cannot be managed, or NULL */
} HostsPlan;

/* What the node's /etc/hosts block must become: one line "ADDRESS HOSTNAME" per fabric address of every
 * other node with a hostname. *ret is NULL when the profile does not manage the file or nothing is to
 * change. Returns 0 or -ENOMEM; a file that cannot be read or has a broken block is the plan's error. */
int hosts_plan_compute(const NodeContext *c, HostsPlan **ret);
HostsPlan *hosts_plan_free(HostsPlan *hp);
DEFINE_TRIVIAL_CLEANUP_FUNC(HostsPlan *, hosts_plan_free);
/* The change records (link "/etc/hosts", field LINK_FIELD_HOSTS): from "" to a line added, from a line
 * removed to "". */
int hosts_plan_changes(const HostsPlan *hp, PlanChanges *l);
