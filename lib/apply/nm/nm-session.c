/* SPDX-License-Identifier: MIT */
/* A libnm client on its own GMainContext, with one deadline that bounds every wait. */

#include <errno.h>

#include "apply/nm/nm-internal.h"

/* After the client is dropped, libnm finishes its cancelled calls on our context; this bounds how long
 * we iterate for that (it normally takes one iteration). */
#define NM_SESSION_DRAIN_MS 1000U

static gboolean set_true_source(gpointer userdata) {
        *(bool *) userdata = true;
        return G_SOURCE_REMOVE;
}

static gboolean deadline_passed(gpointer userdata) {
        NmSession *s = userdata;

        s->timed_out = true;
        g_cancellable_cancel(s->cancellable);
        return G_SOURCE_REMOVE;
}

static void disarm(NmSession *s) {
        if (s->deadline) {
                g_source_destroy(s->deadline);
                g_clear_pointer(&s->deadline, g_source_unref);
        }
        g_clear_object(&s->cancellable);
}

void nm_session_arm(NmSession *s, unsigned timeout_ms) {
        disarm(s);
        s->timed_out = false;
        s->cancellable = g_cancellable_new();
        s->deadline = g_timeout_source_new(timeout_ms);
        g_source_set_callback(s->deadline, deadline_passed, s, NULL);
        g_source_attach(s->deadline, s->context);
}

void nm_session_store_result(GObject *source, GAsyncResult *result, gpointer user_data) {
        NmSession *s = user_data;

        g_clear_object(&s->result);
        s->result = g_object_ref(result);
}

GAsyncResult *nm_session_wait_result(NmSession *s, GError **error) {
        GSource *grace = NULL;
        bool expired = false;

        while (!s->result && !expired) {
                if (s->timed_out && !grace) {
                        grace = g_timeout_source_new(NM_SESSION_DRAIN_MS);
                        g_source_set_callback(grace, set_true_source, &expired, NULL);
                        g_source_attach(grace, s->context);
                }
                g_main_context_iteration(s->context, TRUE);
        }
        if (grace) {
                g_source_destroy(grace);
                g_source_unref(grace);
        }
        if (!s->result)
                g_set_error_literal(
                        error,
                        G_IO_ERROR,
                        G_IO_ERROR_TIMED_OUT,
                        "NetworkManager did not answer, nor did libnm give up the call after the deadline");
        return g_steal_pointer(&s->result);
}

bool nm_session_wait_until(NmSession *s, bool (*done)(void *userdata), void *userdata) {
        while (!done(userdata)) {
                if (s->timed_out)
                        return false;
                g_main_context_iteration(s->context, TRUE);
        }
        return true;
}

int nm_session_errno(const NmSession *s, const GError *error) {
        if (s->timed_out || g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
                return -ETIMEDOUT;
        return -EIO;
}

int nm_session_open(NmSession *s, unsigned timeout_ms, GError **error) {
        g_autofree char *address = NULL;

        *s = (NmSession){};
        s->context = g_main_context_new();
        g_main_context_push_thread_default(s->context);
        nm_session_arm(s, timeout_ms);

        /* A private connection rather than g_bus_get()'s shared one: it lives on our context only, and
         * it does not have exit-on-close set, so a restart of the system bus cannot SIGTERM halod. The
         * address comes from $DBUS_SYSTEM_BUS_ADDRESS or the well-known socket. */
        address = g_dbus_address_get_for_bus_sync(G_BUS_TYPE_SYSTEM, s->cancellable, error);
        if (!address)
                return -EIO;
        g_dbus_connection_new_for_address(
                address,
                G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION,
                /* observer= */ NULL,
                s->cancellable,
                nm_session_store_result,
                s);
        g_autoptr(GAsyncResult) bus_result = nm_session_wait_result(s, error);
        s->bus = bus_result ? g_dbus_connection_new_for_address_finish(bus_result, error) : NULL;
        if (!s->bus)
                return nm_session_errno(s, error ? *error : NULL);

        /* Permissions are not needed (halod runs as root) and fetching them costs a round trip. */
        s->client = g_object_new(
                NM_TYPE_CLIENT,
                NM_CLIENT_DBUS_CONNECTION,
                s->bus,
                NM_CLIENT_INSTANCE_FLAGS,
                (guint) NM_CLIENT_INSTANCE_FLAGS_NO_AUTO_FETCH_PERMISSIONS,
                NULL);
        g_async_initable_init_async(
                G_ASYNC_INITABLE(s->client), G_PRIORITY_DEFAULT, s->cancellable, nm_session_store_result, s);
        g_autoptr(GAsyncResult) init_result = nm_session_wait_result(s, error);
        if (!init_result || !g_async_initable_init_finish(G_ASYNC_INITABLE(s->client), init_result, error))
                return nm_session_errno(s, error ? *error : NULL);
        return 0;
}

static void set_true(gpointer userdata, GObject *gone) {
        *(bool *) userdata = true;
}

void nm_session_close(NmSession *s) {
        if (!s->context)
                return;

        if (s->client) {
                /* libnm keeps using the context until its busy watcher goes away; the context must be
                 * iterated until then, or pending calls would leak and run on a freed context. */
                GObject *watcher = nm_client_get_context_busy_watcher(s->client);
                bool released = false, expired = false;

                g_object_weak_ref(watcher, set_true, &released);
                g_clear_object(&s->client);

                GSource *drain = g_timeout_source_new(NM_SESSION_DRAIN_MS);
                g_source_set_callback(drain, set_true_source, &expired, NULL);
                g_source_attach(drain, s->context);
                while (!released && !expired)
                        g_main_context_iteration(s->context, TRUE);
                if (!released)
                        g_object_weak_unref(watcher, set_true, &released);
                g_source_destroy(drain);
                g_source_unref(drain);
        }
        if (s->bus) {
                /* Closing explicitly ends the bus connection now rather than whenever the GDBus worker
                 * drops its last reference. */
                g_dbus_connection_close_sync(s->bus, /* cancellable= */ NULL, /* error= */ NULL);
                g_clear_object(&s->bus);
        }
        disarm(s);
        while (g_main_context_pending(s->context))
                g_main_context_iteration(s->context, FALSE);
        g_clear_object(&s->result); /* a late answer the drain collected */
        g_main_context_pop_thread_default(s->context);
        g_clear_pointer(&s->context, g_main_context_unref);
}
