/* SPDX-License-Identifier: MIT */
/* The NetworkManager profile halod builds for a link, and which differences count as a change; the
 * existing profiles are keyfiles as NetworkManager 1.42 writes them. */
#include <arpa/inet.h>

#include "apply/nm/nm-internal.h"
#include "basic/macro.h"
#include "tests.h"

/* What NetworkManager wrote for halod's first apply (keyfile plugin, NetworkManager 1.42.4). */
static const char keyfile_halod[] =
        "[connection]\n"
        "id=halod-rdma0\n"
        "uuid=8e1647fa-d338-4640-8b8f-ecdaec0965fa\n"
        "type=ethernet\n"
        "interface-name=enp194s0f0np0\n"
        "zone=trusted\n"
        "\n"
        "[ethernet]\n"
        "mtu=9000\n"
        "\n"
        "[ipv4]\n"
        "address1=192.168.100.1/30\n"
        "method=manual\n"
        "\n"
        "[ipv6]\n"
        "addr-gen-mode=default\n"
        "method=disabled\n"
        "\n"
        "[proxy]\n";

/* The same after an administrator added things halod does not own (DNS, wake-on-LAN, a timestamp). */
static const char keyfile_halod_tweaked[] =
        "[connection]\n"
        "id=halod-rdma0\n"
        "uuid=8e1647fa-d338-4640-8b8f-ecdaec0965fa\n"
        "type=ethernet\n"
        "interface-name=enp194s0f0np0\n"
        "timestamp=1795311698\n"
        "zone=trusted\n"
        "\n"
        "[ethernet]\n"
        "mtu=9000\n"
        "wake-on-lan=0\n"
        "\n"
        "[ipv4]\n"
        "address1=192.168.100.1/30\n"
        "dns=192.168.100.2;\n"
        "method=manual\n"
        "\n"
        "[ipv6]\n"
        "addr-gen-mode=default\n"
        "method=disabled\n"
        "\n"
        "[proxy]\n";

/* Someone turned halod's profile into a dummy device. */
static const char keyfile_dummy[] =
        "[connection]\n"
        "id=halod-rdma0\n"
        "uuid=0e65b596-07d3-4372-948a-61f83c777b41\n"
        "type=dummy\n"
        "interface-name=dummy0\n"
        "\n"
        "[ipv4]\n"
        "method=disabled\n"
        "\n"
        "[ipv6]\n"
        "method=disabled\n";

static LinkPlan rdma0(void) {
        LinkPlan lp = {
                .link = (char *) "rdma0",
                .ifname = (char *) "enp194s0f0np0",
                .address.prefixlen = 30,
                .want = { .mtu = 9000, .zone = (char *) "trusted" },
        };
        ASSERT_INT_EQ(inet_pton(AF_INET, "192.168.100.1", &lp.address.address), 1);
        return lp;
}

static NMConnection *read_keyfile(const char *text) {
        g_autoptr(GKeyFile) kf = g_key_file_new();
        g_autoptr(GError) error = NULL;

        ASSERT_TRUE(g_key_file_load_from_data(kf, text, strlen(text), G_KEY_FILE_NONE, &error));
        NMConnection *c = nm_keyfile_read(
                kf, "/etc/NetworkManager/system-connections", NM_KEYFILE_HANDLER_FLAGS_NONE, NULL, NULL, &error);
        ASSERT_TRUE(c);
        ASSERT_TRUE(nm_connection_normalize(c, NULL, NULL, &error));
        return c;
}

static NMConnection *build(const LinkPlan *lp, NMConnection *base) {
        g_autoptr(GError) error = NULL;
        NMConnection *c = nm_profile_build(lp, base, &error);

        if (!c)
                fprintf(stderr, "nm_profile_build: %s\n", error->message);
        ASSERT_TRUE(c);
        ASSERT_TRUE(nm_connection_verify(c, &error));
        return c;
}

static const char *ip4_address(NMConnection *c) {
        NMSettingIPConfig *s = nm_connection_get_setting_ip4_config(c);

        ASSERT_INT_EQ(nm_setting_ip_config_get_num_addresses(s), 1);
        return nm_ip_address_get_address(nm_setting_ip_config_get_address(s, 0));
}

