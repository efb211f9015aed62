/* SPDX-License-Identifier: MIT */
/* What a verify publishes, decided from the checks alone (lib/check/verify-summary.c): the published
 * list after a run (the old one with the checks the run replaces replaced in place), and Health with
 * its one-line summary. Pure: the daemon calls these on its loop, the unit tests with case tables. */
#pragma once

#include <stdbool.h>

#include "check/check.h"
#include "peer/health.h"

/* Whether a fresh run replaces the published check id: a peer run (peers true) replaces every peer.*
 * check, a local run the local checks that only selects (NULL: all). */
bool check_replaced_by_run(const char *id, const char *only, bool peers) _pure_;
/* The published list after a run: old with the checks the run replaces replaced in place by fresh,
 * which is taken over (emptied). own_id (may be NULL) is a local check that a job of its own publishes
 * (the daemon's helper check): a local run replaces it only when it brings it or selects only it
 * (that job found nothing to check), and keeps it otherwise. Fresh checks that replace none go last
 * for a peer run, before the first peer check for a local run. */
int check_list_merge(
        const CheckList *old, const char *only, bool peers, const char *own_id, CheckList *fresh, CheckList *ret);
/* What a re-check after rtnetlink events selects: every check of the links in link_events (a link
 * event: flags, MTU, name, or one of unknown kind), and only the checks an address or route event can
 * change (link.<link>.address and .routes) of the other links; every link when links is NULL (a
 * resync). Returns 0 or -ENOMEM; *ret is "" when links is empty. */
int check_selection_for_drift(char *const *links, char *const *link_events, char **ret);
/* Whether a verify that selected only covered the events on link: all of link.<link>. for a link event
 * (link_event), its address and route checks for the others. */
bool check_selection_covers_drift(const char *link, bool link_event, const char *only) _pure_;
/* Same ids, outcomes and texts in the same order. */
bool check_list_equal(const CheckList *a, const CheckList *b) _pure_;
/* What kernel.cmdline says when the next boot carries every parameter the running kernel lacks: halod
 * never reboots, so Health says so until someone does. */
#define KERNEL_CMDLINE_REBOOT_REQUIRED \
        "reboot required to bring them into force (the next boot carries them)"

/* What a reboot would bring into force, from the checks that say so (Check.pending_reboot), in the
 * list's order: pairs of check id and what ("kernel.cmdline", "kernel command line: iommu=pt"), for
 * the PendingReboot property. Returns 0 (*ret NULL when nothing is pending) or -ENOMEM. */
int checks_pending_reboot(const CheckList *l, char ***ret);

/* Health and the summary ("healthy: 12/12 checks pass, 3 skipped", "degraded: link.fab0.mtu: ... (and
 * 2 more checks failing or warning)"); run_failed: the local checks could not run. When checks other
 * than the one named first say what a reboot would bring into force (Check.pending_reboot), the summary
 * ends in "; reboot required to bring into force: " and what they say, joined by " and ", so that
 * STATUS= and Summary say it. */
int checks_summarize(const CheckList *l, bool run_failed, Health *ret_health, char **ret_summary);
