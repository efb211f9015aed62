/* SPDX-License-Identifier: MIT */
/* What halod may not write and asks halod-helper.service (root, started by halod-helper.path) to write:
 * the CDI spec in /run/cdi, its /etc/hosts block (health.hosts: manage), the networkd backend's files.
 * The request says only what halod saw wrong; the helper derives what it writes from the root-owned
 * profile and the kernel (haloctl apply --only cdi,hosts.,networkd,boot). The "helper" check says whether
 * what halod expects is there, asked for, or still wrong after the helper ran. */
#pragma once

#include <stdbool.h>

#include "apply/backend.h"
#include "basic/time-util.h"
#include "check/checks.h"
#include "check/helper-ask.h"
#include "profile/profile.h"
#include "snapshot/snapshot.h"

/* The file in halod's runtime directory whose change starts halod-helper.service. */
#define HELPER_REQUEST_FILE "request"
#define HELPER_CHECK_ID "helper"

typedef struct HelperState {
        char *asked;           /* what was wrong when halod last asked; NULL: nothing is asked for */
        usec_t asked_usec;     /* CLOCK_MONOTONIC */
        usec_t asked_realtime; /* CLOCK_REALTIME: compared with the helper's result file */
        usec_t backoff_usec;
        bool failed;     /* the last check said FAIL on what is asked for: the helper ran and it stayed */
        int last_result; /* the last step's result, logged when it changes */
} HelperState;

void helper_state_done(HelperState *s);

/* Whether this process can write dir itself (its effective ids, read-only mounts included); a missing
 * dir counts as writable when its parent is. */
bool manager_dir_writable(const char *dir);

typedef struct Manager Manager;
/* Whether halod-helper.service applies the links: the networkd backend where halod may not write
 * networkd's files. */
bool manager_helper_delegates_networkd(const Profile *p, const Backend *backend);
/* Whether anything is the helper's to write for c (networkd: it applies the links): the conditions of
 * manager_helper_step()'s parts, without reading what they compare. */
bool manager_helper_in_play(Manager *m, const NodeContext *c, bool networkd);
/* What the links lack, from the plan of s, for the helper's request and check ("": nothing); *ret is
 * replaced. Returns 0, or negative errno with *error set when the kernel could not be read. */
int manager_helper_networkd_wrong(Snapshot *s, char **ret, char **error);
/* One step, on the worker thread (the host lane's jobs never overlap, and only they touch m->helper): finds
 * what of the helper's is wrong (the CDI spec of m->cdi_dir when halod may not write it, the /etc/hosts
 * block when it may not write /etc, networkd_wrong: the links that the networkd backend was to change), asks
 * when it is a new difference or the back-off ran out, and adds the "helper" check to checks when
 * with_check. Returns 1 when it asked, 0 when not, -ENOENT when there is nothing of the helper's, or
 * negative errno. */
int manager_helper_step(
        Manager *m, const NodeContext *c, const char *networkd_wrong, bool with_check, CheckList *checks);
/* On the loop, with a step's result: says so when halod starts or stops asking, or cannot. */
void manager_helper_report(Manager *m, int r);
