/* SPDX-License-Identifier: MIT */
/* Tests check_list_add_ports() (lib/check/check-ports.c): one check id over the fabric's ports, with
 * the worst outcome, each port's words prefixed by its link, and what a reboot would bring into force
 * on the ports that say so. */
#include <stdio.h>

#include "check/check-ports.h"
#include "tests.h"

static const FabricPort ports[] = {
        { .link = (char *) "rdma0" },
        { .link = (char *) "rdma1" },
};

static void test_one_port(void) {
        _cleanup_(check_list_done) CheckList l = {};
        _cleanup_(port_check_done) PortCheck p = {};

        ASSERT_OK(port_check_set(&p, CHECK_WARN, "≥ 4.91", "4.91", "firmware 4.91; updated to 4.92"));
        ASSERT_OK(port_check_set_pending_reboot(&p, "NIC firmware: 4.92, stored on enp194s0np0"));
        ASSERT_OK(check_list_add_ports(&l, "nic.firmware", ports, &p, 1));
        ASSERT_INT_EQ(l.n_checks, 1);
        ASSERT_INT_EQ(l.checks[0].outcome, CHECK_WARN);
        ASSERT_STR_EQ(l.checks[0].summary, "firmware 4.91; updated to 4.92");
        ASSERT_STR_EQ(l.checks[0].pending_reboot, "NIC firmware: 4.92, stored on enp194s0np0");

        /* A new result clears what the old one would have brought. */
        ASSERT_OK(port_check_set(&p, CHECK_PASS, NULL, "4.92", "firmware 4.92"));
        ASSERT_TRUE(!p.pending_reboot);
}

static void test_two_ports(void) {
        _cleanup_(check_list_done) CheckList l = {}, none = {};
        PortCheck p[2] = {};

        ASSERT_OK(port_check_set(&p[0], CHECK_PASS, NULL, "4.91", "firmware 4.91"));
        ASSERT_OK(port_check_set(&p[1], CHECK_WARN, NULL, "4.91", "firmware 4.91; updated to 4.92"));
        ASSERT_OK(check_list_add_ports(&none, "nic.firmware", ports, p, 2));
        ASSERT_TRUE(!none.checks[0].pending_reboot);

        ASSERT_OK(port_check_set_pending_reboot(&p[1], "NIC firmware: 4.92, stored on enp194s0np1"));
        ASSERT_OK(check_list_add_ports(&l, "nic.firmware", ports, p, 2));
        ASSERT_INT_EQ(l.checks[0].outcome, CHECK_WARN);
        ASSERT_STR_EQ(l.checks[0].summary, "rdma0: firmware 4.91; rdma1: firmware 4.91; updated to 4.92");
        ASSERT_STR_EQ(l.checks[0].pending_reboot, "rdma1: NIC firmware: 4.92, stored on enp194s0np1");
        port_check_done(&p[0]);
        port_check_done(&p[1]);
}

int main(void) {
        test_one_port();
        test_two_ports();
        printf("test-check-ports: ok\n");
        return 0;
}
