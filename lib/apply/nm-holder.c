/* SPDX-License-Identifier: MIT */
/* Which NetworkManager connections hold a fabric interface, asked over sd-bus on the program's side:
 * haloctl plan --adopt, and apply deciding which links to take over, must not load libnm and GLib
 * (lib/apply/nm.h). The module (lib/apply/nm/nm-adopt.c) decides again with libnm when it acts, by
 * the same rule, nm_adopt_takes_over(). */
#include "config.h"

#include <stdio.h>
#include <systemd/sd-bus.h>

#include "apply/adopt.h"
#include "apply/nm.h"
#include "basic/errorf.h"

#define NM_BUS "org.freedesktop.NetworkManager"
#define NM_PATH "/org/freedesktop/NetworkManager"
#define NM_SETTINGS_PATH NM_PATH "/Settings"
#define NM_DEVICE_IFACE NM_BUS ".Device"
#define NM_ACTIVE_IFACE NM_BUS ".Connection.Active"
#define NM_SETTINGS_IFACE NM_BUS ".Settings"
#define NM_CONNECTION_IFACE NM_BUS ".Settings.Connection"
/* For each call; NetworkManager answers these from memory. */
#define NM_ASK_TIMEOUT_USEC (5U * 1000U * 1000U)

/* What the plan needs of one connection profile. */
typedef struct NmConnectionInfo {
        char *id, *uuid, *interface_name;
        bool autoconnect;
        uint32_t flags;
        /* The user data halod leaves on a connection it took over (NM_ADOPT_KEY_*). */
        char *adopted_link, *original_id, *original_autoconnect, *was_active;
} NmConnectionInfo;

static void connection_info_done(NmConnectionInfo *c) {
        free(c->id);
        free(c->uuid);
        free(c->interface_name);
        free(c->adopted_link);
        free(c->original_id);
        free(c->original_autoconnect);
        free(c->was_active);
}

static int read_string_variant(sd_bus_message *m, char **ret) {
        const char *s;
        int r;

        r = sd_bus_message_read(m, "v", "s", &s);
        if (r < 0)
                return r;
        free(*ret);
        *ret = strdup(s);
        return *ret ? 0 : -ENOMEM;
}

static char **user_data_slot(NmConnectionInfo *c, const char *key) {
        if (streq(key, NM_ADOPT_KEY_LINK))
                return &c->adopted_link;
        if (streq(key, NM_ADOPT_KEY_ID))
                return &c->original_id;
        if (streq(key, NM_ADOPT_KEY_AUTOCONNECT))
                return &c->original_autoconnect;
        if (streq(key, NM_ADOPT_KEY_ACTIVE))
                return &c->was_active;
        return NULL;
}

/* user.data, a{ss} in a variant. */
static int read_user_data(sd_bus_message *m, NmConnectionInfo *c) {
        int r;

        r = sd_bus_message_enter_container(m, 'v', "a{ss}");
        if (r < 0)
                return r;
        r = sd_bus_message_enter_container(m, 'a', "{ss}");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_enter_container(m, 'e', "ss")) > 0) {
                const char *key, *value;
                char **slot;

                r = sd_bus_message_read(m, "ss", &key, &value);
                if (r < 0)
                        return r;
                slot = user_data_slot(c, key);
                if (slot) {
                        free(*slot);
                        *slot = strdup(value);
                        if (!*slot)
                                return -ENOMEM;
                }
                r = sd_bus_message_exit_container(m);
                if (r < 0)
                        return r;
        }
        if (r < 0)
                return r;
        r = sd_bus_message_exit_container(m);
        if (r < 0)
                return r;
        return sd_bus_message_exit_container(m);
}

static int read_setting_value(sd_bus_message *m, const char *setting, const char *key, NmConnectionInfo *c) {
        int b, r;

        if (streq(setting, "connection")) {
                if (streq(key, "id"))
                        return read_string_variant(m, &c->id);
                if (streq(key, "uuid"))
                        return read_string_variant(m, &c->uuid);
                if (streq(key, "interface-name"))
                        return read_string_variant(m, &c->interface_name);
                if (streq(key, "autoconnect")) {
                        r = sd_bus_message_read(m, "v", "b", &b);
                        c->autoconnect = b;
                        return r;
                }
        } else if (streq(setting, "user") && streq(key, "data"))
                return read_user_data(m, c);
        return sd_bus_message_skip(m, "v");
}

