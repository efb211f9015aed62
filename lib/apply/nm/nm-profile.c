/* SPDX-License-Identifier: MIT */
/* The NetworkManager connection profile halod wants for one link: built from the link's plan (its want
 * and address), and compared on the properties halod owns. */

#include <arpa/inet.h>
#include <string.h>

#include "apply/nm.h"
#include "apply/nm/nm-internal.h"
#include "basic/macro.h"

char *nm_profile_id(const char *link) {
        return g_strconcat(NM_HALOD_ID_PREFIX, link, NULL);
}

bool nm_profile_id_is_halod(const char *id) {
        return id && startswith(id, NM_HALOD_ID_PREFIX);
}

const char *nm_profile_ipv6_method(bool ipv6) {
        /* "link-local" rather than "auto": RoCE needs only the IPv4 address and the fe80:: one, a
         * direct cable has no router to answer router solicitations, and with "auto" the activation
         * could wait on them. Global IPv6 addresses stay the administrator's business. */
        return ipv6 ? NM_SETTING_IP6_CONFIG_METHOD_LINK_LOCAL : NM_SETTING_IP6_CONFIG_METHOD_DISABLED;
}

static NMSetting *ensure_setting(NMConnection *c, GType type) {
        NMSetting *s = nm_connection_get_setting(c, type);

        if (!s) {
                s = g_object_new(type, NULL);
                nm_connection_add_setting(c, s); /* takes the reference */
        }
        return s;
}

NMConnection *nm_profile_build(const LinkPlan *lp, NMConnection *base, GError **error) {
        g_autoptr(NMConnection) c = NULL;
        g_autofree char *id = nm_profile_id(lp->link);
        g_autofree char *uuid = NULL;
        char address[INET_ADDRSTRLEN];

        if (!inet_ntop(AF_INET, &lp->address.address, address, sizeof address)) {
                g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "invalid IPv4 address");
                return NULL;
        }

        if (base && nm_connection_is_type(base, NM_SETTING_WIRED_SETTING_NAME))
                c = nm_simple_connection_new_clone(base);
        else {
                /* A new profile, or one that someone turned into another type: start afresh, keeping
                 * the UUID so that it stays the same profile for NetworkManager. */
                c = nm_simple_connection_new();
                uuid = base ? g_strdup(nm_connection_get_uuid(base)) : nm_utils_uuid_generate();
        }

        NMSetting *s_con = ensure_setting(c, NM_TYPE_SETTING_CONNECTION);
        g_object_set(
                s_con,
                NM_SETTING_CONNECTION_ID,
                id,
                NM_SETTING_CONNECTION_TYPE,
                NM_SETTING_WIRED_SETTING_NAME,
                NM_SETTING_CONNECTION_INTERFACE_NAME,
                lp->ifname,
                NM_SETTING_CONNECTION_AUTOCONNECT,
                TRUE,
                NULL);
        if (uuid)
                g_object_set(s_con, NM_SETTING_CONNECTION_UUID, uuid, NULL);

        /* A zone or MTU the profile leaves alone is not halod's: an existing profile keeps its own, a new
         * one gets NetworkManager's default (no zone: firewalld's default zone; MTU 0: leave it). */
        if (lp->want.zone)
                g_object_set(s_con, NM_SETTING_CONNECTION_ZONE, lp->want.zone, NULL);
        NMSetting *s_wired = ensure_setting(c, NM_TYPE_SETTING_WIRED);
        if (lp->want.mtu > 0)
                g_object_set(s_wired, NM_SETTING_WIRED_MTU, (guint) lp->want.mtu, NULL);

        NMSettingIPConfig *s_ip4 = NM_SETTING_IP_CONFIG(ensure_setting(c, NM_TYPE_SETTING_IP4_CONFIG));
        NMIPAddress *a = nm_ip_address_new(AF_INET, address, lp->address.prefixlen, error);
        if (!a)
                return NULL;
        g_object_set(s_ip4, NM_SETTING_IP_CONFIG_METHOD, NM_SETTING_IP4_CONFIG_METHOD_MANUAL, NULL);
        nm_setting_ip_config_clear_addresses(s_ip4);
        nm_setting_ip_config_add_address(s_ip4, a);
        nm_ip_address_unref(a);

        /* Neither "disabled" nor "link-local" allows static IPv6 addresses or a gateway. */
        NMSettingIPConfig *s_ip6 = NM_SETTING_IP_CONFIG(ensure_setting(c, NM_TYPE_SETTING_IP6_CONFIG));
        g_object_set(
                s_ip6,
                NM_SETTING_IP_CONFIG_METHOD,
                nm_profile_ipv6_method(lp->want.ipv6),
                NM_SETTING_IP_CONFIG_GATEWAY,
                NULL,
                NULL);
        nm_setting_ip_config_clear_addresses(s_ip6);

        if (!nm_connection_normalize(c, /* parameters= */ NULL, /* modified= */ NULL, error))
                return NULL;
        return g_steal_pointer(&c);
}