static void test_new_profile(void) {
        LinkPlan lp = rdma0();
        g_autoptr(NMConnection) c = build(&lp, NULL);
        NMSettingConnection *s_con = nm_connection_get_setting_connection(c);
        NMSettingIPConfig *s_ip4 = nm_connection_get_setting_ip4_config(c);

        ASSERT_STR_EQ(nm_connection_get_id(c), "halod-rdma0");
        ASSERT_TRUE(g_uuid_string_is_valid(nm_connection_get_uuid(c)));
        ASSERT_STR_EQ(nm_connection_get_connection_type(c), "802-3-ethernet");
        ASSERT_STR_EQ(nm_setting_connection_get_interface_name(s_con), "enp194s0f0np0");
        ASSERT_TRUE(nm_setting_connection_get_autoconnect(s_con));
        ASSERT_STR_EQ(nm_setting_connection_get_zone(s_con), "trusted");
        ASSERT_INT_EQ(nm_setting_wired_get_mtu(nm_connection_get_setting_wired(c)), 9000);
        ASSERT_STR_EQ(nm_setting_ip_config_get_method(s_ip4), "manual");
        ASSERT_STR_EQ(ip4_address(c), "192.168.100.1");
        ASSERT_INT_EQ(nm_ip_address_get_prefix(nm_setting_ip_config_get_address(s_ip4, 0)), 30);
        ASSERT_STR_EQ(nm_setting_ip_config_get_method(nm_connection_get_setting_ip6_config(c)), "disabled");

        /* Two new profiles are two profiles. */
        g_autoptr(NMConnection) other = build(&lp, NULL);
        ASSERT_TRUE(!streq(nm_connection_get_uuid(c), nm_connection_get_uuid(other)));
}

static void test_leave_alone_and_ipv6(void) {
        LinkPlan lp = rdma0();
        lp.want.mtu = 0;
        lp.want.zone = NULL;
        lp.want.ipv6 = true;
        g_autoptr(NMConnection) c = build(&lp, NULL);

        ASSERT_INT_EQ(nm_setting_wired_get_mtu(nm_connection_get_setting_wired(c)), 0);
        ASSERT_TRUE(nm_setting_connection_get_zone(nm_connection_get_setting_connection(c)) == NULL);
        ASSERT_STR_EQ(nm_setting_ip_config_get_method(nm_connection_get_setting_ip6_config(c)), "link-local");
        ASSERT_STR_EQ(nm_profile_ipv6_method(false), "disabled");
}

static void test_existing_profile_kept(void) {
        LinkPlan lp = rdma0();
        g_autoptr(NMConnection) base = read_keyfile(keyfile_halod_tweaked);
        g_autoptr(NMConnection) c = build(&lp, base);

        /* Same settings: no change, and what halod does not own survives an update. */
        ASSERT_TRUE(nm_profile_owned_equal(c, base));
        ASSERT_STR_EQ(nm_connection_get_uuid(c), "8e1647fa-d338-4640-8b8f-ecdaec0965fa");
        ASSERT_INT_EQ(nm_setting_ip_config_get_num_dns(nm_connection_get_setting_ip4_config(c)), 1);
        ASSERT_INT_EQ(nm_setting_wired_get_wake_on_lan(nm_connection_get_setting_wired(c)), 0);

        lp.want.mtu = 4000;
        g_autoptr(NMConnection) changed = build(&lp, base);
        ASSERT_TRUE(!nm_profile_owned_equal(changed, base));
        ASSERT_STR_EQ(nm_connection_get_uuid(changed), "8e1647fa-d338-4640-8b8f-ecdaec0965fa");
        ASSERT_INT_EQ(nm_setting_ip_config_get_num_dns(nm_connection_get_setting_ip4_config(changed)), 1);
}

static void test_other_type_replaced(void) {
        LinkPlan lp = rdma0();
        g_autoptr(NMConnection) base = read_keyfile(keyfile_dummy);
        g_autoptr(NMConnection) c = build(&lp, base);

        ASSERT_STR_EQ(nm_connection_get_connection_type(c), "802-3-ethernet");
        ASSERT_STR_EQ(nm_connection_get_uuid(c), "0e65b596-07d3-4372-948a-61f83c777b41");
        ASSERT_TRUE(!nm_profile_owned_equal(c, base));
}

