/* SPDX-License-Identifier: MIT */
/* The connection haloctl apply --adopt keeps and the one haloctl unadopt gives back, from keyfiles as
 * NetworkManager 1.42 writes them: the round trip restores the guide's connection, a second takeover
 * keeps the marks of the first, and a user setting of someone else's survives both. */
#include "apply/nm.h"
#include "apply/nm/nm-internal.h"
#include "basic/macro.h"
#include "tests.h"

/* What `nmcli connection add type ethernet con-name rdma0 ifname ... ipv4.method manual ipv4.addresses
 * ... ethernet.mtu 9000 connection.zone trusted` wrote (keyfile plugin, NetworkManager 1.42.4). */
static const char keyfile_guide[] =
        "[connection]\n"
        "id=rdma0\n"
        "uuid=16065907-a74c-4644-8df2-97ef51da9b02\n"
        "type=ethernet\n"
        "interface-name=enp194s0f0np0\n"
        "timestamp=1795510026\n"
        "zone=trusted\n"
        "\n"
        "[ethernet]\n"
        "mtu=9000\n"
        "\n"
        "[ipv4]\n"
        "address1=10.10.0.1/30\n"
        "method=manual\n"
        "\n"
        "[ipv6]\n"
        "addr-gen-mode=default\n"
        "method=disabled\n"
        "\n"
        "[proxy]\n";

/* The same with autoconnect off and a user data key of another tool's. */
static const char keyfile_guide_tagged[] =
        "[connection]\n"
        "id=fabric\n"
        "uuid=0b5f2f5e-1c55-4f59-9b4a-7f3c3f0b1a11\n"
        "type=ethernet\n"
        "autoconnect=false\n"
        "interface-name=enp194s0f0np0\n"
        "\n"
        "[ethernet]\n"
        "\n"
        "[ipv4]\n"
        "address1=10.10.0.1/30\n"
        "method=manual\n"
        "\n"
        "[user]\n"
        "org.example.owner=ansible\n";

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

static const char *user_data(NMConnection *c, const char *key) {
        NMSetting *u = nm_connection_get_setting(c, NM_TYPE_SETTING_USER);

        return u ? nm_setting_user_get_data(NM_SETTING_USER(u), key) : NULL;
}

static NMConnection *kept(NMConnection *c, const char *link, bool was_active) {
        g_autoptr(GError) error = NULL;
        NMConnection *k = nm_adopt_kept_connection(c, link, was_active, &error);

        if (!k)
                fprintf(stderr, "nm_adopt_kept_connection: %s\n", error->message);
        ASSERT_TRUE(k);
        ASSERT_TRUE(nm_connection_verify(k, &error));
        return k;
}

static NMConnection *given_back(NMConnection *c) {
        g_autoptr(GError) error = NULL;
        NMConnection *k = nm_adopt_given_back_connection(c, &error);

        if (!k)
                fprintf(stderr, "nm_adopt_given_back_connection: %s\n", error->message);
        ASSERT_TRUE(k);
        ASSERT_TRUE(nm_connection_verify(k, &error));
        return k;
}

static void test_guide_round_trip(void) {
        g_autoptr(NMConnection) guide = read_keyfile(keyfile_guide);
        g_autoptr(NMConnection) k = kept(guide, "rdma0", /* was_active= */ true);
        g_autoptr(NMConnection) back = given_back(k);

        ASSERT_STR_EQ(nm_connection_get_id(k), "rdma0" NM_ADOPT_KEPT_SUFFIX);
        ASSERT_STR_EQ(nm_connection_get_uuid(k), nm_connection_get_uuid(guide));
        ASSERT_TRUE(!nm_setting_connection_get_autoconnect(nm_connection_get_setting_connection(k)));
        ASSERT_STR_EQ(user_data(k, NM_ADOPT_KEY_LINK), "rdma0");
        ASSERT_STR_EQ(user_data(k, NM_ADOPT_KEY_ID), "rdma0");
        ASSERT_STR_EQ(user_data(k, NM_ADOPT_KEY_AUTOCONNECT), "yes");
        ASSERT_STR_EQ(user_data(k, NM_ADOPT_KEY_ACTIVE), "yes");
        /* The address, MTU and zone stay: the kept connection is the guide's, only parked. */
        ASSERT_STR_EQ(nm_setting_connection_get_zone(nm_connection_get_setting_connection(k)), "trusted");
        ASSERT_INT_EQ(nm_setting_wired_get_mtu(nm_connection_get_setting_wired(k)), 9000);
        NMSettingIPConfig *ip4 = nm_connection_get_setting_ip4_config(k);
        ASSERT_INT_EQ(nm_setting_ip_config_get_num_addresses(ip4), 1);
        ASSERT_STR_EQ(nm_ip_address_get_address(nm_setting_ip_config_get_address(ip4, 0)), "10.10.0.1");

        /* Given back, it is the guide's connection again, down to having no user setting. */
        ASSERT_TRUE(nm_connection_compare(guide, back, NM_SETTING_COMPARE_FLAG_EXACT));
        ASSERT_TRUE(nm_connection_get_setting(back, NM_TYPE_SETTING_USER) == NULL);
}

