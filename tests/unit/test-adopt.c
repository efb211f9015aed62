/* SPDX-License-Identifier: MIT */
/* haloctl apply --adopt on the program's side: which NetworkManager connections it takes over (the one
 * rule both sides use), the lines plan, apply and unadopt print, and that asking costs nothing where
 * there is nothing to ask (no bus: nothing found, nothing loaded; the netlink backend takes nothing
 * over). The takeover itself runs against real NetworkManager in test-apply-nm-adopt.sh. */
#include <dlfcn.h>

#include "apply/adopt.h"
#include "apply/nm.h"
#include "basic/macro.h"
#include "basic/strv.h"
#include "tests.h"

static void test_takes_over(void) {
        static const struct {
                const char *id;
                uint32_t flags;
                bool active_here, bound_here, autoconnect, adopted;
                bool expected;
        } cases[] = {
                /* The guide's connection, active on the interface: taken over, whatever its autoconnect. */
                { "rdma0", 0, true, true, true, false, true },
                { "rdma0", 0, true, false, false, false, true },
                /* Bound to the interface and would come back on its own. */
                { "rdma0-spare", 0, false, true, true, false, true },
                /* Bound but off, or kept from a takeover before: no threat, left alone. */
                { "rdma0-spare", 0, false, true, false, false, false },
                { "rdma0 (before halod)", 0, false, true, true, true, false },
                /* Kept before, and activated again by hand since: taken over again. */
                { "rdma0 (before halod)", 0, true, true, true, true, true },
                /* Neither active nor bound here (another interface's, or a generic one). */
                { "Wired connection 1", 0, false, false, true, false, false },
                /* halod's own, and NetworkManager's stand-ins for what it found on the device. */
                { "halod-rdma0", 0, true, true, true, false, false },
                { "halod-rdma1", 0, true, true, true, false, false },
                { "na1a", 0x02, true, true, true, false, false },
                { "na1a", 0x08, true, true, true, false, false },
                /* A connection without a name is still somebody's. */
                { NULL, 0, true, false, true, false, true },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                fprintf(stderr, "takes over %s (case %zu)?\n", strna(cases[i].id), i);
                ASSERT_INT_EQ(
                        nm_adopt_takes_over(
                                cases[i].id,
                                cases[i].flags,
                                cases[i].active_here,
                                cases[i].bound_here,
                                cases[i].autoconnect,
                                cases[i].adopted),
                        cases[i].expected);
        }
}

static Adoption adoption(bool kept) {
        Adoption a = {
                .link = strdup("rdma0"),
                .ifname = strdup("enp194s0f0np0"),
                .id = strdup(kept ? "rdma0 (before halod)" : "rdma0"),
                .uuid = strdup("16065907-a74c-4644-8df2-97ef51da9b02"),
                .active = !kept,
                .kept = kept,
                .other_id = strdup(kept ? "rdma0" : "rdma0 (before halod)"),
                .autoconnect = true,
                .reactivate = kept,
        };

        ASSERT_TRUE(a.link && a.ifname && a.id && a.uuid && a.other_id);
        return a;
}

static void test_lines(void) {
        _cleanup_(adoptions_done) Adoptions l = {};
        _cleanup_(strv_freep) char **lines = NULL;
        _cleanup_(freep) char *holder = NULL;
        Adoption a = adoption(false), k = adoption(true);

        ASSERT_OK(adoptions_add(&l, &a));
        ASSERT_OK(adoptions_add(&l, &k));
        ASSERT_TRUE(a.link == NULL); /* taken over by the list */
        ASSERT_TRUE(adoptions_has(&l, "rdma0", /* kept= */ false));
        ASSERT_TRUE(adoptions_has(&l, "rdma0", /* kept= */ true));
        ASSERT_TRUE(!adoptions_has(&l, "rdma1", /* kept= */ false));

        /* The takeover comes before the changes made through it. */
        ASSERT_OK(strv_extend(&lines, "rdma0 (enp194s0f0np0): + 192.168.100.1/30"));
        ASSERT_OK(adoptions_describe(&l, /* kept= */ false, &lines));
        ASSERT_INT_EQ(strv_length(lines), 2);
        ASSERT_STR_EQ(
                lines[0],
                "rdma0 (enp194s0f0np0): adopt NetworkManager connection \"rdma0\" (uuid "
                "16065907-a74c-4644-8df2-97ef51da9b02): kept as \"rdma0 (before halod)\", autoconnect off");
        ASSERT_STR_EQ(lines[1], "rdma0 (enp194s0f0np0): + 192.168.100.1/30");

        lines = strv_free(lines);
        ASSERT_OK(adoptions_describe(&l, /* kept= */ true, &lines));
        ASSERT_INT_EQ(strv_length(lines), 1);
        ASSERT_STR_EQ(
                lines[0],
                "rdma0 (enp194s0f0np0): give back NetworkManager connection \"rdma0 (before halod)\" (uuid "
                "16065907-a74c-4644-8df2-97ef51da9b02): renamed \"rdma0\", autoconnect yes, activated again");

        holder = adoption_describe_holder(&l.items[0]);
        ASSERT_STR_EQ(
                holder,
                "rdma0 (enp194s0f0np0): NetworkManager connection \"rdma0\" (uuid "
                "16065907-a74c-4644-8df2-97ef51da9b02) holds the interface, so apply refuses to change it; "
                "haloctl plan --adopt shows how haloctl apply --adopt takes it over");
}

static void test_nothing_to_ask(void) {
        _cleanup_(adoptions_done) Adoptions found = {}, none = {};
        _cleanup_(freep) char *error = NULL;
        Plan p = {
                .links = &(LinkPlan){ .link = (char *) "rdma0", .ifname = (char *) "enp194s0f0np0" },
                .n_links = 1,
        };

        /* No system bus: NetworkManager cannot run, so nothing holds the interface. */
        ASSERT_OK(nm_find_adoptions("rdma0", "enp194s0f0np0", &found, &error));
        ASSERT_INT_EQ(found.n, 0);
        ASSERT_TRUE(error == NULL);
        ASSERT_OK(adoptions_find(&backend_networkmanager, &p, &found, &error));
        ASSERT_INT_EQ(found.n, 0);

        /* The netlink backend: the kernel's state is nobody's configuration to take over. */
        ASSERT_TRUE(backend_netlink.find_adoptions == NULL && backend_netlink.unadopt_link == NULL);
        ASSERT_OK(adoptions_find(&backend_netlink, &p, &none, &error));
        ASSERT_INT_EQ(none.n, 0);

        /* Asking loaded neither libnm nor halod's module. */
        ASSERT_TRUE(dlopen("libnm.so.0", RTLD_NOW | RTLD_NOLOAD) == NULL);
        ASSERT_TRUE(dlopen("libglib-2.0.so.0", RTLD_NOW | RTLD_NOLOAD) == NULL);
}

int main(void) {
        ASSERT_INT_EQ(setenv("DBUS_SYSTEM_BUS_ADDRESS", "unix:path=/nonexistent-test-adopt/bus", 1), 0);
        test_takes_over();
        test_lines();
        test_nothing_to_ask();
        return 0;
}
