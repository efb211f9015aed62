/* SPDX-License-Identifier: MIT */
/* Private to the NetworkManager module (halod-backend-nm.so: lib/apply/nm/nm.c, nm-session.c, nm-change.c,
 * nm-profile.c, nm-reason.c, nm-module.c) and its tests: the libnm session and the profile halod
 * wants. Carries GLib types, so nothing else includes it; the program side is lib/apply/nm.h. */
#pragma once

#include <NetworkManager.h>
#include <stdbool.h>

#include "apply/backend.h"
#include "apply/nm-module.h"
#include "basic/macro.h"

/* The module's apply (NmModule.apply_link): see nm_apply_link() in lib/apply/nm.h. */
int nm_module_apply_link(const LinkPlan *lp, unsigned timeout_ms, char **ret_error);
/* The module's unadopt (NmModule.unadopt_link): see nm_unadopt_link() in lib/apply/nm.h. */
int nm_module_unadopt_link(const char *link, const char *ifname, unsigned timeout_ms, char **ret_error);
/* What the program lent the module at halod_nm_module_init(); NULL before (in the unit tests). */
const NmModuleHost *nm_module_host(void);

/* One apply's world: a private GMainContext pushed as the thread default for the session's lifetime,
 * a deadline that cancels every pending call when it passes, and an NMClient living on that context
 * over a private bus connection. */
typedef struct NmSession {
        GMainContext *context;
        GCancellable *cancellable; /* cancelled when the deadline passes */
        GSource *deadline;
        bool timed_out;
        GAsyncResult *result; /* where nm_session_store_result() puts the answer to the call under way */
        GDBusConnection *bus;
        NMClient *client;
} NmSession;

/* Pushes a new context and connects to NetworkManager within timeout_ms. On failure returns -ETIMEDOUT
 * or -EIO with error set; the session must still be closed. */
int nm_session_open(NmSession *s, unsigned timeout_ms, GError **error);
/* Drops the client, waits (bounded) until libnm released the context, pops and frees it. */
void nm_session_close(NmSession *s);
/* Starts a new deadline with a fresh cancellable (the rollback after a failure gets its own time). */
void nm_session_arm(NmSession *s, unsigned timeout_ms);
/* The GAsyncReadyCallback for calls made with s->cancellable, with the session as user_data: keeps a
 * reference to the result in the session. */
void nm_session_store_result(GObject *source, GAsyncResult *result, gpointer user_data);
/* Iterates the context until the call under way has answered, and returns its result (owned). A call
 * made with s->cancellable finishes right after the deadline cancelled it, but libnm has been seen not
 * to (NetworkManager killed in the middle of the client's first GetManagedObjects()): past the deadline
 * it gets NM_SESSION_DRAIN_MS more, and then NULL is returned with error set; the session must then be
 * closed, whose drain may still collect the late answer. */
GAsyncResult *nm_session_wait_result(NmSession *s, GError **error);
/* Iterates the context until done(userdata) or the deadline. Returns false on the deadline. */
bool nm_session_wait_until(NmSession *s, bool (*done)(void *userdata), void *userdata);
/* Negative errno for a failed call: -ETIMEDOUT when the deadline cancelled it, else -EIO. */
int nm_session_errno(const NmSession *s, const GError *error);

/* A rollback gets its own time, since the apply's may be spent; but no more than this. */
#define NM_ROLLBACK_TIMEOUT_MS 5000U

/* A connection haloctl apply --adopt takes over, or haloctl unadopt gives back (nm-adopt.c). */
typedef struct NmAdoptee {
        NMRemoteConnection *connection; /* ref */
        GVariant *previous;             /* its settings before this call changed them; NULL: unchanged */
        char *name;                     /* its name before it was taken over, for messages */
        /* adopt: active on the device when the apply began (activated again on a rollback); unadopt:
         * active when it was taken over (activated again when given back). */
        bool was_active;
} NmAdoptee;

/* One apply in progress, and what it takes to undo it. */
typedef struct NmApply {
        NmSession *session;
        const LinkPlan *lp;
        unsigned timeout_ms;
        char *id;
        const char *step; /* what we wait for, for the timeout message */
        NMDevice *device;
        NMRemoteConnection *profile; /* the halod profile, existing or created (ref) */
        bool created;                /* rollback: delete profile */
        GVariant *previous;          /* rollback: restore these settings (floating ref sunk) */
        bool was_active;             /* the profile was active on the device before we touched it */
        GPtrArray *adoptees;         /* NmAdoptee: what lp->adopt takes over; rollback: put back */
        char *error;
} NmApply;