/* GetSettings() answers a{sa{sv}}: setting name → property → value. */
static int read_settings(sd_bus_message *m, NmConnectionInfo *c) {
        int r;

        c->autoconnect = true; /* NetworkManager leaves out what has its default value */
        r = sd_bus_message_enter_container(m, 'a', "{sa{sv}}");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_enter_container(m, 'e', "sa{sv}")) > 0) {
                const char *setting;

                r = sd_bus_message_read(m, "s", &setting);
                if (r < 0)
                        return r;
                r = sd_bus_message_enter_container(m, 'a', "{sv}");
                if (r < 0)
                        return r;
                while ((r = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
                        const char *key;

                        r = sd_bus_message_read(m, "s", &key);
                        if (r < 0)
                                return r;
                        r = read_setting_value(m, setting, key, c);
                        if (r < 0)
                                return r;
                        r = sd_bus_message_exit_container(m);
                        if (r < 0)
                                return r;
                }
                if (r < 0)
                        return r;
                r = sd_bus_message_exit_container(m);
                if (r < 0)
                        return r;
                r = sd_bus_message_exit_container(m);
                if (r < 0)
                        return r;
        }
        if (r < 0)
                return r;
        return sd_bus_message_exit_container(m);
}

static int read_connection(sd_bus *bus, const char *path, NmConnectionInfo *ret, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        int r;

        r = sd_bus_call_method(bus, NM_BUS, path, NM_CONNECTION_IFACE, "GetSettings", error, &reply, NULL);
        if (r < 0)
                return r;
        r = read_settings(reply, ret);
        if (r < 0)
                return r;
        return sd_bus_get_property_trivial(
                bus, NM_BUS, path, NM_CONNECTION_IFACE, "Flags", error, 'u', &ret->flags);
}

static int get_object_property(
        sd_bus *bus, const char *path, const char *interface, const char *member, char **ret, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        const char *o;
        int r;

        r = sd_bus_get_property(bus, NM_BUS, path, interface, member, error, &reply, "o");
        if (r < 0)
                return r;
        r = sd_bus_message_read(reply, "o", &o);
        if (r < 0)
                return r;
        *ret = strdup(o);
        return *ret ? 0 : -ENOMEM;
}

/* The device's path, or NULL when NetworkManager does not run or does not know ifname. Does not start
 * NetworkManager through bus activation. */
static int find_device(sd_bus *bus, const char *ifname, char **ret, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;
        const char *path;
        int r;

        *ret = NULL;
        r = sd_bus_message_new_method_call(bus, &m, NM_BUS, NM_PATH, NM_BUS, "GetDeviceByIpIface");
        if (r < 0)
                return r;
        r = sd_bus_message_set_auto_start(m, false);
        if (r < 0)
                return r;
        r = sd_bus_message_append(m, "s", ifname);
        if (r < 0)
                return r;
        r = sd_bus_call(bus, m, 0, error, &reply);
        if (r < 0) {
                if (sd_bus_error_has_names(
                            error,
                            SD_BUS_ERROR_SERVICE_UNKNOWN,
                            SD_BUS_ERROR_NAME_HAS_NO_OWNER,
                            NM_BUS ".UnknownDevice")) {
                        sd_bus_error_free(error);
                        return 0;
                }
                return r;
        }
        r = sd_bus_message_read(reply, "o", &path);
        if (r < 0)
                return r;
        *ret = strdup(path);
        return *ret ? 0 : -ENOMEM;
}

/* The settings path of the connection active on the device, or NULL. */
static int find_active_connection(sd_bus *bus, const char *device, char **ret, sd_bus_error *error) {
        _cleanup_(freep) char *active = NULL;
        int r;

        *ret = NULL;
        r = get_object_property(bus, device, NM_DEVICE_IFACE, "ActiveConnection", &active, error);
        if (r < 0 || streq(active, "/"))
                return r;
        r = get_object_property(bus, active, NM_ACTIVE_IFACE, "Connection", ret, error);
        if (r < 0 && sd_bus_error_has_name(error, SD_BUS_ERROR_UNKNOWN_OBJECT)) {
                /* Deactivated between the two questions. */
                sd_bus_error_free(error);
                return 0;
        }
        return r;
}

