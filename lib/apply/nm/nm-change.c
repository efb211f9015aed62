/* SPDX-License-Identifier: MIT */
/* The changes an apply makes in NetworkManager: the profile written, activated or reapplied, and
 * rolled back when the activation fails. */

#include "apply/nm.h"
#include "apply/nm/nm-internal.h"
#include "basic/macro.h"

/* Creates the profile, or updates it in place; sets *ret_changed. */
int nm_change_write_profile(NmApply *a, NMConnection *wanted, bool *ret_changed) {
        g_autoptr(GAsyncResult) result = NULL;
        g_autoptr(GError) error = NULL;

        /* Blocking autoconnect keeps NetworkManager from activating the profile on its own before we
         * do; autoconnect stays on for the next boot. */
        if (!a->profile) {
                a->step = "adding the profile";
                nm_client_add_connection2(
                        a->session->client,
                        nm_connection_to_dbus(wanted, NM_CONNECTION_SERIALIZE_ALL),
                        NM_SETTINGS_ADD_CONNECTION2_FLAG_TO_DISK |
                                NM_SETTINGS_ADD_CONNECTION2_FLAG_BLOCK_AUTOCONNECT,
                        /* args= */ NULL,
                        /* ignore_out_result= */ TRUE,
                        a->session->cancellable,
                        nm_session_store_result,
                        a->session);
                result = nm_session_wait_result(a->session, &error);
                a->profile = result
                        ? nm_client_add_connection2_finish(a->session->client, result, NULL, &error)
                        : NULL;
                if (!a->profile)
                        return nm_apply_fail_call(a, error);
                a->created = true;
                *ret_changed = true;
                return 0;
        }

        if (nm_profile_owned_equal(wanted, NM_CONNECTION(a->profile))) {
                *ret_changed = false;
                return 0;
        }

        a->step = "updating the profile";
        a->previous = g_variant_ref_sink(
                nm_connection_to_dbus(NM_CONNECTION(a->profile), NM_CONNECTION_SERIALIZE_ALL));
        nm_remote_connection_update2(
                a->profile,
                nm_connection_to_dbus(wanted, NM_CONNECTION_SERIALIZE_ALL),
                NM_SETTINGS_UPDATE2_FLAG_TO_DISK | NM_SETTINGS_UPDATE2_FLAG_BLOCK_AUTOCONNECT,
                /* args= */ NULL,
                a->session->cancellable,
                nm_session_store_result,
                a->session);
        result = nm_session_wait_result(a->session, &error);
        g_autoptr(GVariant) out = result ? nm_remote_connection_update2_finish(a->profile, result, &error)
                                         : NULL;
        if (!out) {
                g_clear_pointer(&a->previous, g_variant_unref); /* nothing changed */
                return nm_apply_fail_call(a, error);
        }
        *ret_changed = true;
        return 0;
}

/* True when the profile is active on the device with exactly what we want applied. */
bool nm_change_active_as_wanted(NmApply *a, NMConnection *wanted) {
        g_autoptr(GAsyncResult) result = NULL;
        g_autoptr(GError) error = NULL;
        NMActiveConnection *ac = nm_device_get_active_connection(a->device);

        if (!ac || nm_active_connection_get_connection(ac) != a->profile ||
            nm_active_connection_get_state(ac) != NM_ACTIVE_CONNECTION_STATE_ACTIVATED)
                return false;

        a->step = "reading the applied settings";
        nm_device_get_applied_connection_async(
                a->device, 0, a->session->cancellable, nm_session_store_result, a->session);
        result = nm_session_wait_result(a->session, &error);
        g_autoptr(NMConnection) applied = result
                ? nm_device_get_applied_connection_finish(a->device, result, NULL, &error)
                : NULL;
        /* Not knowing means activating: that is what would be done without this shortcut. */
        return applied && nm_profile_owned_equal(applied, wanted);
}

/* True when the link still shows the applied settings, as the plan compared them with the kernel and
 * firewalld: someone may have changed them behind NetworkManager's back. */
bool nm_change_link_shows_settings(const NmApply *a) {
        return link_plan_shows_settings(a->lp);
}

/* Puts the applied settings back on the link (MTU, addresses, firewalld zone) without taking it down. */
int nm_change_reapply(NmApply *a) {
        g_autoptr(GAsyncResult) result = NULL;
        g_autoptr(GError) error = NULL;

        a->step = "reapplying the profile";
        nm_device_reapply_async(
                a->device,
                /* connection= */ NULL,
                /* version_id= */ 0,
                /* flags= */ 0,
                a->session->cancellable,
                nm_session_store_result,
                a->session);
        result = nm_session_wait_result(a->session, &error);
        if (!result || !nm_device_reapply_finish(a->device, result, &error))
                return nm_apply_fail_call(a, error);
        return 0;
}

