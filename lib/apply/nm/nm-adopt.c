/* SPDX-License-Identifier: MIT */
/* haloctl apply --adopt and haloctl unadopt in NetworkManager. A user's connection that holds the
 * fabric interface is kept, renamed "<id> (before halod)", with autoconnect off and marked in its user
 * setting with what it takes to give it back (NM_ADOPT_KEY_* in lib/apply/nm.h); halod's profile then
 * replaces it on the interface. unadopt puts the connection back as it was, activates it again and
 * deletes halod's profile. A step that fails undoes the ones before it. */

#include "apply/nm.h"
#include "apply/nm/nm-internal.h"
#include "basic/macro.h"

G_STATIC_ASSERT(
        NM_SETTINGS_FLAGS_NOT_A_PROFILE ==
        (NM_SETTINGS_CONNECTION_FLAG_NM_GENERATED | NM_SETTINGS_CONNECTION_FLAG_EXTERNAL));

static const char *const adopt_keys[] = {
        NM_ADOPT_KEY_LINK,
        NM_ADOPT_KEY_ID,
        NM_ADOPT_KEY_AUTOCONNECT,
        NM_ADOPT_KEY_ACTIVE,
};

static void adoptee_free(gpointer p) {
        NmAdoptee *t = p;

        g_clear_object(&t->connection);
        g_clear_pointer(&t->previous, g_variant_unref);
        g_free(t->name);
        g_free(t);
}

static NMSettingUser *user_setting(NMConnection *c) {
        NMSetting *s = nm_connection_get_setting(c, NM_TYPE_SETTING_USER);

        return s ? NM_SETTING_USER(s) : NULL;
}

static const char *user_data(NMConnection *c, const char *key) {
        NMSettingUser *u = user_setting(c);

        return u ? nm_setting_user_get_data(u, key) : NULL;
}

static void add_adoptee(NmApply *a, NMRemoteConnection *c, bool was_active) {
        NmAdoptee *t = g_new0(NmAdoptee, 1);

        if (!a->adoptees)
                a->adoptees = g_ptr_array_new_with_free_func(adoptee_free);
        t->connection = g_object_ref(c);
        t->was_active = was_active;
        /* libnm's copy of the settings follows a change only when NetworkManager's signal arrives, so
         * the name for messages is taken now: the one it had before it was taken over. */
        t->name = g_strdup(
                user_data(NM_CONNECTION(c), NM_ADOPT_KEY_ID) ?: strna(nm_connection_get_id(NM_CONNECTION(c))));
        g_ptr_array_add(a->adoptees, t);
}

static bool active_on_device(NmApply *a, NMRemoteConnection *c) {
        NMActiveConnection *ac = nm_device_get_active_connection(a->device);

        return ac && nm_active_connection_get_connection(ac) == c;
}

int nm_adopt_find(NmApply *a) {
        const GPtrArray *connections = nm_client_get_connections(a->session->client);

        if (!a->lp->adopt)
                return 0;
        for (guint i = 0; i < connections->len; i++) {
                NMRemoteConnection *c = connections->pdata[i];
                NMSettingConnection *s = nm_connection_get_setting_connection(NM_CONNECTION(c));
                bool here = active_on_device(a, c);

                if (s &&
                    nm_adopt_takes_over(
                            nm_setting_connection_get_id(s),
                            nm_remote_connection_get_flags(c),
                            here,
                            streq_ptr(nm_setting_connection_get_interface_name(s), a->lp->ifname),
                            nm_setting_connection_get_autoconnect(s),
                            user_data(NM_CONNECTION(c), NM_ADOPT_KEY_LINK) != NULL))
                        add_adoptee(a, c, here);
        }
        return 0;
}

static bool update(NmApply *a, NMRemoteConnection *c, GVariant *settings, GError **error) {
        g_autoptr(GAsyncResult) result = NULL;

        /* No TO_DISK or IN_MEMORY: the connection stays stored where its owner put it. */
        nm_remote_connection_update2(
                c,
                settings,
                NM_SETTINGS_UPDATE2_FLAG_NONE,
                /* args= */ NULL,
                a->session->cancellable,
                nm_session_store_result,
                a->session);
        result = nm_session_wait_result(a->session, error);
        g_autoptr(GVariant) out = result ? nm_remote_connection_update2_finish(c, result, error) : NULL;
        return out != NULL;
}

/* Changes t to settings, remembering its settings before for restore_previous(). */
static int change(NmApply *a, NmAdoptee *t, GVariant *settings, const char *what) {
        g_autoptr(GError) error = NULL;
        g_autofree char *step = g_strdup_printf("%s NetworkManager connection \"%s\"", what, t->name);
        GVariant *previous = g_variant_ref_sink(
                nm_connection_to_dbus(NM_CONNECTION(t->connection), NM_CONNECTION_SERIALIZE_ALL));

        a->step = step;
        if (!update(a, t->connection, settings, &error)) {
                g_variant_unref(previous);
                return nm_apply_fail_call(a, error);
        }
        t->previous = previous;
        return 0;
}