static int adoption_from(
        const char *link, const char *ifname, const NmConnectionInfo *c, bool active_here, Adoptions *list) {
        bool adopted = c->adopted_link != NULL;
        Adoption a = {
                .link = strdup(link),
                .ifname = strdup(ifname),
                .id = strdup(strempty(c->id)),
                .uuid = strdup(strempty(c->uuid)),
                .active = active_here,
        };

        if (nm_adopt_takes_over(
                    c->id, c->flags, active_here, streq_ptr(c->interface_name, ifname), c->autoconnect, adopted)) {
                /* Taken over again (someone activated it by hand): it keeps the name it has. */
                if (adopted)
                        a.other_id = strdup(strempty(c->id));
                else if (asprintf(&a.other_id, "%s" NM_ADOPT_KEPT_SUFFIX, strempty(c->id)) < 0)
                        a.other_id = NULL;
                a.autoconnect = c->autoconnect;
        } else if (streq_ptr(c->adopted_link, link)) {
                a.kept = true;
                a.other_id = strdup(c->original_id ?: strempty(c->id));
                a.autoconnect = !streq_ptr(c->original_autoconnect, "no");
                a.reactivate = streq_ptr(c->was_active, "yes");
        } else {
                adoption_done(&a);
                return 0;
        }
        if (!a.link || !a.ifname || !a.id || !a.uuid || !a.other_id) {
                adoption_done(&a);
                return -ENOMEM;
        }
        return adoptions_add(list, &a);
}

static int find_adoptions(
        sd_bus *bus, const char *link, const char *ifname, Adoptions *list, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(freep) char *device = NULL, *active = NULL;
        const char *path;
        int r;

        r = find_device(bus, ifname, &device, error);
        if (r < 0 || !device)
                return r;
        r = find_active_connection(bus, device, &active, error);
        if (r < 0)
                return r;

        r = sd_bus_call_method(
                bus, NM_BUS, NM_SETTINGS_PATH, NM_SETTINGS_IFACE, "ListConnections", error, &reply, NULL);
        if (r < 0)
                return r;
        r = sd_bus_message_enter_container(reply, 'a', "o");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_read(reply, "o", &path)) > 0) {
                NmConnectionInfo c = {};

                r = read_connection(bus, path, &c, error);
                if (r >= 0)
                        r = adoption_from(link, ifname, &c, streq_ptr(path, active), list);
                connection_info_done(&c);
                if (r < 0 && sd_bus_error_has_name(error, SD_BUS_ERROR_UNKNOWN_OBJECT)) {
                        /* Deleted since the list was made. */
                        sd_bus_error_free(error);
                        continue;
                }
                if (r < 0)
                        return r;
        }
        return r;
}

int nm_find_adoptions(const char *link, const char *ifname, Adoptions *list, char **ret_error) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;

        if (!link || !ifname || !list)
                return -EINVAL;
        /* No system bus: no NetworkManager either. */
        if (sd_bus_open_system(&bus) < 0)
                return 0;
        r = sd_bus_set_method_call_timeout(bus, NM_ASK_TIMEOUT_USEC);
        if (r < 0)
                return r;

        r = find_adoptions(bus, link, ifname, list, &error);
        if (r == -ENOMEM)
                return r;
        if (r == -ETIMEDOUT)
                return errorf(
                        ret_error,
                        r,
                        "NetworkManager did not answer within %u s when asked which connections hold %s; check that "
                        "it runs and responds (systemctl status NetworkManager)",
                        NM_ASK_TIMEOUT_USEC / 1000000U,
                        ifname);
        if (r < 0)
                return errorf(
                        ret_error,
                        r,
                        "cannot ask NetworkManager which connections hold %s: %s",
                        ifname,
                        sd_bus_error_is_set(&error) ? error.message : strerror(-r));
        return 0;
}
