/* SPDX-License-Identifier: MIT */
/* The io.halod1.Node object on the system bus: properties, methods, CheckChanged, authorisation. */
#include <stddef.h>

#include "basic/strv.h"
#include "log.h"
#include "manager-bus.h"
#include "manager-job-verify.h"
#include "manager-peers.h"
#include "manager-verify.h"
#include "manager.h"

#define BUS_NAME "io.halod1"
#define OBJECT_PATH "/io/halod1"
#define INTERFACE "io.halod1.Node"
#define POLKIT_ACTION "io.halod1.manage"
#define ERROR_PROFILE_INVALID "io.halod1.Error.ProfileInvalid"
#define ERROR_APPLY_FAILED "io.halod1.Error.ApplyFailed"
#define ERROR_VERIFY_MODE "io.halod1.Error.VerifyMode"

static int property_get_string(
        sd_bus *bus,
        const char *path,
        const char *interface,
        const char *property,
        sd_bus_message *reply,
        void *userdata,
        sd_bus_error *error) {
        Manager *m = userdata;
        const char *s = NULL;

        if (streq(property, "Node"))
                s = m->node ? m->node->name : NULL;
        else if (streq(property, "Cluster"))
                s = m->profile ? m->profile->cluster : NULL;
        else if (streq(property, "Mode"))
                s = m->profile ? profile_mode_to_string(m->profile->mode) : NULL;
        else if (streq(property, "ProfilePath"))
                s = m->profile_path;
        else if (streq(property, "Backend"))
                s = m->backend ? m->backend->name : NULL;
        else if (streq(property, "BackendReason"))
                s = m->backend ? m->backend_reason : NULL;
        else if (streq(property, "Health"))
                s = health_to_string(m->health);
        else if (streq(property, "Summary"))
                s = m->summary;

        return sd_bus_message_append(reply, "s", strempty(s));
}

static int property_get_checks(
        sd_bus *bus,
        const char *path,
        const char *interface,
        const char *property,
        sd_bus_message *reply,
        void *userdata,
        sd_bus_error *error) {
        Manager *m = userdata;
        const CheckList *l = published_checks_list(m->checks);
        int r;

        r = sd_bus_message_open_container(reply, 'a', "(sssss)");
        if (r < 0)
                return r;
        for (size_t i = 0; i < l->n_checks; i++) {
                const Check *c = &l->checks[i];

                r = sd_bus_message_append(
                        reply,
                        "(sssss)",
                        c->id,
                        check_outcome_to_string(c->outcome),
                        c->summary,
                        c->expected,
                        c->actual);
                if (r < 0)
                        return r;
        }
        return sd_bus_message_close_container(reply);
}

static int property_get_peers(
        sd_bus *bus,
        const char *path,
        const char *interface,
        const char *property,
        sd_bus_message *reply,
        void *userdata,
        sd_bus_error *error) {
        Manager *m = userdata;
        int r;

        r = sd_bus_message_open_container(reply, 'a', "(ssbtt)");
        if (r < 0)
                return r;
        for (size_t i = 0; i < m->peers.n_peers; i++) {
                const PeerStatus *p = &m->peers.peers[i];

                r = sd_bus_message_append(
                        reply,
                        "(ssbtt)",
                        p->node,
                        p->address,
                        (int) p->reachable,
                        p->rtt_median_usec,
                        p->rtt_p99_usec);
                if (r < 0)
                        return r;
        }
        return sd_bus_message_close_container(reply);
}

/* Pairs of check id and what a reboot (or a re-exec) would bring into force (manager-verify.c). */
static int property_get_pending_reboot(
        sd_bus *bus,
        const char *path,
        const char *interface,
        const char *property,
        sd_bus_message *reply,
        void *userdata,
        sd_bus_error *error) {
        Manager *m = userdata;
        int r;

        r = sd_bus_message_open_container(reply, 'a', "(ss)");
        if (r < 0)
                return r;
        for (char **p = m->pending_reboot; p && p[0] && p[1]; p += 2) {
                r = sd_bus_message_append(reply, "(ss)", p[0], p[1]);
                if (r < 0)
                        return r;
        }
        return sd_bus_message_close_container(reply);
}