NMConnection *nm_adopt_kept_connection(NMConnection *c, const char *link, bool was_active, GError **error) {
        g_autoptr(NMConnection) k = nm_simple_connection_new_clone(c);
        NMSettingConnection *s = nm_connection_get_setting_connection(k);
        NMSettingUser *u = user_setting(k);

        if (!s) {
                g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "it has no connection setting");
                return NULL;
        }
        if (!u) {
                u = NM_SETTING_USER(nm_setting_user_new());
                nm_connection_add_setting(k, NM_SETTING(u)); /* takes the reference */
        }
        if (!nm_setting_user_get_data(u, NM_ADOPT_KEY_LINK)) {
                const char *id = strempty(nm_setting_connection_get_id(s));
                g_autofree char *kept = g_strconcat(id, NM_ADOPT_KEPT_SUFFIX, NULL);

                if (!nm_setting_user_set_data(u, NM_ADOPT_KEY_LINK, link, error) ||
                    !nm_setting_user_set_data(u, NM_ADOPT_KEY_ID, id, error) ||
                    !nm_setting_user_set_data(
                            u,
                            NM_ADOPT_KEY_AUTOCONNECT,
                            nm_setting_connection_get_autoconnect(s) ? "yes" : "no",
                            error) ||
                    !nm_setting_user_set_data(u, NM_ADOPT_KEY_ACTIVE, was_active ? "yes" : "no", error))
                        return NULL;
                g_object_set(s, NM_SETTING_CONNECTION_ID, kept, NULL);
        }
        g_object_set(s, NM_SETTING_CONNECTION_AUTOCONNECT, FALSE, NULL);
        return g_steal_pointer(&k);
}

NMConnection *nm_adopt_given_back_connection(NMConnection *c, GError **error) {
        g_autoptr(NMConnection) k = nm_simple_connection_new_clone(c);
        NMSettingConnection *s = nm_connection_get_setting_connection(k);
        NMSettingUser *u = user_setting(k);
        guint n_keys = 0;

        if (!s || !u || !nm_setting_user_get_data(u, NM_ADOPT_KEY_LINK)) {
                g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "it carries no " NM_ADOPT_KEY_LINK);
                return NULL;
        }
        const char *id = nm_setting_user_get_data(u, NM_ADOPT_KEY_ID);
        if (id)
                g_object_set(s, NM_SETTING_CONNECTION_ID, id, NULL);
        g_object_set(
                s,
                NM_SETTING_CONNECTION_AUTOCONNECT,
                !streq_ptr(nm_setting_user_get_data(u, NM_ADOPT_KEY_AUTOCONNECT), "no"),
                NULL);
        for (size_t i = 0; i < ELEMENTSOF(adopt_keys); i++)
                if (!nm_setting_user_set_data(u, adopt_keys[i], NULL, error))
                        return NULL;
        /* Nothing else was in the user setting: leave no empty one behind. */
        (void) nm_setting_user_get_keys(u, &n_keys);
        if (n_keys == 0)
                nm_connection_remove_setting(k, NM_TYPE_SETTING_USER);
        return g_steal_pointer(&k);
}

static GVariant *settings_or_null(NMConnection *c) {
        g_autoptr(NMConnection) owned = c;

        return owned ? nm_connection_to_dbus(owned, NM_CONNECTION_SERIALIZE_ALL) : NULL;
}

/* Puts back the settings of every connection this call changed. Returns false when one could not be
 * put back. */
static bool restore_previous(NmApply *a) {
        bool ok = true;

        for (guint i = 0; a->adoptees && i < a->adoptees->len; i++) {
                NmAdoptee *t = a->adoptees->pdata[i];
                g_autoptr(GError) error = NULL;

                if (!t->previous)
                        continue;
                if (update(a, t->connection, t->previous, &error))
                        g_clear_pointer(&t->previous, g_variant_unref);
                else
                        ok = false;
        }
        return ok;
}

static bool activation_settled(void *userdata) {
        NMActiveConnection *ac = userdata;

        /* An active connection that left libnm's cache is gone: NetworkManager dropped it. */
        return nm_active_connection_get_state(ac) >= NM_ACTIVE_CONNECTION_STATE_ACTIVATED ||
                !nm_object_get_client(NM_OBJECT(ac));
}

