/* SPDX-License-Identifier: MIT */
/* Taking a link over from the configuration that holds it (haloctl apply --adopt: a node built by hand
 * with nmcli), and giving it back (haloctl unadopt). The backend finds what there is to take over
 * (Backend.find_adoptions); apply_node() with APPLY_ADOPT takes it over; unadopt_node() gives it back.
 * halod itself never adopts: taking over a user's configuration is an administrator's decision. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "apply/backend.h"
#include "plan/plan.h"

/* One connection that holds a link, or held it before halod took it over. */
typedef struct Adoption {
        char *link;   /* "rdma0" */
        char *ifname; /* "enp194s0f0np0" */
        char *id;     /* the connection's name now */
        char *uuid;
        bool active; /* active on ifname now */
        /* false: apply --adopt would take it over; true: it took it over before, unadopt gives it back. */
        bool kept;
        char *other_id;   /* not kept: the name it is kept under; kept: the name it gets back */
        bool autoconnect; /* not kept: its autoconnect now (turned off); kept: the one it gets back */
        bool reactivate;  /* kept: it was active when taken over, so unadopt activates it again */
} Adoption;

struct Adoptions {
        Adoption *items;
        size_t n;
};

void adoption_done(Adoption *a);
void adoptions_done(Adoptions *l);
/* Appends *a, taking over what it points to (also on failure: then it is freed). */
int adoptions_add(Adoptions *l, Adoption *a);
/* Whether l has an adoption of link that is kept (or not). */
bool adoptions_has(const Adoptions *l, const char *link, bool kept) _pure_;

/* Puts the lines of l's adoptions that are kept (or not) before the lines in *lines: a takeover comes
 * first, since the changes are made through it. */
int adoptions_describe(const Adoptions *l, bool kept, char ***lines);
/* Appends a LINK_FIELD_OWNER change record for each takeover in l (not kept): the records apply_node()
 * reports, whose lines are adoption_describe()'s. */
int adoptions_to_changes(const Adoptions *l, PlanChanges *changes);
/* For an active connection that is not kept, when --adopt was not given: that it holds the link and
 * that apply refuses to change the link until it is taken over. */
char *adoption_describe_holder(const Adoption *a);

/* Asks the backend about every link of p that resolved and can be applied (an empty list for a
 * backend without find_adoptions). On failure returns a negative errno and ret_error names the link. */
int adoptions_find(const Backend *backend, const Plan *p, Adoptions *ret, char **ret_error);

/* Gives back every link of the node that haloctl apply --adopt took over, through the backend:
 * ret_changes gets one line per connection given back and one for halod's profile deleted (none:
 * nothing was taken over). Stops at the
 * first link that fails; the links before it stay given back. On failure returns a negative errno
 * and ret_error names the link and the reason. */
int unadopt_node(const NodeContext *c, const Backend *backend, char ***ret_changes, char **ret_error);