static void test_taken_over_again_keeps_first_marks(void) {
        g_autoptr(NMConnection) guide = read_keyfile(keyfile_guide);
        g_autoptr(NMConnection) first = kept(guide, "rdma0", /* was_active= */ true);
        g_autoptr(NMConnection) reenabled = nm_simple_connection_new_clone(first);

        /* Someone turned it on again by hand (nmcli connection modify ... autoconnect yes; up). */
        g_object_set(
                nm_connection_get_setting_connection(reenabled), NM_SETTING_CONNECTION_AUTOCONNECT, TRUE, NULL);
        g_autoptr(NMConnection) second = kept(reenabled, "rdma0", /* was_active= */ false);
        ASSERT_STR_EQ(nm_connection_get_id(second), "rdma0" NM_ADOPT_KEPT_SUFFIX);
        ASSERT_TRUE(!nm_setting_connection_get_autoconnect(nm_connection_get_setting_connection(second)));
        ASSERT_STR_EQ(user_data(second, NM_ADOPT_KEY_ID), "rdma0");
        ASSERT_STR_EQ(user_data(second, NM_ADOPT_KEY_AUTOCONNECT), "yes");
        ASSERT_STR_EQ(user_data(second, NM_ADOPT_KEY_ACTIVE), "yes");

        g_autoptr(NMConnection) back = given_back(second);
        ASSERT_TRUE(nm_connection_compare(guide, back, NM_SETTING_COMPARE_FLAG_EXACT));
}

static void test_other_user_data_survives(void) {
        g_autoptr(NMConnection) tagged = read_keyfile(keyfile_guide_tagged);
        g_autoptr(NMConnection) k = kept(tagged, "rdma1", /* was_active= */ false);
        g_autoptr(NMConnection) back = given_back(k);

        ASSERT_STR_EQ(nm_connection_get_id(k), "fabric" NM_ADOPT_KEPT_SUFFIX);
        ASSERT_STR_EQ(user_data(k, NM_ADOPT_KEY_LINK), "rdma1");
        ASSERT_STR_EQ(user_data(k, NM_ADOPT_KEY_AUTOCONNECT), "no");
        ASSERT_STR_EQ(user_data(k, NM_ADOPT_KEY_ACTIVE), "no");
        ASSERT_STR_EQ(user_data(k, "org.example.owner"), "ansible");

        ASSERT_STR_EQ(user_data(back, "org.example.owner"), "ansible");
        ASSERT_TRUE(user_data(back, NM_ADOPT_KEY_LINK) == NULL);
        ASSERT_TRUE(!nm_setting_connection_get_autoconnect(nm_connection_get_setting_connection(back)));
        ASSERT_TRUE(nm_connection_compare(tagged, back, NM_SETTING_COMPARE_FLAG_EXACT));
}

static void test_give_back_needs_marks(void) {
        g_autoptr(NMConnection) guide = read_keyfile(keyfile_guide);
        g_autoptr(GError) error = NULL;

        ASSERT_TRUE(nm_adopt_given_back_connection(guide, &error) == NULL);
        ASSERT_TRUE(error && strstr(error->message, NM_ADOPT_KEY_LINK));
}

int main(void) {
        test_guide_round_trip();
        test_taken_over_again_keeps_first_marks();
        test_other_user_data_survives();
        test_give_back_needs_marks();
        return 0;
}