/* A method call whose reply waits for a peer run: Verify(), Apply() and Reload() answer once the
 * peer checks of the verify they caused are in, without holding up the loop meanwhile. */
struct BusWaiter {
        BusWaiter *next;
        sd_bus_message *call;
        uint64_t run;
        bool reply_summary;
};

static BusWaiter *bus_waiter_free(BusWaiter *w) {
        if (!w)
                return NULL;
        sd_bus_message_unref(w->call);
        return mfree(w);
}

void manager_bus_waiters_free(Manager *m) {
        while (m->waiters) {
                BusWaiter *w = m->waiters;

                m->waiters = w->next;
                bus_waiter_free(w);
        }
}

static int reply_done(sd_bus_message *call, Manager *m, bool reply_summary) {
        if (reply_summary)
                return sd_bus_reply_method_return(call, "s", m->summary);
        return sd_bus_reply_method_return(call, NULL);
}

/* Replies now, or when the peer run that covers this call is in. */
static int reply_after_peers(sd_bus_message *call, Manager *m, bool reply_summary) {
        uint64_t run = manager_peers_pending_run(m);
        BusWaiter *w, **tail;

        if (run == 0)
                return reply_done(call, m, reply_summary);

        w = calloc(1, sizeof(BusWaiter));
        if (!w)
                return -ENOMEM;
        *w = (BusWaiter){ .call = sd_bus_message_ref(call), .run = run, .reply_summary = reply_summary };
        for (tail = &m->waiters; *tail; tail = &(*tail)->next)
                ;
        *tail = w;
        return 1;
}

void manager_bus_answer_waiters(Manager *m, uint64_t run) {
        BusWaiter **p = &m->waiters;

        while (*p) {
                BusWaiter *w = *p;
                int r;

                if (w->run > run) {
                        p = &w->next;
                        continue;
                }
                *p = w->next;
                r = reply_done(w->call, m, w->reply_summary);
                if (r < 0)
                        log_debug("Failed to answer %s: %s", sd_bus_message_get_member(w->call), strerror(-r));
                bus_waiter_free(w);
        }
}

/* Acts on an authorised call and replies to it (or returns negative errno / sets error). */
typedef int (*ActionFunc)(sd_bus_message *call, Manager *m, sd_bus_error *error);

typedef struct PendingAuth {
        Manager *manager;
        sd_bus_message *call;
        ActionFunc action;
} PendingAuth;

static void pending_auth_free(void *userdata) {
        PendingAuth *p = userdata;

        sd_bus_message_unref(p->call);
        free(p);
}

static void reply_action_result(sd_bus_message *call, int r, sd_bus_error *error) {
        if (r < 0 || sd_bus_error_is_set(error))
                (void) sd_bus_reply_method_errno(call, r, error);
}

static int polkit_reply(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        PendingAuth *p = userdata;
        int authorized = false, challenge = false, r;

        if (sd_bus_message_is_method_error(reply, NULL)) {
                const sd_bus_error *e = sd_bus_message_get_error(reply);

                (void) sd_bus_reply_method_errorf(
                        p->call,
                        SD_BUS_ERROR_ACCESS_DENIED,
                        "Only root may call %s: polkit could not be asked for %s (%s)",
                        sd_bus_message_get_member(p->call),
                        POLKIT_ACTION,
                        e && e->message ? e->message : "no answer");
                return 0;
        }

        /* CheckAuthorization returns (is_authorized, is_challenge, details): (bba{ss}). */
        r = sd_bus_message_enter_container(reply, 'r', "bba{ss}");
        if (r > 0)
                r = sd_bus_message_read(reply, "bb", &authorized, &challenge);
        if (r <= 0) {
                (void) sd_bus_reply_method_errorf(
                        p->call,
                        SD_BUS_ERROR_ACCESS_DENIED,
                        "Only root may call %s: polkit's answer for %s could not be read (%s)",
                        sd_bus_message_get_member(p->call),
                        POLKIT_ACTION,
                        r < 0 ? strerror(-r) : "empty");
                return 0;
        }
        if (!authorized) {
                (void) sd_bus_reply_method_errorf(
                        p->call,
                        SD_BUS_ERROR_ACCESS_DENIED,
                        "Not authorised for %s: polkit denied it%s",
                        POLKIT_ACTION,
                        challenge ? " (authentication is required)" : "");
                return 0;
        }

        r = p->action(p->call, p->manager, &error);
        reply_action_result(p->call, r, &error);
        return 0;
}