static bool activation_settled(void *userdata) {
        NMActiveConnection *ac = userdata;

        /* An active connection that left libnm's cache is gone: NetworkManager dropped it. */
        return nm_active_connection_get_state(ac) >= NM_ACTIVE_CONNECTION_STATE_ACTIVATED ||
                !nm_object_get_client(NM_OBJECT(ac));
}

int nm_change_activate(NmApply *a) {
        g_autoptr(GAsyncResult) result = NULL;
        g_autoptr(GError) error = NULL;

        a->step = "activating the profile";
        nm_client_activate_connection_async(
                a->session->client,
                NM_CONNECTION(a->profile),
                a->device,
                /* specific_object= */ NULL,
                a->session->cancellable,
                nm_session_store_result,
                a->session);
        result = nm_session_wait_result(a->session, &error);
        g_autoptr(NMActiveConnection)
                ac = result ? nm_client_activate_connection_finish(a->session->client, result, &error) : NULL;
        if (!ac)
                return nm_apply_fail_call(a, error);

        a->step = "waiting for the activation";
        if (!nm_session_wait_until(a->session, activation_settled, ac))
                return nm_apply_failf(
                        a,
                        -ETIMEDOUT,
                        "NetworkManager did not complete the activation of %s on %s within %u ms; see "
                        "journalctl -u NetworkManager",
                        a->id,
                        a->lp->ifname,
                        a->timeout_ms);
        if (nm_active_connection_get_state(ac) == NM_ACTIVE_CONNECTION_STATE_ACTIVATED)
                return 0;

        unsigned reason = nm_active_connection_get_state_reason(ac);
        g_autofree char *device_reason = nm_utils_enum_to_str(
                NM_TYPE_DEVICE_STATE_REASON, nm_device_get_state_reason(a->device));
        return nm_apply_failf(
                a,
                -EIO,
                "NetworkManager could not activate %s on %s: %s (reason %u; device: %s); see journalctl -u "
                "NetworkManager",
                a->id,
                a->lp->ifname,
                nm_active_state_reason_to_string(reason),
                reason,
                strna(device_reason));
}

/* Puts the profile back as it was before this apply. Returns a phrase for the error message. */
const char *nm_change_rollback(NmApply *a) {
        g_autoptr(GAsyncResult) result = NULL;
        g_autoptr(GError) error = NULL;

        if (!a->created && !a->previous)
                return "the profile was not changed";

        nm_session_arm(a->session, MIN(a->timeout_ms, NM_ROLLBACK_TIMEOUT_MS));
        if (a->created) {
                nm_remote_connection_delete_async(
                        a->profile, a->session->cancellable, nm_session_store_result, a->session);
                result = nm_session_wait_result(a->session, &error);
                if (!result || !nm_remote_connection_delete_finish(a->profile, result, &error))
                        return "deleting the new profile failed too: check nmcli connection show";
                return "the new profile was deleted again";
        }

        nm_remote_connection_update2(
                a->profile,
                a->previous,
                NM_SETTINGS_UPDATE2_FLAG_TO_DISK,
                /* args= */ NULL,
                a->session->cancellable,
                nm_session_store_result,
                a->session);
        result = nm_session_wait_result(a->session, &error);
        g_autoptr(GVariant) out = result ? nm_remote_connection_update2_finish(a->profile, result, &error)
                                         : NULL;
        if (!out)
                return "restoring the profile's previous settings failed too: check nmcli connection show";
        if (!a->was_active)
                return "the profile's previous settings were restored";

        /* Our activation took the old settings off the link: put them back on. */
        g_clear_object(&result);
        nm_client_activate_connection_async(
                a->session->client,
                NM_CONNECTION(a->profile),
                a->device,
                /* specific_object= */ NULL,
                a->session->cancellable,
                nm_session_store_result,
                a->session);
        result = nm_session_wait_result(a->session, &error);
        g_autoptr(NMActiveConnection)
                ac = result ? nm_client_activate_connection_finish(a->session->client, result, &error) : NULL;
        if (!ac || !nm_session_wait_until(a->session, activation_settled, ac) ||
            nm_active_connection_get_state(ac) != NM_ACTIVE_CONNECTION_STATE_ACTIVATED)
                return "the profile's previous settings were restored, but activating them again failed";
        return "the profile's previous settings were restored and are active again";
}