/* One property halod owns changed in the profile: each must count as a change. */
static const char *const owned_changes[] = {
        "link", "interface", "mtu", "zone", "ipv6", "prefix", "address",
};

static void change_owned(LinkPlan *lp, const char *what) {
        if (streq(what, "link"))
                lp->link = (char *) "rdma1";
        else if (streq(what, "interface"))
                lp->ifname = (char *) "enp194s0f1np1";
        else if (streq(what, "mtu"))
                lp->want.mtu = 1500;
        else if (streq(what, "zone"))
                lp->want.zone = (char *) "internal";
        else if (streq(what, "ipv6"))
                lp->want.ipv6 = true;
        else if (streq(what, "prefix"))
                lp->address.prefixlen = 24;
        else if (streq(what, "address"))
                ASSERT_INT_EQ(inet_pton(AF_INET, "192.168.100.5", &lp->address.address), 1);
        else
                abort();
}

static void test_owned_differences(void) {
        g_autoptr(NMConnection) base = read_keyfile(keyfile_halod);
        LinkPlan same = rdma0();
        g_autoptr(NMConnection) unchanged = build(&same, base);

        ASSERT_TRUE(nm_profile_owned_equal(unchanged, base));

        /* An MTU or zone the profile leaves alone is not halod's to change either. */
        same.want.mtu = 0;
        same.want.zone = NULL;
        g_autoptr(NMConnection) alone = build(&same, base);
        ASSERT_TRUE(nm_profile_owned_equal(alone, base));
        ASSERT_INT_EQ(nm_setting_wired_get_mtu(nm_connection_get_setting_wired(alone)), 9000);
        ASSERT_STR_EQ(nm_setting_connection_get_zone(nm_connection_get_setting_connection(alone)), "trusted");

        for (size_t i = 0; i < ELEMENTSOF(owned_changes); i++) {
                LinkPlan lp = rdma0();
                change_owned(&lp, owned_changes[i]);
                g_autoptr(NMConnection) c = build(&lp, base);
                if (nm_profile_owned_equal(c, base)) {
                        fprintf(stderr, "a change of %s was not seen\n", owned_changes[i]);
                        abort();
                }
        }
}

static void test_ids(void) {
        g_autofree char *id = nm_profile_id("rdma0");

        ASSERT_STR_EQ(id, "halod-rdma0");
        ASSERT_TRUE(nm_profile_id_is_halod("halod-rdma0"));
        ASSERT_TRUE(nm_profile_id_is_halod("halod-"));
        ASSERT_TRUE(!nm_profile_id_is_halod("Wired connection 1"));
        ASSERT_TRUE(!nm_profile_id_is_halod("rdma0-halod"));
        ASSERT_TRUE(!nm_profile_id_is_halod(NULL));
}

static void test_reasons(void) {
        /* Every reason NetworkManager 1.42 defines has its own words; an unknown one is said so. */
        for (unsigned r = NM_ACTIVE_CONNECTION_STATE_REASON_UNKNOWN;
             r <= NM_ACTIVE_CONNECTION_STATE_REASON_DEVICE_REMOVED;
             r++) {
                const char *s = nm_active_state_reason_to_string(r);
                ASSERT_TRUE(!strstr(s, "does not know"));
                for (unsigned q = NM_ACTIVE_CONNECTION_STATE_REASON_UNKNOWN; q < r; q++)
                        ASSERT_TRUE(!streq(s, nm_active_state_reason_to_string(q)));
        }
        ASSERT_STR_EQ(
                nm_active_state_reason_to_string(NM_ACTIVE_CONNECTION_STATE_REASON_IP_CONFIG_INVALID),
                "the IP configuration was invalid");
        ASSERT_TRUE(strstr(nm_active_state_reason_to_string(4242), "does not know"));
}

int main(void) {
        test_new_profile();
        test_leave_alone_and_ipv6();
        test_existing_profile_kept();
        test_other_type_replaced();
        test_owned_differences();
        test_ids();
        test_reasons();
        return 0;
}