/* Returns > 0 when the caller may act now, 0 when polkit was asked and the action will run (or be
 * denied) from its reply, negative errno with error set when denied. */
static int authorize(sd_bus_message *call, Manager *m, ActionFunc action, sd_bus_error *error) {
        _cleanup_(sd_bus_creds_unrefp) sd_bus_creds *creds = NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *q = NULL;
        _cleanup_(sd_bus_slot_unrefp) sd_bus_slot *slot = NULL;
        PendingAuth *p;
        uid_t uid;
        int r;

        r = sd_bus_query_sender_creds(call, SD_BUS_CREDS_EUID | SD_BUS_CREDS_AUGMENT, &creds);
        if (r >= 0)
                r = sd_bus_creds_get_euid(creds, &uid);
        if (r >= 0 && uid == 0)
                return 1;

        /* Anyone else needs polkit's word; without a polkit daemon on the bus, only root may act. */
        r = sd_bus_message_new_method_call(
                m->bus,
                &q,
                "org.freedesktop.PolicyKit1",
                "/org/freedesktop/PolicyKit1/Authority",
                "org.freedesktop.PolicyKit1.Authority",
                "CheckAuthorization");
        if (r >= 0)
                r = sd_bus_message_append(
                        q,
                        "(sa{sv})sa{ss}us",
                        "system-bus-name",
                        1,
                        "name",
                        "s",
                        sd_bus_message_get_sender(call),
                        POLKIT_ACTION,
                        0,
                        (uint32_t) (sd_bus_message_get_allow_interactive_authorization(call) ? 1 : 0),
                        "");
        if (r < 0)
                return r;

        p = calloc(1, sizeof(PendingAuth));
        if (!p)
                return -ENOMEM;
        *p = (PendingAuth){ .manager = m, .call = sd_bus_message_ref(call), .action = action };

        r = sd_bus_call_async(m->bus, &slot, q, polkit_reply, p, 120 * USEC_PER_SEC);
        if (r < 0) {
                pending_auth_free(p);
                return sd_bus_error_setf(
                        error,
                        SD_BUS_ERROR_ACCESS_DENIED,
                        "Only root may call this method (polkit unavailable)");
        }
        (void) sd_bus_slot_set_destroy_callback(slot, pending_auth_free);
        (void) sd_bus_slot_set_floating(slot, true);
        return 0;
}

static int run_authorized(sd_bus_message *call, Manager *m, ActionFunc action, sd_bus_error *error) {
        int r;

        r = authorize(call, m, action, error);
        if (r <= 0)
                return r < 0 ? r : 1; /* 1: the reply comes later, from polkit's answer */
        return action(call, m, error);
}

static void call_unref(void *call) {
        sd_bus_message_unref(call);
}

static void reply_failed(sd_bus_message *call, int r) {
        r = sd_bus_reply_method_errno(call, r, NULL);
        if (r < 0)
                log_debug("Failed to answer %s: %s", sd_bus_message_get_member(call), strerror(-r));
}

static void on_verified(Manager *m, const VerifyOutcome *o, void *userdata) {
        int r;

        r = reply_after_peers(userdata, m, /* reply_summary= */ true);
        if (r < 0)
                reply_failed(userdata, r);
}

/* The checks run off the loop; the reply follows when they and the peer checks are in. */
static int action_verify(sd_bus_message *call, Manager *m, sd_bus_error *error) {
        int r;

        r = manager_verify_submit(m, &(VerifyRequest){}, on_verified, sd_bus_message_ref(call), call_unref);
        if (r < 0) {
                sd_bus_message_unref(call);
                return r;
        }
        return 1;
}

static void on_applied(Manager *m, const VerifyOutcome *o, void *userdata) {
        sd_bus_message *call = userdata;
        int r;

        if (o->apply_result < 0)
                r = sd_bus_reply_method_errorf(
                        call, ERROR_APPLY_FAILED, "Apply failed: %s", strna(o->apply_error));
        else
                r = reply_after_peers(call, m, /* reply_summary= */ false);
        if (r < 0)
                reply_failed(call, r);
}