/* Waits until ac is active; when it is not, says why in error. */
static bool wait_activated(NmApply *a, NMActiveConnection *ac, GError **error) {
        if (!nm_session_wait_until(a->session, activation_settled, ac)) {
                g_set_error(error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT, "the activation did not complete in time");
                return false;
        }
        if (nm_active_connection_get_state(ac) == NM_ACTIVE_CONNECTION_STATE_ACTIVATED)
                return true;
        g_set_error(
                error,
                G_IO_ERROR,
                G_IO_ERROR_FAILED,
                "%s",
                nm_active_state_reason_to_string(nm_active_connection_get_state_reason(ac)));
        return false;
}

/* Activates c on the device and waits. Returns true when it is active. */
static bool activate(NmApply *a, NMRemoteConnection *c, GError **error) {
        g_autoptr(GAsyncResult) result = NULL;

        nm_client_activate_connection_async(
                a->session->client,
                NM_CONNECTION(c),
                a->device,
                /* specific_object= */ NULL,
                a->session->cancellable,
                nm_session_store_result,
                a->session);
        result = nm_session_wait_result(a->session, error);
        g_autoptr(NMActiveConnection)
                ac = result ? nm_client_activate_connection_finish(a->session->client, result, error) : NULL;
        return ac && wait_activated(a, ac, error);
}

/* Activates c again on the device. NetworkManager may have begun that by itself (autoconnect, back on
 * with the settings put back): then that activation is the one to wait for. */
static bool reactivate(NmApply *a, NMRemoteConnection *c, GError **error) {
        NMActiveConnection *ac = nm_device_get_active_connection(a->device);

        if (ac && nm_active_connection_get_connection(ac) == c) {
                g_autoptr(NMActiveConnection) started = g_object_ref(ac);

                return wait_activated(a, started, error);
        }
        return activate(a, c, error);
}

static bool changed_any(const NmApply *a) {
        for (guint i = 0; a->adoptees && i < a->adoptees->len; i++)
                if (((NmAdoptee *) a->adoptees->pdata[i])->previous)
                        return true;
        return false;
}

int nm_adopt_keep(NmApply *a) {
        for (guint i = 0; a->adoptees && i < a->adoptees->len; i++) {
                NmAdoptee *t = a->adoptees->pdata[i];
                g_autoptr(GError) error = NULL;
                GVariant *kept = settings_or_null(nm_adopt_kept_connection(
                        NM_CONNECTION(t->connection), a->lp->link, t->was_active, &error));
                int r;

                if (!kept)
                        r = nm_apply_failf(
                                a,
                                -EINVAL,
                                "cannot mark NetworkManager connection \"%s\" as taken over: %s",
                                t->name,
                                error->message);
                else
                        r = change(a, t, kept, "renaming");
                if (r < 0) {
                        g_autofree char *message = g_strdup(a->error), *outcome = nm_adopt_rollback(a);
                        return nm_apply_failf(a, r, "%s; %s", strna(message), outcome ?: "nothing was changed");
                }
        }
        return 0;
}

char *nm_adopt_rollback(NmApply *a) {
        NmAdoptee *was_active = NULL;

        if (!changed_any(a))
                return NULL;
        nm_session_arm(a->session, MIN(a->timeout_ms, NM_ROLLBACK_TIMEOUT_MS));
        if (!restore_previous(a))
                return g_strdup(
                        "putting back the NetworkManager connections it took over failed too: check nmcli "
                        "connection show for names ending in \"" NM_ADOPT_KEPT_SUFFIX "\"");

        for (guint i = 0; i < a->adoptees->len && !was_active; i++)
                if (((NmAdoptee *) a->adoptees->pdata[i])->was_active)
                        was_active = a->adoptees->pdata[i];
        if (!was_active)
                return g_strdup("the NetworkManager connections it took over were put back as they were");
        g_autoptr(GError) error = NULL;
        if (!reactivate(a, was_active->connection, &error))
                return g_strdup_printf(
                        "NetworkManager connection \"%s\" was put back as it was, but activating it again failed: "
                        "nmcli connection up uuid %s",
                        was_active->name,
                        nm_connection_get_uuid(NM_CONNECTION(was_active->connection)));
        return g_strdup_printf(
                "NetworkManager connection \"%s\" was put back as it was and is active again",
                was_active->name);
}

/* Gives every kept connection its settings back; when one fails, puts back those done. */
static int give_back_settings(NmApply *a) {
        for (guint i = 0; i < a->adoptees->len; i++) {
                NmAdoptee *t = a->adoptees->pdata[i];
                g_autoptr(GError) error = NULL;
                GVariant *settings = settings_or_null(
                        nm_adopt_given_back_connection(NM_CONNECTION(t->connection), &error));
                int r;

                if (!settings)
                        r = nm_apply_failf(
                                a,
                                -EINVAL,
                                "cannot remove halod's marks from NetworkManager connection \"%s\": %s",
                                t->name,
                                error->message);
                else
                        r = change(a, t, settings, "restoring");
                if (r < 0) {
                        g_autofree char *message = g_strdup(a->error);

                        nm_session_arm(a->session, MIN(a->timeout_ms, NM_ROLLBACK_TIMEOUT_MS));
                        return nm_apply_failf(
                                a,
                                r,
                                "%s; %s",
                                strna(message),
                                restore_previous(a) ? "nothing was changed"
                                                    : "putting back the connections restored so far failed too: "
                                                      "check nmcli connection show");
                }
        }
        return 0;
}