static bool ip_method_equal(NMConnection *a, NMConnection *b, int family) {
        NMSettingIPConfig *sa = family == AF_INET ? nm_connection_get_setting_ip4_config(a)
                                                  : nm_connection_get_setting_ip6_config(a);
        NMSettingIPConfig *sb = family == AF_INET ? nm_connection_get_setting_ip4_config(b)
                                                  : nm_connection_get_setting_ip6_config(b);

        if (!sa || !sb)
                return !sa && !sb;
        return streq_ptr(nm_setting_ip_config_get_method(sa), nm_setting_ip_config_get_method(sb));
}

static bool ip4_addresses_equal(NMConnection *a, NMConnection *b) {
        NMSettingIPConfig *sa = nm_connection_get_setting_ip4_config(a);
        NMSettingIPConfig *sb = nm_connection_get_setting_ip4_config(b);

        if (!sa || !sb)
                return !sa && !sb;
        if (nm_setting_ip_config_get_num_addresses(sa) != nm_setting_ip_config_get_num_addresses(sb))
                return false;
        for (guint i = 0; i < nm_setting_ip_config_get_num_addresses(sa); i++) {
                NMIPAddress *x = nm_setting_ip_config_get_address(sa, i);
                NMIPAddress *y = nm_setting_ip_config_get_address(sb, i);

                if (nm_ip_address_get_prefix(x) != nm_ip_address_get_prefix(y) ||
                    !streq_ptr(nm_ip_address_get_address(x), nm_ip_address_get_address(y)))
                        return false;
        }
        return true;
}

static guint wired_mtu(NMConnection *c) {
        NMSettingWired *s = nm_connection_get_setting_wired(c);

        return s ? nm_setting_wired_get_mtu(s) : 0;
}

bool nm_profile_owned_equal(NMConnection *a, NMConnection *b) {
        NMSettingConnection *ca = nm_connection_get_setting_connection(a);
        NMSettingConnection *cb = nm_connection_get_setting_connection(b);

        if (!ca || !cb)
                return false;
        /* NetworkManager stores an empty zone as none. */
        const char *za = nm_setting_connection_get_zone(ca), *zb = nm_setting_connection_get_zone(cb);
        return streq_ptr(nm_setting_connection_get_id(ca), nm_setting_connection_get_id(cb)) &&
                streq_ptr(
                        nm_setting_connection_get_connection_type(ca),
                        nm_setting_connection_get_connection_type(cb)) &&
                streq_ptr(
                        nm_setting_connection_get_interface_name(ca),
                        nm_setting_connection_get_interface_name(cb)) &&
                nm_setting_connection_get_autoconnect(ca) == nm_setting_connection_get_autoconnect(cb) &&
                streq_ptr(isempty(za) ? NULL : za, isempty(zb) ? NULL : zb) &&
                wired_mtu(a) == wired_mtu(b) && ip_method_equal(a, b, AF_INET) &&
                ip4_addresses_equal(a, b) && ip_method_equal(a, b, AF_INET6);
}