/* Opens a session, runs fn on a new NmApply for lp, closes the session; the error of fn (or of the
 * session) goes to ret_error. */
int nm_apply_run(const LinkPlan *lp, unsigned timeout_ms, int (*fn)(NmApply *a), char **ret_error);
/* Checks that NetworkManager runs and manages lp->ifname, and sets a->device. */
int nm_apply_find_device(NmApply *a);
/* Finds halod's profile for the link (a->profile, or NULL); -ENOTUNIQ when there are several. */
int nm_apply_find_profile(NmApply *a);

/* Sets a->error (the message for the user) and returns r, as errorf() does. */
int nm_apply_failf(NmApply *a, int r, const char *format, ...) _printf_(3, 4);
/* A failed call: a timeout message naming a->step, or NetworkManager's own words. */
int nm_apply_fail_call(NmApply *a, const GError *error);

/* Creates the profile, or updates it in place (remembering the old settings); sets *ret_changed. */
int nm_change_write_profile(NmApply *a, NMConnection *wanted, bool *ret_changed);
/* True when the profile is active on the device with what we want applied. */
bool nm_change_active_as_wanted(NmApply *a, NMConnection *wanted);
/* True when the plan found nothing drifted on the link (MTU, address, zone: link_plan_shows_settings()). */
bool nm_change_link_shows_settings(const NmApply *a);
/* Puts the applied settings back on the link without taking it down. */
int nm_change_reapply(NmApply *a);
/* Activates the profile on the device and waits until it is active or has failed. */
int nm_change_activate(NmApply *a);
/* Puts the profile back as it was before this apply. Returns a phrase for the error message. */
const char *nm_change_rollback(NmApply *a);

/* With lp->adopt: finds the connections to take over (nm_adopt_takes_over()) into a->adoptees. */
int nm_adopt_find(NmApply *a);
/* Keeps each of a->adoptees renamed, with autoconnect off and marked; on failure puts back those done
 * and says so in the message. */
int nm_adopt_keep(NmApply *a);
/* Puts back the connections nm_adopt_keep() changed and activates again the one that was active.
 * Returns a phrase for the error message (g_free() it), NULL when nothing was taken over. */
char *nm_adopt_rollback(NmApply *a);

/* The connection c as haloctl apply --adopt keeps it: renamed "<id> (before halod)", autoconnect off,
 * marked with link, its id, its autoconnect and was_active. One taken over before keeps its name and
 * the marks of the first time (only autoconnect goes off again). NULL and error when a mark cannot be
 * set. */
NMConnection *nm_adopt_kept_connection(NMConnection *c, const char *link, bool was_active, GError **error);
/* The connection c, kept by haloctl apply --adopt, as it was before: its id and autoconnect back, the
 * marks removed (and the user setting with them when nothing else is in it). NULL and error when c
 * carries no marks. */
NMConnection *nm_adopt_given_back_connection(NMConnection *c, GError **error);

/* "halod-<link>", g_free() it. */
char *nm_profile_id(const char *link);
bool nm_profile_id_is_halod(const char *id);
/* The connection halod wants for lp (lp->want, lp->address). With base (an existing halod profile of type
 * ethernet), starts from a copy of it and sets only the properties halod owns, so that NetworkManager's own
 * defaults and anything else stay as they are; without base, a new profile with a new UUID. */
NMConnection *nm_profile_build(const LinkPlan *lp, NMConnection *base, GError **error);
/* True when every property halod owns (id, type, interface, autoconnect, zone, MTU, IPv4 method and
 * addresses, IPv6 method) is the same in a and b. A zone or MTU the profile leaves alone is copied
 * from base by nm_profile_build(), so it never counts as a difference. */
bool nm_profile_owned_equal(NMConnection *a, NMConnection *b);
/* What ipv6.method halod uses for lp->want.ipv6. */
const char *nm_profile_ipv6_method(bool ipv6);

/* NetworkManager's reason for an active connection's state, for people ("the device's IP
 * configuration was invalid"). Never NULL. */
const char *nm_active_state_reason_to_string(unsigned reason);
