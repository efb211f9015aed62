/* SPDX-License-Identifier: MIT */
/* Applying one link through NetworkManager: what is there, whether halod may touch it, and the order
 * of the changes (lib/apply/nm/nm-change.c makes them; lib/apply/nm/nm-adopt.c takes a user's
 * connection over first when asked to). */

#include "apply/nm.h"
#include "apply/nm-module.h"
#include "apply/nm/nm-internal.h"
#include "basic/errorf.h"
#include "basic/macro.h"

static void apply_done(NmApply *a) {
        g_free(a->id);
        g_clear_object(&a->profile);
        g_clear_pointer(&a->previous, g_variant_unref);
        g_clear_pointer(&a->adoptees, g_ptr_array_unref);
        free(a->error);
}

int nm_apply_failf(NmApply *a, int r, const char *format, ...) {
        va_list ap;

        a->error = mfree(a->error);
        va_start(ap, format);
        r = verrorf(&a->error, r, format, ap);
        va_end(ap);
        return r;
}

/* A failed call: a timeout message naming the step, or NetworkManager's own words. */
int nm_apply_fail_call(NmApply *a, const GError *error) {
        int r = nm_session_errno(a->session, error);

        if (r == -ETIMEDOUT)
                return nm_apply_failf(
                        a,
                        r,
                        "NetworkManager did not answer within %u ms while %s for %s on %s; check that it runs "
                        "and responds (systemctl status NetworkManager)",
                        a->timeout_ms,
                        a->step,
                        a->id,
                        a->lp->ifname);
        return nm_apply_failf(
                a,
                r,
                "NetworkManager reported an error while %s for %s on %s: %s",
                a->step,
                a->id,
                a->lp->ifname,
                error ? error->message : "no reason given");
}

/* Finds halod's profile for this link. Any number but one or none is the user's to sort out. */
int nm_apply_find_profile(NmApply *a) {
        const GPtrArray *connections = nm_client_get_connections(a->session->client);
        g_autoptr(GString) uuids = g_string_new(NULL);
        unsigned n = 0;

        for (guint i = 0; i < connections->len; i++) {
                NMRemoteConnection *c = connections->pdata[i];

                if (!streq_ptr(nm_connection_get_id(NM_CONNECTION(c)), a->id))
                        continue;
                g_string_append_printf(
                        uuids, "%s%s", n > 0 ? ", " : "", nm_connection_get_uuid(NM_CONNECTION(c)));
                if (n++ == 0)
                        a->profile = g_object_ref(c);
        }
        if (n > 1) {
                g_clear_object(&a->profile);
                return nm_apply_failf(
                        a,
                        -ENOTUNIQ,
                        "%u NetworkManager profiles are called %s (%s); halod keeps one per link: delete the "
                        "others (nmcli connection delete uuid UUID) and apply again",
                        n,
                        a->id,
                        uuids->str);
        }
        return 0;
}

/* Decides about the connection that is active on the device now. Returns -EBUSY when it is a user's,
 * unless the apply is to take it over (lp->adopt: nm_adopt_find() finds it). */
static int check_device_holder(NmApply *a) {
        NMActiveConnection *ac = nm_device_get_active_connection(a->device);
        NMRemoteConnection *holder = ac ? nm_active_connection_get_connection(ac) : NULL;

        if (!ac)
                return 0;
        if (a->profile && holder == a->profile) {
                a->was_active = true;
                return 0;
        }
        /* NetworkManager's stand-ins for configuration it found on the device are nobody's profile;
         * halod's profiles for other links are halod's. Activating ours replaces either. A user's profile
         * is not halod's to take down: it would come back on its own (autoconnect) and the two would
         * fight over the link. */
        if (holder &&
            (nm_remote_connection_get_flags(holder) &
             (NM_SETTINGS_CONNECTION_FLAG_NM_GENERATED | NM_SETTINGS_CONNECTION_FLAG_EXTERNAL)))
                return 0;
        if (nm_profile_id_is_halod(nm_active_connection_get_id(ac)) || a->lp->adopt)
                return 0;
        return nm_apply_failf(
                a,
                -EBUSY,
                "%s is in use by NetworkManager connection \"%s\" (uuid %s), which halod did not create and "
                "does not change; nothing was changed. haloctl apply --adopt takes it over (it keeps the "
                "connection, renamed \"%s%s\" with autoconnect off, and haloctl unadopt gives it back; "
                "haloctl plan --adopt shows the change first), or take it off the interface yourself (nmcli "
                "connection down uuid %s, and nmcli connection modify uuid %s connection.autoconnect no) and "
                "apply again",
                a->lp->ifname,
                strna(nm_active_connection_get_id(ac)),
                strna(nm_active_connection_get_uuid(ac)),
                strna(nm_active_connection_get_id(ac)),
                NM_ADOPT_KEPT_SUFFIX,
                strna(nm_active_connection_get_uuid(ac)),
                strna(nm_active_connection_get_uuid(ac)));
}

/* NetworkManager does not fail an activation when firewalld rejects the zone: it logs a warning and
 * leaves the interface in no zone. So a zone firewalld does not have is refused before anything
 * changes. When firewalld does not run (or cannot be asked), NetworkManager keeps the zone for it. */
