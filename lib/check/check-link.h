/* SPDX-License-Identifier: MIT */
/* The link.<name>.present|up|mtu|address|zone checks, from rtnetlink and firewalld. */
#pragma once

#include "check/checks.h"
#include "net/rtnl.h"
#include "plan/plan.h"

/* Runs the link checks of every link of c->node: sysfs (below c->host) to find the netdev, the
 * running kernel's rtnetlink state and firewalld's runtime zone to judge it. */
int check_links(const NodeContext *c, CheckList *out);

/* The pure part: the five checks of one link from what was observed. link is NULL when the netdev
 * is not in the kernel's table; state_note, when set, is why the kernel state was not read (the four
 * state checks then skip with it). */
int check_link_evaluate(
        const ProfileLink *pl,
        const NodeLink *nl,
        const char *ifname,
        const char *resolve_error,
        const RtnlLink *link,
        const char *state_note,
        const FirewallView *fw,
        const char *fw_error,
        CheckList *out);