static int action_apply(sd_bus_message *call, Manager *m, sd_bus_error *error) {
        int r;

        if (!profile_may_change_host(m->profile, /* force= */ false))
                return sd_bus_error_setf(
                        error,
                        ERROR_VERIFY_MODE,
                        "The profile %s says mode: verify, so halod does not change this host. Set mode: enforce "
                        "and reload, or run `haloctl apply --force` once.",
                        m->profile_path);

        r = manager_verify_submit(
                m, &(VerifyRequest){ .apply = true }, on_applied, sd_bus_message_ref(call), call_unref);
        if (r < 0) {
                sd_bus_message_unref(call);
                return r;
        }
        return 1;
}

static void on_reloaded(Manager *m, int r, const char *message, void *userdata) {
        sd_bus_message *call = userdata;

        if (r < 0)
                r = sd_bus_reply_method_errorf(
                        call,
                        ERROR_PROFILE_INVALID,
                        "Profile %s rejected, the previous one stays in force:\n%s",
                        m->profile_path,
                        strna(message));
        else
                r = reply_after_peers(call, m, /* reply_summary= */ false);
        if (r < 0)
                reply_failed(call, r);
}

static int action_reload(sd_bus_message *call, Manager *m, sd_bus_error *error) {
        int r;

        r = manager_reload(m, on_reloaded, sd_bus_message_ref(call), call_unref);
        if (r < 0) {
                sd_bus_message_unref(call);
                return r;
        }
        return 1;
}

static int method_verify(sd_bus_message *call, void *userdata, sd_bus_error *error) {
        return run_authorized(call, userdata, action_verify, error);
}

static int method_apply(sd_bus_message *call, void *userdata, sd_bus_error *error) {
        return run_authorized(call, userdata, action_apply, error);
}

static int method_reload(sd_bus_message *call, void *userdata, sd_bus_error *error) {
        return run_authorized(call, userdata, action_reload, error);
}

#define STRING_PROPERTY(name) \
        SD_BUS_PROPERTY(name, "s", property_get_string, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE)