static int check_firewall(NmApply *a) {
        const NmModuleHost *host = nm_module_host();
        _cleanup_(freep) char *message = NULL;

        /* firewalld is asked through the program's sd-bus (NmModuleHost): the module links only libnm. */
        if (!a->lp->want.zone || !host)
                return 0;
        if (host->firewall_check_zone(a->lp->want.zone, &message) == -ENOENT)
                return nm_apply_failf(a, -ENOENT, "%s; %s was not changed", strna(message), a->id);
        return 0;
}

/* Ends the message with what became of the link: "...; the new profile was deleted again", and of
 * the connections it took over (put back, and the one that was active activated again). */
static int append_outcome(NmApply *a, int r, const char *outcome) {
        g_autofree char *message = g_strdup(a->error), *adoption = nm_adopt_rollback(a);

        return nm_apply_failf(
                a, r, "%s; %s%s%s", strna(message), outcome, adoption ? "; " : "", strempty(adoption));
}

int nm_apply_find_device(NmApply *a) {
        if (!nm_client_get_nm_running(a->session->client))
                return nm_apply_failf(
                        a,
                        -ENOTCONN,
                        "NetworkManager is not running, so %s cannot be applied through it; start it, or apply "
                        "with the netlink backend",
                        a->id);

        a->device = nm_client_get_device_by_iface(a->session->client, a->lp->ifname);
        if (!a->device)
                return nm_apply_failf(
                        a,
                        -ENODEV,
                        "NetworkManager does not know interface %s; nothing was changed. Check nmcli device "
                        "status",
                        a->lp->ifname);
        if (nm_device_get_state(a->device) == NM_DEVICE_STATE_UNMANAGED)
                return nm_apply_failf(
                        a,
                        -ENODEV,
                        "NetworkManager does not manage %s; nothing was changed. Let it manage the interface "
                        "(nmcli device set %s managed yes, and no unmanaged-devices entry for it), or stop "
                        "NetworkManager so that halod uses the netlink backend",
                        a->lp->ifname,
                        a->lp->ifname);
        return 0;
}

static int apply_in_session(NmApply *a) {
        g_autoptr(GError) error = NULL;
        g_autoptr(NMConnection) wanted = NULL;
        bool changed = false;
        int r;

        r = nm_apply_find_device(a);
        if (r < 0)
                return r;
        r = nm_apply_find_profile(a);
        if (r < 0)
                return r;
        r = check_device_holder(a);
        if (r < 0)
                return r;
        r = check_firewall(a);
        if (r < 0)
                return r;
        r = nm_adopt_find(a);
        if (r < 0)
                return r;

        wanted = nm_profile_build(a->lp, a->profile ? NM_CONNECTION(a->profile) : NULL, &error);
        if (!wanted)
                return nm_apply_failf(
                        a, -EINVAL, "cannot build NetworkManager profile %s: %s", a->id, error->message);

        /* The connections taken over are renamed before halod's profile replaces them, so that a
         * failure from here on can put them back by name (append_outcome()). */
        r = nm_adopt_keep(a);
        if (r < 0)
                return r;

        r = nm_change_write_profile(a, wanted, &changed);
        if (r < 0)
                /* A request NetworkManager received but did not answer in time may still be carried out
                 * when it answers again. */
                return append_outcome(
                        a,
                        r,
                        r == -ETIMEDOUT ? "the change may still take effect: check nmcli connection show"
                                        : "nothing was changed");
        /* Activating again would take the link down for a moment: not for nothing, and not for drift
         * that a reapply repairs in place. */
        if (!changed && nm_change_active_as_wanted(a, wanted)) {
                if (nm_change_link_shows_settings(a))
                        return 0;
                r = nm_change_reapply(a);
                return r < 0 ? append_outcome(a, r, "the profile was not changed") : 0;
        }
        r = nm_change_activate(a);
        if (r < 0)
                return append_outcome(a, r, nm_change_rollback(a));
        return 0;
}

int nm_apply_run(const LinkPlan *lp, unsigned timeout_ms, int (*fn)(NmApply *a), char **ret_error) {
        g_autoptr(GError) error = NULL;
        NmSession session;
        int r;

        _cleanup_(apply_done) NmApply a = {
                .session = &session,
                .lp = lp,
                .timeout_ms = timeout_ms,
                .id = nm_profile_id(lp->link),
                .step = "connecting",
        };
        r = nm_session_open(&session, timeout_ms, &error);
        if (r == -ETIMEDOUT)
                nm_apply_failf(
                        &a,
                        r,
                        "NetworkManager did not answer within %u ms; %s was not changed. Check that it runs and "
                        "responds (systemctl status NetworkManager)",
                        timeout_ms,
                        a.id);
        else if (r < 0)
                nm_apply_failf(
                        &a, r, "cannot talk to NetworkManager; %s was not changed: %s", a.id, error->message);
        else
                r = fn(&a);
        nm_session_close(&session);

        if (r < 0 && ret_error)
                *ret_error = TAKE_PTR(a.error) ?: strdup("out of memory");
        return r;
}

int nm_module_apply_link(const LinkPlan *lp, unsigned timeout_ms, char **ret_error) {
        if (!lp || isempty(lp->link) || isempty(lp->ifname) || lp->address.prefixlen < 1 ||
            lp->address.prefixlen > 32 || timeout_ms == 0) {
                if (ret_error)
                        *ret_error = strdup(
                                "incomplete link configuration: a link, an interface and an IPv4 "
                                "address with a prefix length are needed");
                return -EINVAL;
        }
        return nm_apply_run(lp, timeout_ms, apply_in_session, ret_error);
}
