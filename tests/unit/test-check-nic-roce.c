/* SPDX-License-Identifier: MIT */
/* Tests nic.roce's decision on devlink parameter replies built as the kernel builds them: an E810 with
 * RoCE on, an E810 switched to iWARP, a ConnectX with RoCE off until a reload, and the answers of a
 * kernel or driver that cannot tell. */
#include "check/check-nic.h"
#include "devlink-messages.h"
#include "tests.h"

#define PCI "0000:c2:00.0"

static void parse(const TestParam *t, DevlinkParam *ret) {
        static uint8_t buf[DEVLINK_MESSAGE_MAX];

        ASSERT_OK(devlink_parse_param(test_build_param(buf, t), ret));
}

static void
        expect(NicFamily family,
               const DevlinkParam *roce,
               int roce_error,
               const DevlinkParam *iwarp,
               int iwarp_error,
               CheckOutcome outcome,
               const char *summary) {
        PortCheck c = {};

        ASSERT_OK(check_nic_roce_evaluate(
                PCI, family, nic_family_driver(family) ?: "bnxt_en", roce, roce_error, iwarp, iwarp_error, &c));
        ASSERT_STR_EQ(c.summary, summary);
        ASSERT_INT_EQ(c.outcome, outcome);
        port_check_done(&c);
}

int main(void) {
        static const TestParamValue iwarp_on[] = { { DEVLINK_PARAM_CMODE_RUNTIME, 1, NULL } };
        static const TestParamValue roce_off[] = { { DEVLINK_PARAM_CMODE_RUNTIME, 0, NULL } };
        static const TestParam ice_iwarp_on = {
                .name = "param-ice-enable-iwarp",
                .param = "enable_iwarp",
                .generic = true,
                .type = DEVLINK_PARAM_BOOL,
                .values = iwarp_on,
                .n_values = 1,
        };
        static const TestParam ice_roce_off = {
                .name = "param-ice-enable-roce-off",
                .param = "enable_roce",
                .generic = true,
                .type = DEVLINK_PARAM_BOOL,
                .values = roce_off,
                .n_values = 1,
        };
        _cleanup_(devlink_param_done) DevlinkParam on = {}, off = {}, iwarp = {}, mlx5_off = {};

        parse(&test_param_ice_roce_on, &on);
        parse(&ice_roce_off, &off);
        parse(&ice_iwarp_on, &iwarp);
        parse(&test_param_mlx5_roce_off, &mlx5_off);

        expect(NIC_FAMILY_E810,
               &on,
               0,
               NULL,
               -ENOENT,
               CHECK_PASS,
               "RoCE is on for " PCI " (devlink enable_roce, runtime)");
        expect(NIC_FAMILY_E810,
               &off,
               0,
               &iwarp,
               0,
               CHECK_FAIL,
               "E810 runs iWARP, not RoCE, on " PCI
               " (devlink enable_iwarp true, enable_roce false): RoCE v2 needs "
               "enable_roce; `devlink dev param set pci/" PCI
               " name enable_iwarp value false cmode runtime`, then "
               "`devlink dev param set pci/" PCI " name enable_roce value true cmode runtime`");
        expect(NIC_FAMILY_E810,
               &off,
               0,
               NULL,
               -ENOENT,
               CHECK_FAIL,
               "RoCE is off for " PCI " (devlink enable_roce false, runtime): `devlink dev param set pci/" PCI
               " name enable_roce value true cmode runtime`");
        /* mlx5 takes enable_roce at driver init: the fix ends in a reload. */
        expect(NIC_FAMILY_CONNECTX,
               &mlx5_off,
               0,
               NULL,
               -ENOMEDIUM,
               CHECK_FAIL,
               "RoCE is off for " PCI " (devlink enable_roce false, driverinit): `devlink dev param set pci/" PCI
               " name enable_roce value true cmode driverinit`, then `devlink dev reload pci/" PCI "`");

        /* What cannot tell is said, never passed. */
        expect(NIC_FAMILY_E810,
               NULL,
               -EPROTONOSUPPORT,
               NULL,
               -EPROTONOSUPPORT,
               CHECK_SKIP,
               "could not look at the RDMA protocol of " PCI
               ": devlink's enable_roce: this kernel has no devlink");
        expect(NIC_FAMILY_E810,
               NULL,
               -ENOENT,
               NULL,
               -ENOENT,
               CHECK_SKIP,
               "the driver of " PCI
               " has no devlink parameter enable_roce (a kernel from before it), so RoCE is the "
               "driver's default; rdma.gid shows whether RoCE v2 GID entries exist");
        expect(NIC_FAMILY_E810,
               NULL,
               -ENOMEDIUM,
               NULL,
               -ENOMEDIUM,
               CHECK_SKIP,
               "the RDMA protocol comes from the running kernel (devlink), which does not describe the tree given "
               "with --root");
        expect(NIC_FAMILY_UNKNOWN,
               NULL,
               -ENOMEDIUM,
               NULL,
               -ENOMEDIUM,
               CHECK_SKIP,
               "halod does not know how NIC driver bnxt_en switches RoCE on");
        /* A parameter of another type is no answer. */
        {
                _cleanup_(devlink_param_done) DevlinkParam macs = {};

                parse(&test_param_mlx5_max_macs, &macs);
                expect(NIC_FAMILY_CONNECTX,
                       &macs,
                       0,
                       NULL,
                       -ENOMEDIUM,
                       CHECK_SKIP,
                       "devlink's enable_roce of " PCI " reports no boolean value");
        }
        printf("test-check-nic-roce: ok\n");
        return 0;
}