static const sd_bus_vtable node_vtable[] = {
        SD_BUS_VTABLE_START(0),
        STRING_PROPERTY("Node"),
        STRING_PROPERTY("Cluster"),
        STRING_PROPERTY("Mode"),
        STRING_PROPERTY("ProfilePath"),
        STRING_PROPERTY("Backend"),
        STRING_PROPERTY("BackendReason"),
        STRING_PROPERTY("Health"),
        STRING_PROPERTY("Summary"),
        SD_BUS_PROPERTY("Checks", "a(sssss)", property_get_checks, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Peers", "a(ssbtt)", property_get_peers, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY(
                "PendingReboot", "a(ss)", property_get_pending_reboot, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY(
                "LastVerifyUSec",
                "t",
                NULL,
                offsetof(Manager, last_verify_usec),
                SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY(
                "LastApplyUSec", "t", NULL, offsetof(Manager, last_apply_usec), SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        /* UNPRIVILEGED: sd-bus lets the call through, authorize() decides. */
        SD_BUS_METHOD_WITH_ARGS(
                "Verify", SD_BUS_NO_ARGS, SD_BUS_RESULT("s", summary), method_verify, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS(
                "Apply", SD_BUS_NO_ARGS, SD_BUS_NO_RESULT, method_apply, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS(
                "Reload", SD_BUS_NO_ARGS, SD_BUS_NO_RESULT, method_reload, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_SIGNAL_WITH_ARGS("CheckChanged", SD_BUS_ARGS("s", id, "s", from, "s", to, "s", summary), 0),
        SD_BUS_VTABLE_END,
};

/* D-Bus interface and member names are at most 255 bytes. sd-bus's answer to an unknown one repeats
 * the name it was given, so a Get naming a 30 MiB property cost a 30 MiB error and the CPU to build
 * and send it; such a call is refused here, before sd-bus looks it up, with a short error. */
#define BUS_NAME_MAX 255U

static bool bus_name_too_long(const char *s) {
        return s && strnlen(s, BUS_NAME_MAX + 1) > BUS_NAME_MAX;
}

static int on_properties_call(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        const char *member, *interface = NULL, *property = NULL;
        int r;

        if (!sd_bus_message_is_method_call(message, "org.freedesktop.DBus.Properties", NULL))
                return 0;
        member = sd_bus_message_get_member(message);
        if (!member || !(streq(member, "Get") || streq(member, "Set") || streq(member, "GetAll")))
                return 0;

        r = sd_bus_message_read_basic(message, 's', &interface);
        if (r > 0 && !streq(member, "GetAll"))
                r = sd_bus_message_read_basic(message, 's', &property);
        (void) sd_bus_message_rewind(message, /* complete= */ true);
        if (r <= 0)
                return 0; /* a wrong signature: sd-bus answers it */
        if (!bus_name_too_long(interface) && !bus_name_too_long(property))
                return 0;

        r = sd_bus_reply_method_errorf(
                message,
                SD_BUS_ERROR_INVALID_ARGS,
                "%s name longer than %u bytes, which D-Bus does not allow.",
                bus_name_too_long(interface) ? "Interface" : "Property",
                BUS_NAME_MAX);
        if (r < 0)
                log_debug("Failed to refuse an over-long name in %s: %s", member, strerror(-r));
        return 1; /* handled: sd-bus does not see it */
}

/* sd-bus ends the event loop with status 1 once this returns (exit-on-disconnect): say why first. */
static int on_bus_disconnected(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        if (sd_bus_message_is_signal(message, "org.freedesktop.DBus.Local", "Disconnected"))
                log_error(
                        "Lost the connection to the system bus (was dbus restarted?); exiting with status 1 so "
                        "that systemd starts halod again (Restart=on-failure).");
        return 0;
}

int manager_bus_setup(Manager *m) {
        int r;

        r = sd_bus_open_system(&m->bus);
        if (r < 0)
                return log_error_errno(r, "Failed to connect to the system bus: %m. Is dbus running?");

        r = sd_bus_add_filter(m->bus, NULL, on_properties_call, m);
        if (r < 0)
                return log_error_errno(r, "Failed to install the bus filter: %m");

        r = sd_bus_add_object_vtable(m->bus, NULL, OBJECT_PATH, INTERFACE, node_vtable, m);
        if (r < 0)
                return log_error_errno(r, "Failed to register %s on the bus: %m", OBJECT_PATH);

        r = sd_bus_attach_event(m->bus, m->event, SD_EVENT_PRIORITY_NORMAL);
        if (r < 0)
                return log_error_errno(r, "Failed to attach the bus to the event loop: %m");

        /* Without the bus nobody can see our health: stop, and let Restart= bring us back. */
        r = sd_bus_set_exit_on_disconnect(m->bus, true);
        if (r >= 0)
                r = sd_bus_add_filter(m->bus, NULL, on_bus_disconnected, m);
        if (r < 0)
                return log_error_errno(r, "Failed to set exit-on-disconnect: %m");

        r = sd_bus_request_name(m->bus, BUS_NAME, 0);
        if (r == -EEXIST)
                return log_error_errno(
                        r, "Another process already owns %s on the system bus: is halod running?", BUS_NAME);
        if (r == -EACCES || r == -EPERM)
                return log_error_errno(
                        r,
                        "The D-Bus policy does not let this user own %s: install io.halod1.conf into the bus's "
                        "system.d directory and reload dbus.",
                        BUS_NAME);
        if (r < 0)
                return log_error_errno(r, "Failed to acquire %s: %m", BUS_NAME);
        return 0;
}

void manager_bus_emit_changed(Manager *m, char **properties) {
        int r;

        /* An empty list would mean "all of them" to sd-bus. */
        if (!m->bus || strv_length(properties) == 0)
                return;
        r = sd_bus_emit_properties_changed_strv(m->bus, OBJECT_PATH, INTERFACE, properties);
        if (r < 0)
                log_warning_errno(r, "Failed to announce changed properties, ignoring: %m");
}

void manager_bus_emit_check_changed(Manager *m, const Check *c, const char *from) {
        int r;

        if (!m->bus)
                return;
        r = sd_bus_emit_signal(
                m->bus,
                OBJECT_PATH,
                INTERFACE,
                "CheckChanged",
                "ssss",
                c->id,
                from,
                check_outcome_to_string(c->outcome),
                c->summary);
        if (r < 0)
                log_warning_errno(r, "Failed to emit CheckChanged for %s, ignoring: %m", c->id);
}