static int unadopt_in_session(NmApply *a) {
        const GPtrArray *connections = nm_client_get_connections(a->session->client);
        NmAdoptee *activate_again = NULL;
        bool profile_active;
        int r;

        r = nm_apply_find_device(a);
        if (r < 0)
                return r;
        r = nm_apply_find_profile(a);
        if (r < 0)
                return r;
        profile_active = a->profile && active_on_device(a, a->profile);

        for (guint i = 0; i < connections->len; i++) {
                NMRemoteConnection *c = connections->pdata[i];

                if (streq_ptr(user_data(NM_CONNECTION(c), NM_ADOPT_KEY_LINK), a->lp->link))
                        add_adoptee(a, c, streq_ptr(user_data(NM_CONNECTION(c), NM_ADOPT_KEY_ACTIVE), "yes"));
        }
        if (!a->adoptees)
                return nm_apply_failf(
                        a,
                        -ENOENT,
                        "no NetworkManager connection was taken over for %s (none has " NM_ADOPT_KEY_LINK
                        "=%s in its user data); nothing was changed",
                        a->lp->link,
                        a->lp->link);

        r = give_back_settings(a);
        if (r < 0)
                return r;

        for (guint i = 0; i < a->adoptees->len && !activate_again; i++)
                if (((NmAdoptee *) a->adoptees->pdata[i])->was_active)
                        activate_again = a->adoptees->pdata[i];
        if (activate_again) {
                g_autoptr(GError) error = NULL;

                a->step = "activating the connection given back";
                if (!reactivate(a, activate_again->connection, &error)) {
                        bool timed_out = a->session->timed_out;
                        g_autofree char *why = g_strdup(
                                error ? error->message : "see journalctl -u NetworkManager");
                        bool restored, reactivated = false;

                        nm_session_arm(a->session, MIN(a->timeout_ms, NM_ROLLBACK_TIMEOUT_MS));
                        restored = restore_previous(a);
                        if (restored && profile_active) {
                                g_clear_error(&error);
                                reactivated = reactivate(a, a->profile, &error);
                        }
                        g_autofree char *outcome = !restored
                                ? g_strdup("putting halod's marks back failed too: check nmcli connection show")
                                : !profile_active ? g_strdup("it stays taken over, as it was")
                                : reactivated
                                ? g_strdup_printf("it stays taken over, and %s is active again", a->id)
                                : g_strdup_printf(
                                          "it stays taken over, but activating %s again failed: nmcli connection "
                                          "up id %s",
                                          a->id,
                                          a->id);
                        return nm_apply_failf(
                                a,
                                timed_out ? -ETIMEDOUT : -EIO,
                                "NetworkManager could not activate connection \"%s\" on %s (%s); %s",
                                activate_again->name,
                                a->lp->ifname,
                                why,
                                outcome);
                }
        }

        if (a->profile) {
                g_autoptr(GAsyncResult) result = NULL;
                g_autoptr(GError) error = NULL;

                a->step = "deleting halod's profile";
                nm_remote_connection_delete_async(
                        a->profile, a->session->cancellable, nm_session_store_result, a->session);
                result = nm_session_wait_result(a->session, &error);
                if (!result || !nm_remote_connection_delete_finish(a->profile, result, &error)) {
                        nm_apply_fail_call(a, error);
                        g_autofree char *message = g_strdup(a->error);
                        return nm_apply_failf(
                                a,
                                -EIO,
                                "%s; the connections were given back, but %s is left: delete it with nmcli "
                                "connection delete uuid %s",
                                strna(message),
                                a->id,
                                nm_connection_get_uuid(NM_CONNECTION(a->profile)));
                }
        }
        return 0;
}

int nm_module_unadopt_link(const char *link, const char *ifname, unsigned timeout_ms, char **ret_error) {
        /* The session takes a plan: this one names the link and nothing to change. */
        LinkPlan lp = { .link = (char *) link, .ifname = (char *) ifname };

        if (isempty(link) || isempty(ifname) || timeout_ms == 0) {
                if (ret_error)
                        *ret_error = strdup(
                                "incomplete link configuration: a link and an interface are needed");
                return -EINVAL;
        }
        return nm_apply_run(&lp, timeout_ms, unadopt_in_session, ret_error);
}
