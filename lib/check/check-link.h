/* SPDX-License-Identifier: MIT */
/* The link.<name>.present|up|mtu|address|zone checks, reported from the plan (plan/plan.h). */
#pragma once

#include "check/checks.h"
#include "net/rtnl.h"
#include "plan/plan.h"

/* Runs the link checks of every link of c->node from the snapshot s (reading what it lacks: each
 * link's netdev from sysfs below c->host, and on the running system the kernel's and firewalld's
 * state), each link judged by its plan. */
int check_links(
        const NodeContext *c, const Snapshot *s, const CheckHistory *before, CheckHistory *after, CheckList *out);

/* The pure part: the five checks of one link from its plan lp (lp->ifname NULL: the link did not
 * resolve, lp->error says why). link is what the kernel shows of the netdev, NULL when it is not in
 * the kernel's table; state_note, when set, is why the kernel state was not read (the four state
 * checks then skip with it). fw and fw_error: what firewalld said of the netdev's zone. */
int check_link_evaluate(
        const ProfileLink *pl,
        const NodeLink *nl,
        const LinkPlan *lp,
        const RtnlLink *link,
        const char *state_note,
        const FirewallView *fw,
        const char *fw_error,
        CheckList *out);
